/**
 * Evaluating a normalised `filters` object over the store's filter postings (store/postings.ts) into a
 * set of domain positions: lists are OR inside a key (their values' postings united), keys AND across
 * (intersected, the smallest first), so a filter costs in proportion to what it can match, not to the
 * store. A key's view and excludes narrow the same set.
 */
import type { Filters, Keywords } from '../../contract/v2/filters.js';
import { sectionOf } from '../../contract/nace.js';
import { dayOf, NO_DAY } from '../store/dates.js';
import type { CategoricalColumn } from '../store/dictionary.js';
import type { CategoricalKey, ColumnStore } from '../store/store.js';
import { postingsOf, registeredBetween, valueSet, type ValuePostings } from '../store/postings.js';
import { bitsOfList, EMPTY_SET, intersect, isDense, setOfList, setOfPositions, union, walkFrom, without, type PositionSet } from '../store/position-set.js';
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

/** The register filters as bounds: courts (null: any) and days (null: unbounded); null when none is set. */
interface RegisterBounds {
  courts: Set<string> | null;
  from: number | null;
  to: number | null;
}

function registerBounds(filters: Filters | null): RegisterBounds | null {
  if (!filters || (!filters.company_register_court && !filters.register_date_from && !filters.register_date_to)) return null;
  return {
    courts: filters.company_register_court ? new Set(filters.company_register_court) : null,
    from: filters.register_date_from ? dayOf(filters.register_date_from) : null,
    to: filters.register_date_to ? dayOf(filters.register_date_to) : null,
  };
}

/**
 * The registrations satisfying the register filters (court and date bounds together, on the same
 * registration), one byte per registration; null when no register filter is set.
 */
export function registrationMask(store: ColumnStore, filters: Filters | null): Uint8Array | null {
  const bounds = registerBounds(filters);
  if (!bounds) return null;
  const accepts = registrationTest(store, bounds);
  const ok = new Uint8Array(store.registrations.day.length);
  for (let j = 0; j < ok.length; j++) if (accepts(j)) ok[j] = 1;
  return ok;
}

function registrationTest(store: ColumnStore, { courts, from, to }: RegisterBounds): (registration: number) => boolean {
  const { court, day } = store.registrations;
  const courtAllowed = courts ? allowedIds(court, (value) => courts.has(value)) : null;
  return (j) => {
    const d = day[j] ?? NO_DAY;
    const courtOk = courtAllowed === null || courtAllowed[court.codes[j] ?? 0] === 1;
    return courtOk && (from === null || d >= from) && (to === null || (d !== NO_DAY && d <= to));
  };
}

/** Does the organization have a registration satisfying both the court and the date bounds? */
function sameRegistration(store: ColumnStore, set: PositionSet, bounds: RegisterBounds): PositionSet {
  const accepts = registrationTest(store, bounds);
  const { offsets } = store.registrations;
  const kept: number[] = [];
  walkFrom(set, 0, (position) => {
    const row = store.byDomain[position] ?? 0;
    for (let j = offsets[row] ?? 0; j < (offsets[row + 1] ?? 0); j++) {
      if (accepts(j)) {
        kept.push(position);
        break;
      }
    }
    return true;
  });
  return kept.length === set.count ? set : setOfList(Uint32Array.from(kept), store.size);
}

/** The union of the postings of the values a column accepts. */
function acceptedSet(postings: ValuePostings, column: CategoricalColumn, accepts: (value: string) => boolean, universe: number): PositionSet {
  const sets: PositionSet[] = [];
  column.dict.values.forEach((value, id) => {
    if (value !== null && accepts(value)) sets.push(valueSet(postings, id));
  });
  return union(sets, universe, true);
}

/** The union of the postings of the listed values (values the column never holds add nothing); `disjoint` unless the column is multi-valued. */
function listedSet(postings: ValuePostings, column: CategoricalColumn, values: readonly string[], universe: number, disjoint = true): PositionSet {
  const sets: PositionSet[] = [];
  for (const value of new Set(values)) {
    const id = column.dict.lookup(value);
    if (id !== undefined) sets.push(valueSet(postings, id));
  }
  return union(sets, universe, disjoint);
}

