/**
 * Evaluating a normalised `filters` object over the store into a match mask (one byte per row). Lists
 * are OR inside a key, keys AND across; each key is one tight loop over a typed array, so a filter costs
 * a pass over the rows regardless of how many values it lists.
 */
import type { Filters, Keywords } from '../../contract/v2/filters.js';
import { sectionOf } from '../../contract/nace.js';
import { dayOf, NO_DAY } from '../store/dates.js';
import type { CategoricalColumn } from '../store/dictionary.js';
import type { CategoricalKey, ColumnStore } from '../store/store.js';
import { searchableTextIndex } from '../relevance/store-relevance.js';

export interface Mask {
  bits: Uint8Array;
  count: number;
}

/** Filter keys that are plain categorical columns (exact value match). */
export const CATEGORICAL_FILTER_KEYS = [
  'country',
  'state',
  'region',
  'district',
  'municipality',
  'organization_type',
  'organization_size',
  'source',
] as const satisfies readonly CategoricalKey[];

/** Which dictionary ids of a column a list of accepted values allows. */
function allowedIds(column: CategoricalColumn, accepts: (value: string) => boolean): Uint8Array {
  const allowed = new Uint8Array(column.dict.size);
  column.dict.values.forEach((value, id) => {
    if (value !== null && accepts(value)) allowed[id] = 1;
  });
  return allowed;
}

function keepAllowed(bits: Uint8Array, column: CategoricalColumn, allowed: Uint8Array): void {
  const codes = column.codes;
  for (let i = 0; i < bits.length; i++) if (bits[i] && !allowed[codes[i] ?? 0]) bits[i] = 0;
}

/**
 * Does a detailed NACE code (as stored, `62.01`) fall under a canonical filter value: a section value
 * matches its whole section, a division / group / class matches by prefix (`62` ⊃ `62.1` ⊃ `62.10`).
 */
export function naceMatches(stored: string, filterValue: string): boolean {
  if (filterValue.startsWith('NACE ')) return sectionOf(stored) === sectionOf(filterValue);
  if (stored.startsWith('NACE ')) return false;
  const wanted = filterValue.length === 2 ? `${filterValue}.` : filterValue;
  return stored === filterValue || stored.startsWith(wanted);
}

/**
 * The registrations satisfying the register filters (court and date bounds together, on the same
 * registration), one byte per registration; null when no register filter is set.
 */
export function registrationMask(store: ColumnStore, filters: Filters | null): Uint8Array | null {
  if (!filters || (!filters.company_register_court && !filters.register_date_from && !filters.register_date_to)) return null;
  const { court, day } = store.registrations;
  const courts = filters.company_register_court ? new Set(filters.company_register_court) : null;
  const courtAllowed = courts ? allowedIds(court, (value) => courts.has(value)) : null;
  const from = filters.register_date_from ? dayOf(filters.register_date_from) : null;
  const to = filters.register_date_to ? dayOf(filters.register_date_to) : null;
  const ok = new Uint8Array(day.length);
  for (let j = 0; j < day.length; j++) {
    const d = day[j] ?? NO_DAY;
    const courtOk = courtAllowed === null || courtAllowed[court.codes[j] ?? 0] === 1;
    if (courtOk && (from === null || d >= from) && (to === null || (d !== NO_DAY && d <= to))) ok[j] = 1;
  }
  return ok;
}

/** Keeps organizations with at least one registration satisfying the register filters. */
function keepRegistrations(store: ColumnStore, bits: Uint8Array, registrations: Uint8Array): void {
  const { offsets } = store.registrations;
  for (let i = 0; i < bits.length; i++) {
    if (!bits[i]) continue;
    let any = false;
    for (let j = offsets[i] ?? 0; j < (offsets[i + 1] ?? 0) && !any; j++) any = registrations[j] === 1;
    if (!any) bits[i] = 0;
  }
}

/** summary_keywords: the organization's tags must contain every listed value. */
function keepKeywordContainment(store: ColumnStore, bits: Uint8Array, wanted: readonly string[]): void {
  const { dict, offsets, ids } = store.keywords;
  const isWanted = new Uint8Array(dict.size);
  let distinct = 0;
  for (const value of wanted) {
    const id = dict.lookup(value);
    if (id === undefined) {
      bits.fill(0);
      return;
    }
    if (!isWanted[id]) distinct++;
    isWanted[id] = 1;
  }
  // One pass over each organization's tags, whatever the number of values: count the wanted ones it has.
  const seenIn = new Int32Array(dict.size).fill(-1);
  for (let i = 0; i < bits.length; i++) {
    if (!bits[i]) continue;
    let found = 0;
    for (let j = offsets[i] ?? 0; j < (offsets[i + 1] ?? 0); j++) {
      const id = ids[j] ?? 0;
      if (isWanted[id] && seenIn[id] !== i) {
        seenIn[id] = i;
        found++;
      }
    }
    if (found < distinct) bits[i] = 0;
  }
}

