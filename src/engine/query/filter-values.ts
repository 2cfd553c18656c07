/**
 * Filter values as people type them: "germany", "Bavaria", "munchen", "DE", "amtsgericht münchen" find
 * the index's spelling (Deutschland, Bayern, München, Amtsgericht München). A value the column holds is
 * taken as sent; otherwise its folded form (case, accents, punctuation; "ue" for "ü") is looked up, then
 * its aliases: exonyms, ISO codes (`DE`, `DE-BY`), and the name without a generic word ("Skåne" for
 * "Skåne län", "Midtjylland" for "Region Midtjylland"). The index's values replace what was sent, so
 * `filters_applied` echoes what was searched.
 *
 * A value found nowhere stays in the filter (it matches nothing) and gets a warning naming the closest
 * known values, or the level it exists at ("München" sent as a state). Only values present in the
 * caller's view count: a scoped key gets the same answer for a value outside its scope as for one that
 * does not exist, so no warning tells it what it cannot see.
 *
 * The spellings of a store are built once (`warmFilterSpellings` at start, else on first use); a view
 * adds only the set of values it can see. Work per request is bounded: lookups are map hits; closest
 * values (through trigram postings) are computed for the first MAX_SUGGESTED unknown values only.
 */
import type { FilterValueWarning, Filters } from '../../contract/v2/filters.js';
import { EXONYMS } from '../locations/exonyms.js';
import { foldLocationName, type PlaceAliasesOf } from '../locations/location-index.js';
import { similarityFromCounts, SIMILARITY_THRESHOLD, trigramSet } from '../locations/trigram.js';
import type { CategoricalColumn } from '../store/dictionary.js';
import type { ColumnStore, MultiValued } from '../store/store.js';
import type { QueryContext } from './context.js';

const LOCATION_KEYS = ['country', 'state', 'region', 'district', 'municipality'] as const;
type LocationKey = (typeof LOCATION_KEYS)[number];
/** A place sent at the wrong level is named at the levels it exists at, the likeliest first. */
const LEVEL_HINT_ORDER: readonly LocationKey[] = ['country', 'state', 'municipality', 'region', 'district'];
/** Filter keys whose values are free spellings of the index's values (the others are checked by the contract). */
export const SPELLED_FILTER_KEYS = [...LOCATION_KEYS, 'company_register_court', 'summary_keywords'] as const;
type SpelledKey = (typeof SPELLED_FILTER_KEYS)[number];

/** Unknown values that get closest-value suggestions in one request; later ones are only named. */
export const MAX_SUGGESTED = 3;
/** Warnings in one answer; past this, one more says how many values were not reported. */
export const MAX_WARNINGS = 20;
const MAX_CLOSEST = 3;

/** Words that name a kind of place or court, not the place: a name is found without them too. */
const GENERIC_PREFIX = /^(?:region|amtsgericht|landgericht) /;
const GENERIC_SUFFIX = / (?:lan|kraj|county)$/;

/** The spellings of one column's values over the whole store. */
interface Spellings {
  /** Folded spelling → values. */
  folded: Map<string, string[]>;
  /** Alias (exonym, code, name without its generic word), folded → values. */
  aliases: Map<string, string[]>;
  /** Built on first use. */
  candidates: Candidates | null;
}

interface Candidates {
  /** The value each compared spelling stands for, and the spelling's trigram count. */
  values: string[];
  sizes: number[];
  /** Trigram → the spellings holding it. */
  postings: Map<number, number[]>;
}

function foldings(text: string): string[] {
  const plain = foldLocationName(text);
  const german = foldLocationName(text, true);
  return german === plain ? [plain] : [plain, german];
}

function addTo(map: Map<string, string[]>, key: string, value: string): void {
  if (key === '') return;
  const values = map.get(key);
  if (!values) map.set(key, [value]);
  else if (!values.includes(value)) values.push(value);
}