/** text_keywords: the keyword engine's boolean logic (terms, phrases, variants), without scoring. */
function textSet(store: ColumnStore, keywords: Keywords): PositionSet {
  const index = searchableTextIndex(store, keywords, ['body', 'filters', 'text_keywords']);
  const rows = index.match({ must_all: keywords.must_all, must_any: keywords.must_any, must_not: keywords.must_not });
  return setOfPositions(Uint32Array.from(rows, (row) => store.domainRank[row] ?? 0), store.size);
}

/** Each filter key's set of positions (AND across them); empty when no key constrains. */
function keySets(store: ColumnStore, filters: Filters): { sets: PositionSet[]; register: RegisterBounds | null } {
  const postings = postingsOf(store);
  const universe = store.size;
  const sets: PositionSet[] = [];
  for (const key of CATEGORICAL_FILTER_KEYS) {
    const values = filters[key];
    if (values) sets.push(listedSet(postings.column(key), store.categorical[key], values, universe));
  }
  const nace = filters.nace_code;
  if (nace) sets.push(acceptedSet(postings.column('nace_code'), store.categorical.nace_code, (stored) => nace.some((wanted) => naceMatches(stored, wanted)), universe));
  const register = registerBounds(filters);
  if (register?.courts) sets.push(listedSet(postings.courts(), store.registrations.court, [...register.courts], universe, false));
  if (register && (register.from !== null || register.to !== null)) sets.push(registeredBetween(universe, postings.registrationDays(), register.from, register.to));
  // summary_keywords: every listed tag is required.
  for (const tag of new Set(filters.summary_keywords ?? [])) {
    const id = store.keywords.dict.lookup(tag);
    sets.push(id === undefined ? EMPTY_SET : valueSet(postings.tags(), id));
  }
  if (filters.text_keywords) sets.push(textSet(store, filters.text_keywords));
  return { sets, register };
}

const visibleSets = new WeakMap<Uint8Array, PositionSet>();

/** The positions of the rows a view may see (once per view): a bitmap when dense, else their list. */
export function visiblePositions(store: ColumnStore, visible: Uint8Array): PositionSet {
  let set = visibleSets.get(visible);
  if (!set) {
    let count = 0;
    for (let row = 0; row < store.size; row++) count += visible[row] ? 1 : 0;
    const positions = new Uint32Array(count);
    let n = 0;
    for (let p = 0; p < store.size && n < count; p++) if (visible[store.byDomain[p] ?? 0]) positions[n++] = p;
    set = isDense(count, store.size) ? { list: null, bits: bitsOfList(positions, store.size), count } : { list: positions, bits: null, count };
    visibleSets.set(visible, set);
  }
  return set;
}

/**
 * The positions of the organizations matching `filters` (null: every one) within `visible` (a key's
 * view; null: all): the postings of each key intersected, the smallest first. Unknown values simply
 * match nothing. The set is to be used at once, not kept: a dense one is the store's scratch bitmap,
 * which the next filter overwrites.
 */
export function filterSet(store: ColumnStore, filters: Filters | null, visible: Uint8Array | null = null): PositionSet {
  const { sets, register } = filters ? keySets(store, filters) : { sets: [], register: null };
  if (visible) sets.push(visiblePositions(store, visible));
  if (sets.length === 0) return postingsOf(store).everyPosition();
  const matching = intersect(sets, store.size, postingsOf(store).scratch());
  // Court and dates each matched some registration: they must also match the same one.
  return register?.courts && (register.from !== null || register.to !== null) ? sameRegistration(store, matching, register) : matching;
}

/** The rows of a set of positions as a mask, one byte per row. */
export function rowMask(store: ColumnStore, set: PositionSet): Mask {
  const bits = new Uint8Array(store.size);
  if (set.count === store.size) bits.fill(1);
  else walkFrom(set, 0, (position) => ((bits[store.byDomain[position] ?? 0] = 1), true));
  return { bits, count: set.count };
}

/** The rows matching `filters` (null → every row), narrowed further by `visible` (a key's view), as a mask. */
export function filterMask(store: ColumnStore, filters: Filters | null, visible?: Uint8Array): Mask {
  return rowMask(store, filterSet(store, filters, visible ?? null));
}

/** The set without the rows of excluded domains. */
export function withoutDomains(store: ColumnStore, set: PositionSet, excludes: readonly string[]): PositionSet {
  if (excludes.length === 0) return set;
  const positions: number[] = [];
  for (const domain of excludes) {
    const row = store.rowOf(domain);
    if (row !== undefined) positions.push(store.domainRank[row] ?? 0);
  }
  return without(set, positions, store.size);
}
