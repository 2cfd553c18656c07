/**
 * Sets of domain positions (a row's place in domain order, `ColumnStore.domainRank`): what the filter
 * postings hold and what a filter evaluates to. Positions rather than row ids, so that a set read in
 * ascending order is the keyset page of filter mode as it stands.
 *
 * A set is a sorted list, a bitmap (one bit per position of the store), or both. A set holding more than
 * one position in DENSE_SHARE of the store is always given its bitmap (and a set without a list has one): intersecting two dense sets is then
 * a pass over words (the store's size / 32 of them) instead of a walk over millions of positions, and a
 * sparse set is intersected by looking each of its positions up in the others (a bit test or a galloping
 * step). Hand-written: the filter page at millions of organizations is this code, and each operation is
 * one tight loop over typed arrays.
 */
import { sortedAscending } from './radix-sort.js';

export interface PositionSet {
  /** The positions in ascending order (null: a set known by its bitmap only: a dense one, or an intersection of dense ones). */
  readonly list: Uint32Array | null;
  /** Bit p & 31 of word p >>> 5 is set for each position p (null: a sparse set known by its list only). */
  readonly bits: Uint32Array | null;
  readonly count: number;
}

/** A set is dense (and has a bitmap) above one position in this many of the store's. */
export const DENSE_SHARE = 32;

export const EMPTY_SET: PositionSet = { list: new Uint32Array(0), bits: null, count: 0 };

export function isDense(count: number, universe: number): boolean {
  return count * DENSE_SHARE > universe;
}

export function wordsFor(universe: number): number {
  return (universe + 31) >>> 5;
}

/** The number of set bits of a 32-bit word. */
export function popcount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

export function bitsOfList(list: ArrayLike<number>, universe: number): Uint32Array {
  const bits = new Uint32Array(wordsFor(universe));
  for (let i = 0; i < list.length; i++) {
    const p = list[i] ?? 0;
    bits[p >>> 5] = (bits[p >>> 5] ?? 0) | (1 << (p & 31));
  }
  return bits;
}

function countBits(bits: Uint32Array): number {
  let count = 0;
  for (let w = 0; w < bits.length; w++) count += popcount(bits[w] ?? 0);
  return count;
}

/** The ascending positions of a bitmap. */
export function listOfBits(bits: Uint32Array, count: number): Uint32Array {
  const list = new Uint32Array(count);
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w] ?? 0;
    while (word !== 0) {
      const low = word & -word;
      list[n++] = (w << 5) | (31 - Math.clz32(low));
      word ^= low;
    }
  }
  return list;
}

/** A set of ascending positions, given its bitmap when dense. */
export function setOfList(list: Uint32Array, universe: number): PositionSet {
  return { list, bits: isDense(list.length, universe) ? bitsOfList(list, universe) : null, count: list.length };
}

/** A set of a bitmap: its list made when the set is sparse. */
export function setOfBits(bits: Uint32Array, universe: number, count = countBits(bits)): PositionSet {
  return { list: isDense(count, universe) ? null : listOfBits(bits, count), bits, count };
}

/** The set of positions, in any order and possibly repeated. */
export function setOfPositions(positions: Uint32Array, universe: number): PositionSet {
  if (isDense(positions.length, universe)) return setOfBits(bitsOfList(positions, universe), universe);
  const sorted = sortedAscending(positions);
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (n === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i] ?? 0;
  return { list: sorted.subarray(0, n), bits: null, count: n };
}

export function has(set: PositionSet, position: number): boolean {
  if (set.bits) return ((set.bits[position >>> 5] ?? 0) & (1 << (position & 31))) !== 0;
  const list = set.list ?? new Uint32Array(0);
  return list[indexAtOrAfter(list, position, 0)] === position;
}

/** The first index ≥ `from` of a sorted list whose value is ≥ `position` (galloping, then binary search). */
export function indexAtOrAfter(list: Uint32Array, position: number, from: number): number {
  let lo = from;
  let step = 1;
  let hi = from;
  while (hi < list.length && (list[hi] ?? 0) < position) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, list.length);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] ?? 0) < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function bitmapOf(set: PositionSet, universe: number): Uint32Array {
  return set.bits ?? bitsOfList(set.list ?? new Uint32Array(0), universe);
}

/**
 * The union of sets: their lists merged when the result is sparse, else their bitmaps or'ed. `disjoint`
 * (the values of a single-valued column share no position) spares counting what the sizes already say.
 */
export function union(sets: readonly PositionSet[], universe: number, disjoint: boolean): PositionSet {
  const nonEmpty = sets.filter((set) => set.count > 0);
  if (nonEmpty.length === 0) return EMPTY_SET;
  const [only] = nonEmpty;
  if (nonEmpty.length === 1 && only) return only;
  const count = nonEmpty.reduce((sum, set) => sum + set.count, 0);
  if (isDense(count, universe)) {
    const bits = new Uint32Array(wordsFor(universe));
    for (const set of nonEmpty) {
      if (set.bits) {
        const from = set.bits;
        for (let w = 0; w < bits.length; w++) bits[w] = (bits[w] ?? 0) | (from[w] ?? 0);
      } else {
        const list = set.list ?? new Uint32Array(0);
        for (let i = 0; i < list.length; i++) {
          const p = list[i] ?? 0;
          bits[p >>> 5] = (bits[p >>> 5] ?? 0) | (1 << (p & 31));
        }
      }
    }
    return disjoint ? { list: null, bits, count } : setOfBits(bits, universe);
  }
  const list = new Uint32Array(count);
  let n = 0;
  for (const set of nonEmpty) {
    list.set(set.list ?? new Uint32Array(0), n);
    n += set.count;
  }
  return disjoint ? { list: sortedAscending(list), bits: null, count } : setOfPositions(list, universe);
}