function columnOf(store: ColumnStore, key: SpelledKey): { column: CategoricalColumn; owner?: MultiValued } {
  if (key === 'company_register_court') return { column: store.registrations.court, owner: store.registrations };
  if (key === 'summary_keywords') return { column: { dict: store.keywords.dict, codes: store.keywords.ids }, owner: store.keywords };
  return { column: store.categorical[key] };
}

const storeCodes = new WeakMap<ColumnStore, Map<SpelledKey, Map<string, string[]>>>();

/** `DE` → Deutschland, `DE-BY` → Bayern: each code, folded, paired with the value of the first row holding it (one pass a store and level). */
function codeNames(store: ColumnStore, key: LocationKey): Map<string, string[]> {
  return cachedPerKey(storeCodes, store, key, () => {
    const byCode = new Map<string, string[]>();
    const names = store.categorical[key];
    const codes = store.categorical[`${key}_code`];
    const paired = new Uint8Array(codes.dict.size);
    for (let i = 0; i < store.size; i++) {
      const code = codes.codes[i] ?? 0;
      // The name looked up only for a code not yet paired: this runs over every row, five times.
      if (code === 0 || paired[code]) continue;
      const name = names.dict.value(names.codes[i] ?? 0);
      if (name === null) continue;
      paired[code] = 1;
      for (const spelling of foldings(codes.dict.value(code) ?? '')) addTo(byCode, spelling, name);
    }
    return byCode;
  });
}

function buildSpellings(store: ColumnStore, key: SpelledKey): Spellings {
  const { column } = columnOf(store, key);
  const spellings: Spellings = { folded: new Map(), aliases: new Map(), candidates: null };
  for (const value of column.dict.values) {
    if (value === null) continue;
    for (const spelling of foldings(value)) {
      addTo(spellings.folded, spelling, value);
      const bare = spelling.replace(GENERIC_PREFIX, '').replace(GENERIC_SUFFIX, '');
      if (bare !== spelling) addTo(spellings.aliases, bare, value);
    }
  }
  if (key === 'summary_keywords' || key === 'company_register_court') return spellings;
  // Every native spelling the column holds: a view keeps those it can see.
  for (const [exonym, native] of exonymsIn(column)) for (const spelling of foldings(exonym)) addTo(spellings.aliases, spelling, native);
  for (const [code, names] of codeNames(store, key)) for (const name of names) addTo(spellings.aliases, code, name);
  return spellings;
}

/**
 * The other names of the store's places for the location search: the same exonyms and ISO codes that
 * filter values accept, so that the place picker finds "Munich", "Bavaria" and "DE-BY" as filters do.
 */
export function placeAliasesOf(store: ColumnStore): PlaceAliasesOf {
  let aliases = storePlaceAliases.get(store);
  if (aliases) return aliases;
  const names = new Map<string, string[]>();
  const codes = new Map<string, string[]>();
  const slot = (level: string, name: string): string => `${level}\t${name}`;
  for (const level of LOCATION_KEYS) {
    for (const [exonym, native] of exonymsIn(store.categorical[level])) addTo(names, slot(level, native), exonym);
    for (const [code, places] of codeNames(store, level)) for (const place of places) addTo(codes, slot(level, place), code);
  }
  aliases = (item) => ({ names: names.get(slot(item.location_type, item.name)) ?? [], codes: codes.get(slot(item.location_type, item.name)) ?? [] });
  storePlaceAliases.set(store, aliases);
  return aliases;
}

/** Built once a store: the shared location index and every scoped key's use the same. */
const storePlaceAliases = new WeakMap<ColumnStore, PlaceAliasesOf>();

/** The exonyms whose native spelling the column holds, as [exonym, native] pairs. */
function exonymsIn(column: CategoricalColumn): [string, string][] {
  return Object.entries(EXONYMS).flatMap(([exonym, natives]) => natives.filter((native) => column.dict.lookup(native) !== undefined).map((native): [string, string] => [exonym, native]));
}

