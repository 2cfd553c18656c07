/**
 * The filter postings of a store: for each value of a filterable column, the domain positions of the
 * organizations holding it (position-set.ts). A filter is then the union of its values' postings, keys
 * intersected — work in proportion to the organizations it can match, not to the store.
 *
 * Each column's postings are one array of positions grouped by value (a counting sort in domain order,
 * so each value's positions come out ascending), the dense values also as bitmaps. Built on first use
 * (a server builds them in its warm-up) and kept as long as the store.
 */
import type { Codes } from './dictionary.js';
import type { ColumnStore, MultiValued } from './store.js';
import { NO_DAY } from './dates.js';
import { bitsOfList, EMPTY_SET, isDense, setOfPositions, wordsFor, type PositionSet } from './position-set.js';

/** The postings of one column: value id v holds positions[offsets[v] … offsets[v + 1]), ascending; id 0 (no value) holds none. */
export interface ValuePostings {
  offsets: Uint32Array;
  positions: Uint32Array;
  /** The bitmap of each dense value, null for the others. */
  dense: (Uint32Array | null)[];
}

/**
 * Postings of a dictionary-encoded column, single-valued (`owner` absent: `codes[row]`) or multi-valued
 * (a row's values are codes[owner.offsets[row] … owner.offsets[row + 1]); a value twice in a row counts once).
 * A counting sort: the values counted, then the positions written in domain order, each value's ascending.
 */
export function buildValuePostings(store: ColumnStore, codes: Codes, values: number, owner?: MultiValued): ValuePostings {
  const offsets = new Uint32Array(values + 1);
  const positions = owner ? multiValuedPositions(store, codes, values, owner, offsets) : singleValuedPositions(store, codes, values, offsets);
  const dense = Array.from({ length: values }, (_, v) => {
    const start = offsets[v] ?? 0;
    const end = offsets[v + 1] ?? 0;
    return isDense(end - start, store.size) ? bitsOfList(positions.subarray(start, end), store.size) : null;
  });
  return { offsets, positions, dense };
}

/** Fills `offsets` from per-value counts (held in offsets[v + 1]) and returns each value's next free slot. */
function prefixSums(offsets: Uint32Array, values: number): Uint32Array {
  offsets[0] = 0;
  offsets[1] = 0; // no value (id 0) holds no position
  for (let v = 1; v < values; v++) offsets[v + 1] = (offsets[v + 1] ?? 0) + (offsets[v] ?? 0);
  return offsets.slice(0, values);
}

function singleValuedPositions(store: ColumnStore, codes: Codes, values: number, offsets: Uint32Array): Uint32Array {
  const { byDomain, size } = store;
  for (let row = 0; row < size; row++) {
    const v = codes[row] ?? 0;
    offsets[v + 1] = (offsets[v + 1] ?? 0) + 1;
  }
  const next = prefixSums(offsets, values);
  const positions = new Uint32Array(offsets[values] ?? 0);
  for (let p = 0; p < size; p++) {
    const v = codes[byDomain[p] ?? 0] ?? 0;
    if (v === 0) continue;
    const at = next[v] ?? 0;
    next[v] = at + 1;
    positions[at] = p;
  }
  return positions;
}

function multiValuedPositions(store: ColumnStore, codes: Codes, values: number, owner: MultiValued, offsets: Uint32Array): Uint32Array {
  const { byDomain, size } = store;
  // The last row counted for each value: a value twice in one organization is posted once.
  const last = new Int32Array(values).fill(-1);
  for (let row = 0; row < size; row++) {
    for (let j = owner.offsets[row] ?? 0; j < (owner.offsets[row + 1] ?? 0); j++) {
      const v = codes[j] ?? 0;
      if (v === 0 || last[v] === row) continue;
      last[v] = row;
      offsets[v + 1] = (offsets[v + 1] ?? 0) + 1;
    }
  }
  const next = prefixSums(offsets, values);
  const positions = new Uint32Array(offsets[values] ?? 0);
  last.fill(-1);
  for (let p = 0; p < size; p++) {
    const row = byDomain[p] ?? 0;
    for (let j = owner.offsets[row] ?? 0; j < (owner.offsets[row + 1] ?? 0); j++) {
      const v = codes[j] ?? 0;
      if (v === 0 || last[v] === p) continue;
      last[v] = p;
      const at = next[v] ?? 0;
      next[v] = at + 1;
      positions[at] = p;
    }
  }
  return positions;
}

