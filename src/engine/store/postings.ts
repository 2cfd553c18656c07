/**
 * The filter postings of a store: for each value of a filterable column, the domain positions of the
 * organizations holding it (position-set.ts). A filter is then the union of its values' postings, keys
 * intersected — work in proportion to the organizations it can match, not to the store.
 *
 * A sparse value's positions are a sorted list, a dense value's a bitmap only (never larger than its
 * list: a dense value holds more than one position in 32, four bytes each, where the bitmap takes one bit
 * per position of the store) — a column of a few common values costs a few bitmaps. Built by a counting
 * sort in domain order, so each list comes out ascending; built on first use, in a server's warm-up, or
 * read from an index snapshot; kept as long as the store.
 */
import type { Codes } from './dictionary.js';
import type { ColumnStore, MultiValued } from './store.js';
import { EMPTY_SET, isDense, setOfPositions, wordsFor, type PositionSet } from './position-set.js';

/** The postings of one column's values (id 0, no value, holds none). */
export interface ValuePostings {
  /** How many organizations hold each value. */
  counts: Uint32Array;
  /** A sparse value v's positions are positions[offsets[v] … offsets[v + 1]), ascending; a dense value's range is empty. */
  offsets: Uint32Array;
  positions: Uint32Array;
  /** The bitmap of each dense value, null for the others. */
  dense: (Uint32Array | null)[];
}

/** A column's postings as typed arrays (an index snapshot's part): the dense bitmaps one after another, in `denseIds` order. */
export interface ValuePostingsParts {
  counts: Uint32Array;
  offsets: Uint32Array;
  positions: Uint32Array;
  denseIds: Uint32Array;
  denseBits: Uint32Array;
}

/**
 * Postings of a dictionary-encoded column, single-valued (`owner` absent: `codes[row]`) or multi-valued
 * (a row's values are codes[owner.offsets[row] … owner.offsets[row + 1]); a value twice in a row counts once).
 */
export function buildValuePostings(store: ColumnStore, codes: Codes, values: number, owner?: MultiValued): ValuePostings {
  const counts = new Uint32Array(values);
  const visit = owner
    ? (each: (value: number, key: number) => void, byPosition: boolean): void => {
        eachOfMany(store, codes, owner, each, byPosition);
      }
    : null;
  if (visit) visit((v) => (counts[v] = (counts[v] ?? 0) + 1), false);
  else for (let row = 0; row < store.size; row++) counts[codes[row] ?? 0] = (counts[codes[row] ?? 0] ?? 0) + 1;
  counts[0] = 0;
  const words = wordsFor(store.size);
  const dense = Array.from(counts, (count) => (isDense(count, store.size) ? new Uint32Array(words) : null));
  const offsets = new Uint32Array(values + 1);
  for (let v = 0; v < values; v++) offsets[v + 1] = (offsets[v] ?? 0) + (dense[v] ? 0 : (counts[v] ?? 0));
  const positions = new Uint32Array(offsets[values] ?? 0);
  const next = offsets.slice(0, values);
  const post = (v: number, p: number): void => {
    if (v === 0) return;
    const bits = dense[v];
    if (bits) {
      bits[p >>> 5] = (bits[p >>> 5] ?? 0) | (1 << (p & 31));
      return;
    }
    const at = next[v] ?? 0;
    next[v] = at + 1;
    positions[at] = p;
  };
  if (visit) visit(post, true);
  else for (let p = 0; p < store.size; p++) post(codes[store.byDomain[p] ?? 0] ?? 0, p);
  return { counts, offsets, positions, dense };
}

/**
 * Each (value, organization) pair of a multi-valued column once: organizations by row (`byPosition`
 * false, the key a row) or in domain order (the key a position).
 */
function eachOfMany(store: ColumnStore, codes: Codes, owner: MultiValued, each: (value: number, key: number) => void, byPosition: boolean): void {
  for (let key = 0; key < store.size; key++) {
    const row = byPosition ? (store.byDomain[key] ?? 0) : key;
    const start = owner.offsets[row] ?? 0;
    const end = owner.offsets[row + 1] ?? 0;
    for (let j = start; j < end; j++) {
      const v = codes[j] ?? 0;
      // An organization's values are few: a repeat is found among those before it.
      let repeated = false;
      for (let i = start; i < j && !repeated; i++) repeated = codes[i] === v;
      if (!repeated) each(v, key);
    }
  }
}