/** A value per (owner, key), built on first use and kept as long as the owner lives. */
function cachedPerKey<Owner extends object, Value>(cache: WeakMap<Owner, Map<SpelledKey, Value>>, owner: Owner, key: SpelledKey, build: () => Value): Value {
  let byKey = cache.get(owner);
  if (!byKey) {
    byKey = new Map();
    cache.set(owner, byKey);
  }
  let value = byKey.get(key);
  if (value === undefined) {
    value = build();
    byKey.set(key, value);
  }
  return value;
}

const storeSpellings = new WeakMap<ColumnStore, Map<SpelledKey, Spellings>>();

function spellingsOf(store: ColumnStore, key: SpelledKey): Spellings {
  return cachedPerKey(storeSpellings, store, key, () => buildSpellings(store, key));
}

/** Builds a store's spellings and closest-value postings ahead of the first request that needs them. */
export function warmFilterSpellings(store: ColumnStore): void {
  for (const key of SPELLED_FILTER_KEYS) candidatesOf(spellingsOf(store, key));
}

/** The values of a column present in a view (null: the whole store, every value). */
function presentValues(store: ColumnStore, key: SpelledKey, visible: Uint8Array): Set<string> {
  const { column, owner } = columnOf(store, key);
  const present = new Uint8Array(column.dict.size);
  if (!owner) {
    for (let i = 0; i < visible.length; i++) if (visible[i]) present[column.codes[i] ?? 0] = 1;
  } else {
    // A multi-valued column: the values of each visible organization's entries.
    for (let i = 0; i < visible.length; i++) {
      if (!visible[i]) continue;
      for (let j = owner.offsets[i] ?? 0; j < (owner.offsets[i + 1] ?? 0); j++) present[column.codes[j] ?? 0] = 1;
    }
  }
  const values = new Set<string>();
  present.forEach((flag, id) => {
    const value = column.dict.value(id);
    if (flag && value !== null) values.add(value);
  });
  return values;
}

const viewValues = new WeakMap<Uint8Array, Map<SpelledKey, Set<string>>>();

/** Does the caller's view hold this value of the column? */
function visibleTest(context: QueryContext, key: SpelledKey): (value: string) => boolean {
  const { store, visible } = context;
  if (!visible) {
    const { column } = columnOf(store, key);
    return (value) => column.dict.lookup(value) !== undefined;
  }
  const present = cachedPerKey(viewValues, visible, key, () => presentValues(store, key, visible));
  return (value) => present.has(value);
}

/** The index's values a typed value stands for, or null when none in the view. */
function resolve(context: QueryContext, key: SpelledKey, raw: string): string[] | null {
  const isVisible = visibleTest(context, key);
  if (isVisible(raw)) return [raw];
  const spellings = spellingsOf(context.store, key);
  const folds = foldings(raw);
  for (const map of [spellings.folded, spellings.aliases]) {
    for (const spelling of folds) {
      const values = map.get(spelling)?.filter(isVisible);
      if (values && values.length > 0) return values;
    }
  }
  return null;
}

/** Trigram postings of the spellings compared for "closest" (folded names and exonyms, not codes). */
function candidatesOf(spellings: Spellings): Candidates {
  if (!spellings.candidates) {
    const values: string[] = [];
    const sizes: number[] = [];
    const postings = new Map<number, number[]>();
    for (const map of [spellings.folded, spellings.aliases]) {
      for (const [spelling, spelled] of map) {
        // Codes are too short to be "close" to anything meaningfully.
        if (spelling.length < 4) continue;
        const trigrams = trigramSet(spelling);
        for (const value of spelled) {
          const candidate = values.length;
          values.push(value);
          sizes.push(trigrams.length);
          for (const trigram of trigrams) {
            const list = postings.get(trigram);
            if (list) list.push(candidate);
            else postings.set(trigram, [candidate]);
          }
        }
      }
    }
    spellings.candidates = { values, sizes, postings };
  }
  return spellings.candidates;
}