/** The positions of a list driver that every other set holds (the others' lists walked by galloping). */
function filterList(driver: Uint32Array, others: readonly PositionSet[]): Uint32Array {
  const out = new Uint32Array(driver.length);
  const cursors = new Int32Array(others.length);
  let n = 0;
  candidates: for (let i = 0; i < driver.length; i++) {
    const p = driver[i] ?? 0;
    for (let s = 0; s < others.length; s++) {
      const other = others[s] as PositionSet;
      if (other.bits) {
        if (((other.bits[p >>> 5] ?? 0) & (1 << (p & 31))) === 0) continue candidates;
        continue;
      }
      const list = other.list as Uint32Array;
      const at = indexAtOrAfter(list, p, cursors[s] ?? 0);
      cursors[s] = at;
      if (at >= list.length) break candidates;
      if (list[at] !== p) continue candidates;
    }
    out[n++] = p;
  }
  return out.slice(0, n);
}

/* eslint-disable @typescript-eslint/no-non-null-assertion -- hot loops: every index is < words ≤ each bitmap's length */
/** out = a & b (& c), word by word; the number of set bits when `counted`. */
function andInto(out: Uint32Array, words: number, counted: boolean, a: Uint32Array, b: Uint32Array, c?: Uint32Array): number {
  let count = 0;
  if (c) {
    for (let w = 0; w < words; w++) {
      const word = a[w]! & b[w]! & c[w]!;
      out[w] = word;
      if (counted) count += popcount(word);
    }
  } else {
    for (let w = 0; w < words; w++) {
      const word = a[w]! & b[w]!;
      out[w] = word;
      if (counted) count += popcount(word);
    }
  }
  return count;
}
/* eslint-enable @typescript-eslint/no-non-null-assertion */

/**
 * The bitmap of positions every set (two or more) holds, written into `out`: up to three bitmaps a pass
 * (two or three sets, the common case, take one), counted in the last.
 */
function andBits(sets: readonly Uint32Array[], out: Uint32Array, words: number): number {
  const [a, b, c] = sets as [Uint32Array, Uint32Array, Uint32Array | undefined];
  let next = c ? 3 : 2;
  let count = andInto(out, words, next === sets.length, a, b, c);
  while (next < sets.length) {
    const d = sets[next] as Uint32Array;
    const e = sets[next + 1];
    next += e ? 2 : 1;
    count = andInto(out, words, next === sets.length, out, d, e);
  }
  return count;
}

/**
 * The positions every set holds. A dense result is written into `scratch` when given (a bitmap of the
 * universe's words; allocating 2.5 MB per query at 20,000,000 costs as much as the and itself): it is then
 * valid only until the scratch is written again.
 */
export function intersect(sets: readonly PositionSet[], universe: number, scratch?: Uint32Array): PositionSet {
  if (sets.length === 0) throw new RangeError('intersect needs at least one set');
  const ordered = sets.filter((set) => set.count < universe).sort((a, b) => a.count - b.count);
  const [smallest] = ordered;
  if (!smallest) return sets[0] as PositionSet;
  if (smallest.count === 0) return EMPTY_SET;
  if (ordered.length === 1) return smallest;
  // A sparse set drives: a lookup per position of it. Dense sets are and'ed word by word: the words are
  // then fewer than the positions a list would visit, and each is one operation.
  if (smallest.list && !smallest.bits) return setOfList(filterList(smallest.list, ordered.slice(1)), universe);
  const words = wordsFor(universe);
  const out = scratch && scratch.length >= words ? scratch : new Uint32Array(words);
  const count = andBits(
    ordered.map((set) => bitmapOf(set, universe)),
    out,
    words,
  );
  // Kept as the bitmap even when sparse: a page reads a few of its words, and listing 600,000 positions
  // (20,000,000 organizations, three keys) would cost as much as the and.
  return count === 0 ? EMPTY_SET : { list: null, bits: out, count };
}

/** The set without the given positions (any order; those not in the set are ignored). */
export function without(set: PositionSet, positions: readonly number[], universe: number): PositionSet {
  const removed = positions.filter((p) => has(set, p));
  if (removed.length === 0) return set;
  const drop = new Set(removed);
  if (set.bits) {
    const bits = set.bits.slice();
    for (const p of drop) bits[p >>> 5] = (bits[p >>> 5] ?? 0) & ~(1 << (p & 31));
    return setOfBits(bits, universe, set.count - drop.size);
  }
  return setOfList((set.list ?? new Uint32Array(0)).filter((p) => !drop.has(p)), universe);
}

/**
 * Visits the set's positions from `start` in ascending order until `visit` returns false (then true:
 * the walk was stopped): a binary search into the list, or a walk over the bitmap's words from the start's.
 */
export function walkFrom(set: PositionSet, start: number, visit: (position: number) => boolean): boolean {
  if (set.list) {
    const list = set.list;
    for (let i = indexAtOrAfter(list, start, 0); i < list.length; i++) if (!visit(list[i] ?? 0)) return true;
    return false;
  }
  const bits = set.bits ?? new Uint32Array(0);
  for (let w = start >>> 5; w < bits.length; w++) {
    let word = bits[w] ?? 0;
    if (w === start >>> 5) word &= ~((1 << (start & 31)) - 1);
    while (word !== 0) {
      const low = word & -word;
      if (!visit((w << 5) | (31 - Math.clz32(low)))) return true;
      word ^= low;
    }
  }
  return false;
}