/** The positions holding value id `value`. */
export function valueSet(postings: ValuePostings, value: number): PositionSet {
  const count = postings.counts[value] ?? 0;
  if (count === 0) return EMPTY_SET;
  const bits = postings.dense[value] ?? null;
  if (bits) return { list: null, bits, count };
  return { list: postings.positions.subarray(postings.offsets[value] ?? 0, postings.offsets[value + 1] ?? 0), bits: null, count };
}

export function valuePostingsParts(postings: ValuePostings): ValuePostingsParts {
  const denseIds = Uint32Array.from(postings.dense.flatMap((bits, id) => (bits ? [id] : [])));
  const words = postings.dense.find((bits) => bits !== null)?.length ?? 0;
  const denseBits = new Uint32Array(denseIds.length * words);
  denseIds.forEach((id, k) => {
    denseBits.set(postings.dense[id] ?? new Uint32Array(0), k * words);
  });
  return { counts: postings.counts, offsets: postings.offsets, positions: postings.positions, denseIds, denseBits };
}

export function valuePostingsOf(parts: ValuePostingsParts): ValuePostings {
  const dense: (Uint32Array | null)[] = Array.from(parts.counts, () => null);
  const words = parts.denseIds.length === 0 ? 0 : parts.denseBits.length / parts.denseIds.length;
  parts.denseIds.forEach((id, k) => (dense[id] = parts.denseBits.subarray(k * words, (k + 1) * words)));
  return { counts: parts.counts, offsets: parts.offsets, positions: parts.positions, dense };
}

/** Every dated registration's organization, in ascending order of the day: a date range is a slice of it. */
export interface RegistrationDays {
  days: Int32Array;
  /** The domain position of each registration's organization. */
  positions: Uint32Array;
}

/** A counting sort of the registrations on their day codes (which ascend with the day; code 0, no day, is left out). */
export function buildRegistrationDays(store: ColumnStore): RegistrationDays {
  const { offsets, days: dayColumn } = store.registrations;
  const { codes } = dayColumn;
  const distinct = dayColumn.days.length;
  const starts = new Uint32Array(distinct + 1);
  for (let j = 0; j < codes.length; j++) if (codes[j]) starts[(codes[j] ?? 0) + 1] = (starts[(codes[j] ?? 0) + 1] ?? 0) + 1;
  for (let code = 1; code < distinct; code++) starts[code + 1] = (starts[code + 1] ?? 0) + (starts[code] ?? 0);
  const positions = new Uint32Array(starts[distinct] ?? 0);
  const days = new Int32Array(positions.length);
  for (let row = 0; row < store.size; row++) {
    const position = store.domainRank[row] ?? 0;
    for (let j = offsets[row] ?? 0; j < (offsets[row + 1] ?? 0); j++) {
      const code = codes[j] ?? 0;
      if (code === 0) continue;
      const at = starts[code] ?? 0;
      starts[code] = at + 1;
      positions[at] = position;
      days[at] = dayColumn.days[code] ?? 0;
    }
  }
  return { days, positions };
}