/**
 * Up to MAX_CLOSEST values whose spellings are most similar (pg_trgm similarity ≥ its default threshold),
 * counting shared trigrams through the postings: only spellings sharing one are touched.
 */
function closestValues(context: QueryContext, key: SpelledKey, raw: string): string[] {
  const { values, sizes, postings } = candidatesOf(spellingsOf(context.store, key));
  const isVisible = visibleTest(context, key);
  const wanted = trigramSet(foldLocationName(raw));
  const shared = new Map<number, number>();
  for (const trigram of wanted) for (const candidate of postings.get(trigram) ?? []) shared.set(candidate, (shared.get(candidate) ?? 0) + 1);
  const best = new Map<string, number>();
  for (const [candidate, count] of shared) {
    const score = similarityFromCounts(count, wanted.length, sizes[candidate] ?? 0);
    const value = values[candidate] ?? '';
    if (score >= SIMILARITY_THRESHOLD && score > (best.get(value) ?? 0) && isVisible(value)) best.set(value, score);
  }
  return [...best]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_CLOSEST)
    .map(([value]) => value);
}

function quoteList(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

function unknownValueWarning(context: QueryContext, key: SpelledKey, raw: string, suggest: boolean): FilterValueWarning {
  const field = `filters.${key}`;
  const nobody = context.visible ? 'No organization visible to this key has' : 'No organization has';
  const base = `${nobody} ${key} ${JSON.stringify(raw)}`;
  if (!suggest) return { field, value: raw, message: `${base}.`, closest: [] };
  const isPlace = (LOCATION_KEYS as readonly string[]).includes(key);
  if (isPlace) {
    const levels: string[] = [];
    const elsewhere = new Set<string>();
    for (const level of LEVEL_HINT_ORDER) {
      const found = level === key ? null : resolve(context, level, raw);
      if (!found) continue;
      levels.push(`a ${level} (filters.${level})`);
      for (const value of found) elsewhere.add(value);
    }
    if (levels.length > 0) {
      const closest = [...elsewhere];
      return { field, value: raw, message: `${base}; ${quoteList(closest)} is ${levels.join(' and ')}.`, closest };
    }
  }
  const closest = closestValues(context, key, raw);
  const listing = isPlace ? 'GET /v2/locations/search?q=… finds places by name' : 'GET /v2/filters/options lists the known values';
  const hint = closest.length > 0 ? `; closest known values: ${quoteList(closest)}` : `; ${listing}`;
  return { field, value: raw, message: `${base}${hint}.`, closest };
}

export interface SpelledFilters {
  filters: Filters | null;
  warnings: FilterValueWarning[];
}

/** The filters with every typed value replaced by the index's spelling, and a warning per unknown value. */
export function resolveFilterSpellings(context: QueryContext, filters: Filters | null): SpelledFilters {
  if (!filters || !SPELLED_FILTER_KEYS.some((key) => filters[key])) return { filters, warnings: [] };
  const resolved: Filters = { ...filters };
  const warnings: FilterValueWarning[] = [];
  let unknown = 0;
  for (const key of SPELLED_FILTER_KEYS) {
    const sent = filters[key];
    if (!sent) continue;
    const values = new Set<string>();
    for (const raw of sent) {
      const found = resolve(context, key, raw);
      if (found) {
        // Tags are all required: a spelling standing for two tags requires the first, not both.
        for (const value of key === 'summary_keywords' ? found.slice(0, 1) : found) values.add(value);
        continue;
      }
      values.add(raw);
      if (unknown < MAX_WARNINGS) warnings.push(unknownValueWarning(context, key, raw, unknown < MAX_SUGGESTED));
      unknown++;
    }
    resolved[key] = [...values];
  }
  if (unknown > MAX_WARNINGS) {
    warnings.push({ field: 'filters', value: '', message: `${String(unknown - MAX_WARNINGS)} more filter values match no organization.`, closest: [] });
  }
  return { filters: resolved, warnings };
}