/** text_keywords: the keyword engine's boolean logic (terms, phrases, variants), without scoring. */
function keepText(store: ColumnStore, bits: Uint8Array, keywords: Keywords): void {
  const index = searchableTextIndex(store, keywords, ['body', 'filters', 'text_keywords']);
  const matching = index.match({ must_all: keywords.must_all, must_any: keywords.must_any, must_not: keywords.must_not }, bits);
  const keep = new Uint8Array(bits.length);
  for (const doc of matching) keep[doc] = 1;
  for (let i = 0; i < bits.length; i++) if (bits[i] && !keep[i]) bits[i] = 0;
}

function count(bits: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) n += bits[i] ?? 0;
  return n;
}

/**
 * The rows matching `filters` (null → every row), narrowed further by `base` (a key's visibility).
 * Unknown values simply match nothing.
 */
export function filterMask(store: ColumnStore, filters: Filters | null, base?: Uint8Array): Mask {
  const bits = base ? base.slice() : new Uint8Array(store.size).fill(1);
  if (filters) {
    for (const key of CATEGORICAL_FILTER_KEYS) {
      if (!filters[key]) continue;
      const values = new Set(filters[key]);
      const column = store.categorical[key];
      keepAllowed(bits, column, allowedIds(column, (value) => values.has(value)));
    }
    const nace = filters.nace_code;
    if (nace) {
      const column = store.categorical.nace_code;
      keepAllowed(bits, column, allowedIds(column, (stored) => nace.some((wanted) => naceMatches(stored, wanted))));
    }
    const registrations = registrationMask(store, filters);
    if (registrations) keepRegistrations(store, bits, registrations);
    if (filters.summary_keywords) keepKeywordContainment(store, bits, filters.summary_keywords);
    if (filters.text_keywords) keepText(store, bits, filters.text_keywords);
  }
  return { bits, count: count(bits) };
}

/** A filter on one categorical column: the column, and which of its dictionary ids it accepts. */
export interface ColumnFilter {
  column: CategoricalColumn;
  allowed: Uint8Array;
}

/**
 * The filters as one column's accepted ids, when they are exactly one non-empty list on a categorical
 * key (country, state …, or nace_code) and nothing else; null otherwise.
 */
export function singleColumnFilter(store: ColumnStore, filters: Filters | null): ColumnFilter | null {
  if (!filters) return null;
  const keys = Object.entries(filters as Record<string, unknown>).filter(([, value]) => value !== null && value !== undefined);
  if (keys.length !== 1) return null;
  const [key, value] = keys[0] ?? [];
  if (!Array.isArray(value) || value.length === 0) return null;
  const listed = (value as unknown[]).filter((item): item is string => typeof item === 'string');
  if (key === 'nace_code') {
    const wanted = listed;
    const column = store.categorical.nace_code;
    return { column, allowed: allowedIds(column, (stored) => wanted.some((filterValue) => naceMatches(stored, filterValue))) };
  }
  if (!(CATEGORICAL_FILTER_KEYS as readonly string[]).includes(key ?? '')) return null;
  const values = new Set(listed);
  const column = store.categorical[key as (typeof CATEGORICAL_FILTER_KEYS)[number]];
  return { column, allowed: allowedIds(column, (stored) => values.has(stored)) };
}

const valueCounts = new WeakMap<CategoricalColumn, Uint32Array>();

/** How many rows hold each dictionary id of the column (counted once per column, on first use). */
export function columnValueCounts(column: CategoricalColumn): Uint32Array {
  let counts = valueCounts.get(column);
  if (!counts) {
    counts = new Uint32Array(column.dict.size);
    const { codes } = column;
    for (let i = 0; i < codes.length; i++) counts[codes[i] ?? 0] = (counts[codes[i] ?? 0] ?? 0) + 1;
    valueCounts.set(column, counts);
  }
  return counts;
}

/** Clears the rows of excluded domains. */
export function applyExcludes(store: ColumnStore, mask: Mask, excludes: readonly string[]): Mask {
  if (excludes.length === 0) return mask;
  const bits = mask.bits;
  let removed = 0;
  for (const domain of excludes) {
    const row = store.rowOf(domain);
    if (row !== undefined && bits[row]) {
      bits[row] = 0;
      removed++;
    }
  }
  return { bits, count: mask.count - removed };
}