/** The organizations with a registration dated within [from, to] (null: unbounded on that side). */
export function registeredBetween(universe: number, index: RegistrationDays, from: number | null, to: number | null): PositionSet {
  const { days, positions } = index;
  const lower = (day: number): number => {
    let lo = 0;
    let hi = days.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((days[mid] ?? 0) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const start = from === null ? 0 : lower(from);
  const end = to === null ? days.length : lower(to + 1);
  return end <= start ? EMPTY_SET : setOfPositions(positions.subarray(start, end), universe);
}

/** Filterable single-valued columns with postings. */
export const POSTED_COLUMNS = ['country', 'state', 'region', 'district', 'municipality', 'organization_type', 'organization_size', 'source', 'nace_code'] as const;
export type PostedColumn = (typeof POSTED_COLUMNS)[number];

/** All of a store's postings as typed arrays (an index snapshot's part). */
export interface PostingsParts {
  columns: Record<PostedColumn, ValuePostingsParts>;
  tags: ValuePostingsParts;
  courts: ValuePostingsParts;
  registrationDays: RegistrationDays;
}

/** A store's filter postings, each built on first use. */
export class StorePostings {
  private readonly columns = new Map<PostedColumn, ValuePostings>();
  private tagPostings: ValuePostings | null = null;
  private courtPostings: ValuePostings | null = null;
  private days: RegistrationDays | null = null;
  private every: PositionSet | null = null;
  private scratchWords: Uint32Array | null = null;

  constructor(private readonly store: ColumnStore) {}

  column(key: PostedColumn): ValuePostings {
    let postings = this.columns.get(key);
    if (!postings) {
      const { codes, dict } = this.store.categorical[key];
      postings = buildValuePostings(this.store, codes, dict.size);
      this.columns.set(key, postings);
    }
    return postings;
  }

  /** summary_keywords tags. */
  tags(): ValuePostings {
    const { ids, dict } = this.store.keywords;
    return (this.tagPostings ??= buildValuePostings(this.store, ids, dict.size, this.store.keywords));
  }

  /** Register courts: the organizations with a registration at each court. */
  courts(): ValuePostings {
    const { registrations } = this.store;
    return (this.courtPostings ??= buildValuePostings(this.store, registrations.court.codes, registrations.court.dict.size, registrations));
  }

  registrationDays(): RegistrationDays {
    return (this.days ??= buildRegistrationDays(this.store));
  }

  /** Every position of the store. */
  everyPosition(): PositionSet {
    if (!this.every) {
      const bits = new Uint32Array(wordsFor(this.store.size)).fill(0xffffffff);
      if (this.store.size & 31) bits[bits.length - 1] = (1 << (this.store.size & 31)) - 1;
      this.every = { list: null, bits, count: this.store.size };
    }
    return this.every;
  }

  /** A bitmap of the store's positions that dense intersections are written into (see `intersect`). */
  scratch(): Uint32Array {
    return (this.scratchWords ??= new Uint32Array(wordsFor(this.store.size)));
  }

  /** Builds every posting now (a server's warm-up) instead of in the first filtered request. */
  warm(): void {
    for (const key of POSTED_COLUMNS) this.column(key);
    this.tags();
    this.courts();
    this.registrationDays();
  }

  /** Every posting (built first where not yet), as typed arrays. */
  parts(): PostingsParts {
    const columns = {} as Record<PostedColumn, ValuePostingsParts>;
    for (const key of POSTED_COLUMNS) columns[key] = valuePostingsParts(this.column(key));
    return { columns, tags: valuePostingsParts(this.tags()), courts: valuePostingsParts(this.courts()), registrationDays: this.registrationDays() };
  }

  /** Takes postings read from an index snapshot instead of building them. */
  install(parts: PostingsParts): void {
    for (const key of POSTED_COLUMNS) this.columns.set(key, valuePostingsOf(parts.columns[key]));
    this.tagPostings = valuePostingsOf(parts.tags);
    this.courtPostings = valuePostingsOf(parts.courts);
    this.days = parts.registrationDays;
  }

  /** Bytes held by the postings built so far. */
  bytes(): number {
    const of = (postings: ValuePostings | null | undefined): number =>
      postings ? postings.counts.byteLength + postings.offsets.byteLength + postings.positions.byteLength + postings.dense.reduce((sum, bits) => sum + (bits?.byteLength ?? 0), 0) : 0;
    const columns = [...this.columns.values()].reduce((sum, postings) => sum + of(postings), 0);
    return columns + of(this.tagPostings) + of(this.courtPostings) + (this.days ? this.days.days.byteLength + this.days.positions.byteLength : 0);
  }
}

const storePostings = new WeakMap<ColumnStore, StorePostings>();

export function postingsOf(store: ColumnStore): StorePostings {
  let postings = storePostings.get(store);
  if (!postings) {
    postings = new StorePostings(store);
    storePostings.set(store, postings);
  }
  return postings;
}