/** The positions holding value id `value`. */
export function valueSet(postings: ValuePostings, value: number): PositionSet {
  const start = postings.offsets[value] ?? 0;
  const end = postings.offsets[value + 1] ?? start;
  if (end <= start) return EMPTY_SET;
  return { list: postings.positions.subarray(start, end), bits: postings.dense[value] ?? null, count: end - start };
}

/** The registrations in ascending order of their day (those without a day left out), for date ranges. */
export interface RegistrationDays {
  /** Registration ids, by day. */
  order: Uint32Array;
  /** The day of each entry of `order`. */
  days: Int32Array;
  /** The row each registration belongs to. */
  rowOf: Uint32Array;
}

export function buildRegistrationDays(store: ColumnStore): RegistrationDays {
  const { offsets, days: dayColumn } = store.registrations;
  const { codes } = dayColumn;
  const rowOf = new Uint32Array(codes.length);
  for (let row = 0; row < store.size; row++) rowOf.fill(row, offsets[row] ?? 0, offsets[row + 1] ?? 0);
  // A counting sort on the day codes, which ascend with the day (code 0: no day, left out).
  const distinct = dayColumn.days.length;
  const starts = new Uint32Array(distinct + 1);
  for (let j = 0; j < codes.length; j++) starts[(codes[j] ?? 0) + 1] = (starts[(codes[j] ?? 0) + 1] ?? 0) + 1;
  starts[1] = 0;
  for (let code = 1; code < distinct; code++) starts[code + 1] = (starts[code + 1] ?? 0) + (starts[code] ?? 0);
  const order = new Uint32Array(starts[distinct] ?? 0);
  const days = new Int32Array(order.length);
  for (let j = 0; j < codes.length; j++) {
    const code = codes[j] ?? 0;
    if (code === 0) continue;
    const at = starts[code] ?? 0;
    starts[code] = at + 1;
    order[at] = j;
    days[at] = dayColumn.days[code] ?? NO_DAY;
  }
  return { order, days, rowOf };
}

/** The organizations with a registration dated within [from, to] (null: unbounded on that side). */
export function registeredBetween(store: ColumnStore, index: RegistrationDays, from: number | null, to: number | null): PositionSet {
  const { order, days, rowOf } = index;
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
  if (end <= start) return EMPTY_SET;
  const positions = new Uint32Array(end - start);
  for (let i = start; i < end; i++) positions[i - start] = store.domainRank[rowOf[order[i] ?? 0] ?? 0] ?? 0;
  return setOfPositions(positions, store.size);
}

/** Filterable single-valued columns with postings. */
export const POSTED_COLUMNS = ['country', 'state', 'region', 'district', 'municipality', 'organization_type', 'organization_size', 'source', 'nace_code'] as const;
export type PostedColumn = (typeof POSTED_COLUMNS)[number];

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

  /** Bytes held by the postings built so far. */
  bytes(): number {
    const of = (postings: ValuePostings | null | undefined): number =>
      postings ? postings.offsets.byteLength + postings.positions.byteLength + postings.dense.reduce((sum, bits) => sum + (bits?.byteLength ?? 0), 0) : 0;
    let total = [...this.columns.values()].reduce((sum, postings) => sum + of(postings), of(this.tagPostings) + of(this.courtPostings));
    if (this.days) total += this.days.order.byteLength + this.days.days.byteLength + this.days.rowOf.byteLength;
    return total;
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
