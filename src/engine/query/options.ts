/**
 * v2 filter options: for each categorical filter key, the values present among the rows the key may
 * see, with counts, most frequent first (ties by value). `nace_code` lists section values, the form the
 * filter's canonical echo uses for sections.
 */
import type { FilterOption, FilterOptionsResponse } from '../../contract/v2/service.js';
import { NACE_SECTIONS, sectionOf } from '../../contract/nace.js';
import type { CategoricalColumn, Codes } from '../store/dictionary.js';
import type { ColumnStore } from '../store/store.js';
import { CATEGORICAL_FILTER_KEYS } from './filters.js';
import type { QueryContext } from './context.js';


function countIds(codes: Codes, visible: Uint8Array | null, dictionarySize: number): Uint32Array {
  const counts = new Uint32Array(dictionarySize);
  for (let i = 0; i < codes.length; i++) {
    const id = codes[i] ?? 0;
    if (!visible || visible[i]) counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

function ranked(entries: Iterable<[string | null, number]>): FilterOption[] {
  const options: FilterOption[] = [];
  for (const [value, count] of entries) if (value !== null && count > 0) options.push({ value, count });
  return options.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

function columnOptions(store: ColumnStore, column: CategoricalColumn, visible: Uint8Array | null): FilterOption[] {
  const counts = countIds(column.codes, visible, column.dict.size);
  return ranked(column.dict.values.map((value, id) => [value, counts[id] ?? 0]));
}

/** Registrations and keyword tags count organizations (an organization with two tags counts once per tag). */
function multiValuedOptions(store: ColumnStore, column: CategoricalColumn, offsets: Uint32Array, visible: Uint8Array | null): FilterOption[] {
  const counts = new Uint32Array(column.dict.size);
  const seen = new Int32Array(column.dict.size).fill(-1);
  for (let row = 0; row < store.size; row++) {
    if (visible && !visible[row]) continue;
    for (let j = offsets[row] ?? 0; j < (offsets[row + 1] ?? 0); j++) {
      const id = column.codes[j] ?? 0;
      if (seen[id] !== row) {
        seen[id] = row;
        counts[id] = (counts[id] ?? 0) + 1;
      }
    }
  }
  return ranked(column.dict.values.map((value, id) => [value, counts[id] ?? 0]));
}

/**
 * Options by population: the store is immutable and a view's visibility mask is fixed, so each is
 * computed once (a dozen whole-store passes and sorts of thousands of values) and copied per answer.
 */
const computed = new WeakMap<object, Record<string, FilterOption[]>>();

function computeOptions(context: QueryContext): Record<string, FilterOption[]> {
  const { store, visible } = context;
  const options: Record<string, FilterOption[]> = {};
  for (const key of CATEGORICAL_FILTER_KEYS) options[key] = columnOptions(store, store.categorical[key], visible);

  const sections = new Map<string, number>();
  for (const { value, count } of columnOptions(store, store.categorical.nace_code, visible)) {
    const letter = sectionOf(value);
    if (letter) sections.set(NACE_SECTIONS[letter], (sections.get(NACE_SECTIONS[letter]) ?? 0) + count);
  }
  options.nace_code = ranked(sections);
  options.company_register_court = multiValuedOptions(store, store.registrations.court, store.registrations.offsets, visible);
  const { dict, ids, offsets } = store.keywords;
  options.summary_keywords = multiValuedOptions(store, { dict, codes: ids }, offsets, visible);
  return options;
}

export function filterOptions(context: QueryContext): FilterOptionsResponse {
  const started = context.now();
  const population = context.visible ?? context.store;
  let cached = computed.get(population);
  if (!cached) {
    cached = computeOptions(context);
    computed.set(population, cached);
  }
  const options: Record<string, FilterOption[]> = {};
  for (const [key, list] of Object.entries(cached)) options[key] = list.map(({ value, count }) => ({ value, count }));
  return { options, metadata: { elapsed_ms: Math.round(context.now() - started) } };
}
