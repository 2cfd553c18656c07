/**
 * Organization vectors and the exact scan over them: the k most similar rows and the exact count of rows
 * at or above a similarity floor. The vectors are kept as int8 scan records (vector-scan.ts): a row's
 * stored vector is its codes decoded, and every score is the dot product of that vector with the query.
 *
 * Where WebAssembly SIMD is available (vector-scan.ts) a first pass estimates every row's score from the
 * codes with a certain error interval, and only the rows the intervals cannot settle are decoded and
 * scored exactly.
 *
 * Elsewhere (hosts without it) the JavaScript scan runs over the decoded vectors, made on its first use.
 * A plain scan reads every dimension of every row: 100,000 × 100 multiply-adds, about 10 ms in scalar
 * JavaScript on this machine (≈ 1 ns each; no SIMD). The word vectors of the embedding asset are expressed
 * in the principal axes of the organizations' vectors (see data/README.md), so the first dimensions carry
 * most of a vector's length (the first 16 about 70 %). Row by row, the scan adds 16 dimensions at a time
 * and, by Cauchy–Schwarz, bounds what the rest can still add: |q_rest · x_rest| ≤ ‖q_rest‖ · ‖x_rest‖ (the
 * rows' tail norms are precomputed). It stops as soon as the bound settles both questions — below the
 * floor, or counted and unable to reach the current k-th best. Rows that reach the end get their score
 * from the same full dot product as a plain scan, so results, scores and `total` are exactly those of
 * brute force, on either path; only the work differs.
 */
import { TopK } from './top-k.js';
import { decodeRow, prepareScan, scanCandidates, scanRecords, type ScanCandidates, type ScanRecords } from './vector-scan.js';

/** Dimensions added between two bound checks. */
const STEP = 16;
/**
 * Slack added to every bound: covers the rounding of the partial sums and of the stored tail norms (both
 * far below 1e-9 for unit vectors), so that a pruning decision is never wrong.
 */
const SLACK = 1e-9;

/** The decoded vectors and their tail norms: what the JavaScript scan reads. */
interface PlainVectors {
  /** rows × dims; a row without a vector is all zeros. */
  data: Float32Array;
  /** rows × cuts.length: ‖x[cut …]‖ of each row after each cut (rounded up a little: see SLACK). */
  tailNorms: Float64Array;
}

export class VectorMatrix {
  /** Dimensions after which the JavaScript scan checks its bound: STEP, 2·STEP, … below dims. */
  readonly cuts: readonly number[];
  private plainVectors: PlainVectors | null = null;

  constructor(
    /** The stored vectors. */
    readonly scan: ScanRecords,
    /** 1 when the row has a vector. */
    readonly present: Uint8Array,
  ) {
    if (scan.rows !== present.length) throw new Error('scan records of another matrix');
    const cuts: number[] = [];
    for (let cut = STEP; cut < scan.dims; cut += STEP) cuts.push(cut);
    this.cuts = cuts;
  }

  /** The matrix that stores these f32 vectors (rows × dims, present rows L2-normalised), coded. */
  static fromVectors(dims: number, data: Float32Array, present: Uint8Array): VectorMatrix {
    return new VectorMatrix(scanRecords(dims, data, present), present);
  }

  get dims(): number {
    return this.scan.dims;
  }

  get rows(): number {
    return this.present.length;
  }

  /** Puts the records where the WebAssembly scan reads them, so that the first query does not (vector-scan.ts). */
  prepareScan(): void {
    prepareScan(this.scan);
  }

  /** One row's stored vector, or null. */
  vector(row: number): Float32Array | null {
    if (!this.present[row]) return null;
    const out = new Float32Array(this.dims);
    decodeRow(this.scan, row, out);
    return out;
  }

  /** Every row decoded, with its tail norms: made on first use (the JavaScript scan, tests). */
  plain(): PlainVectors {
    if (!this.plainVectors) {
      const { dims, rows } = this;
      const data = new Float32Array(rows * dims);
      for (let row = 0; row < rows; row++) if (this.present[row]) decodeRow(this.scan, row, data, row * dims);
      this.plainVectors = { data, tailNorms: tailNorms(data, rows, dims, this.cuts) };
    }
    return this.plainVectors;
  }
}

function tailNorms(data: Float32Array, rows: number, dims: number, cuts: readonly number[]): Float64Array {
  const norms = new Float64Array(rows * cuts.length);
  for (let row = 0; row < rows; row++) {
    let sum = 0;
    let c = cuts.length - 1;
    // From the last dimension backwards: each cut's tail is the next one's plus the dimensions between.
    for (let d = dims - 1; d >= 0 && c >= 0; d--) {
      const x = data[row * dims + d] ?? 0;
      sum += x * x;
      if (d === cuts[c]) {
        norms[row * cuts.length + c] = Math.sqrt(sum) * (1 + 1e-6);
        c--;
      }
    }
  }
  return norms;
}

export interface VectorHits {
  rows: Uint32Array;
  scores: Float64Array;
  /** Rows at or above the floor among those allowed; null when not counted. */
  total: number | null;
}

/**
 * The k rows most similar (cosine = dot product of unit vectors) to `query` among `allowed` rows, with
 * similarity ≥ `minScore`; ties by `tieKey` (domain order). Exact (see the module comment). Counting
 * every row above the floor means settling every row near it; `count: false` (hybrid, whose total is
 * its fused list) skips that and prunes on the k-th best alone, about a third faster. `wasm: false`
 * keeps to the JavaScript scan (to compare the two). `rows` (strictly ascending) names the allowed rows
 * instead of `allowed`, which is then not read: a selective filter's few rows are read alone instead of
 * every row's mask byte; the answer is the mask's.
 */
export function nearest(
  matrix: VectorMatrix,
  query: Float32Array,
  k: number,
  allowed: Uint8Array,
  minScore: number,
  tieKey: Uint32Array,
  options: { count?: boolean; wasm?: boolean; rows?: Uint32Array } = {},
): VectorHits {
  const count = options.count !== false;
  const list = options.rows;
  if (list) checkRowList(list, matrix.rows);
  const q = Float64Array.from(query);
  const candidates = options.wasm === false ? null : scanCandidates(matrix.scan, q, allowed, minScore, k, list);
  if (candidates) return settle(matrix, q, k, minScore, tieKey, count, candidates);
  const { dims, present, cuts } = matrix;
  const { data, tailNorms: norms } = matrix.plain();
  const stages = cuts.length;
  // ‖q[cut …]‖ per cut.
  const queryTails = new Float64Array(stages);
  for (let c = 0; c < stages; c++) {
    let sum = 0;
    for (let d = cuts[c] ?? dims; d < dims; d++) sum += (q[d] ?? 0) ** 2;
    queryTails[c] = Math.sqrt(sum) * (1 + 1e-9);
  }
  const top = new TopK(k, tieKey);
  let total = 0;
  const entries = list ? list.length : present.length;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- hot loop: every index is < length */
  rows: for (let i = 0; i < entries; i++) {
    const row = list ? list[i]! : i;
    if ((!list && allowed[row]! === 0) || present[row]! === 0) continue;
    const base = row * dims;
    let p = 0;
    let d = 0;
    let counted = false;
    for (let c = 0; c < stages; c++) {
      // Inline (a call here costs a third of the scan); cuts are multiples of 4.
      const cut = cuts[c]!;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (; d < cut; d += 4) {
        s0 += data[base + d]! * q[d]!;
        s1 += data[base + d + 1]! * q[d + 1]!;
        s2 += data[base + d + 2]! * q[d + 2]!;
        s3 += data[base + d + 3]! * q[d + 3]!;
      }
      p += s0 + s1 + s2 + s3;
      const bound = queryTails[c]! * norms[row * stages + c]! + SLACK;
      if (p + bound < minScore) continue rows;
      if (!counted && (!count || p - bound >= minScore)) counted = true;
      if (counted && p + bound < top.threshold) {
        total++;
        continue rows;
      }
    }
    const score = fullDot(data, base, q, dims);
    if (score < minScore) continue;
    total++;
    top.offer(row, score);
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return { ...top.sorted(), total: count ? total : null };
}

/** A row list must be strictly ascending and within the matrix: the scans read those rows' records unchecked. */
function checkRowList(list: Uint32Array, rows: number): void {
  let previous = -1;
  for (const row of list) {
    if (row <= previous || row >= rows) throw new RangeError(`row list: ${row} after ${previous} (rows must ascend, below ${rows})`);
    previous = row;
  }
}

/**
 * nearest() from the WebAssembly pass's candidates (every row that may reach the floor, with an interval
 * holding its exact score). A row whose upper bound is below the k-th best lower bound has k rows certainly
 * better: it can only be counted, and a row certainly above the floor is counted without its score. The
 * others are decoded and get the full dot product, so scores and ties are those of the JavaScript scan.
 */
function settle(matrix: VectorMatrix, q: Float64Array, k: number, minScore: number, tieKey: Uint32Array, count: boolean, candidates: ScanCandidates): VectorHits {
  const { rows, low, high } = candidates;
  const n = candidates.count;
  const { dims } = matrix;
  if (scratch.rows.length < n) scratch = { rows: new Uint32Array(n), scores: new Float64Array(n), vectors: scratch.vectors };
  const { kth } = candidates;
  const top = new TopK(k, tieKey);
  let total = 0;
  // The candidates that need their exact score, listed first so that their rows can be fetched together.
  const unsettled = scratch.rows;
  let m = 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < n */
  for (let i = 0; i < n; i++) {
    // The refined interval may lie wholly below the floor.
    if (high[i]! < minScore) continue;
    if (high[i]! < kth) {
      if (!count) continue;
      if (low[i]! >= minScore) {
        total++;
        continue;
      }
    }
    unsettled[m++] = i;
  }
  if (scratch.vectors.length < m * dims) scratch.vectors = new Float32Array(m * dims);
  const vectors = scratch.vectors;
  for (let j = 0; j < m; j++) decodeRow(matrix.scan, rows[unsettled[j]!]!, vectors, j * dims);
  const exact = scratch.scores;
  scoreRows(vectors, dims, q, m, exact);
  for (let j = 0; j < m; j++) {
    const i = unsettled[j]!;
    const row = rows[i]!;
    const score = exact[j]!;
    if (score < minScore) continue;
    total++;
    if (high[i]! >= kth) top.offer(row, score);
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return { ...top.sorted(), total: count ? total : null };
}

/** Buffers of settle(), reused from query to query (queries run one at a time): grown, never shrunk. */
let scratch = { rows: new Uint32Array(0), scores: new Float64Array(0), vectors: new Float32Array(0) };

/**
 * fullDot() of the first m rows of `data` into `out`, two rows at a time: one row's four sums wait on each
 * other's additions, two rows' eight do not, and each row keeps fullDot()'s order (so its score is bit for
 * bit the same).
 */
function scoreRows(data: Float32Array, dims: number, q: Float64Array, m: number, out: Float64Array): void {
  const body = dims & ~3;
  let j = 0;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- hot loop: every index is < length */
  for (; j + 1 < m; j += 2) {
    const a = j * dims;
    const b = a + dims;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let b0 = 0;
    let b1 = 0;
    let b2 = 0;
    let b3 = 0;
    let d = 0;
    for (; d < body; d += 4) {
      const q0 = q[d]!;
      const q1 = q[d + 1]!;
      const q2 = q[d + 2]!;
      const q3 = q[d + 3]!;
      a0 += data[a + d]! * q0;
      b0 += data[b + d]! * q0;
      a1 += data[a + d + 1]! * q1;
      b1 += data[b + d + 1]! * q1;
      a2 += data[a + d + 2]! * q2;
      b2 += data[b + d + 2]! * q2;
      a3 += data[a + d + 3]! * q3;
      b3 += data[b + d + 3]! * q3;
    }
    for (; d < dims; d++) {
      a0 += data[a + d]! * q[d]!;
      b0 += data[b + d]! * q[d]!;
    }
    out[j] = a0 + a1 + a2 + a3;
    out[j + 1] = b0 + b1 + b2 + b3;
  }
  if (j < m) out[j] = fullDot(data, j * dims, q, dims);
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
}

/** Σ x[d] · q[d] over [from, to) of the row at `base`. */
function partialDot(data: Float32Array, base: number, q: Float64Array, from: number, to: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = from;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- hot loop: every index is < length */
  for (; d + 3 < to; d += 4) {
    s0 += data[base + d]! * q[d]!;
    s1 += data[base + d + 1]! * q[d + 1]!;
    s2 += data[base + d + 2]! * q[d + 2]!;
    s3 += data[base + d + 3]! * q[d + 3]!;
  }
  for (; d < to; d++) s0 += data[base + d]! * q[d]!;
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return s0 + s1 + s2 + s3;
}

/** The row's score: one summation order for every path, so equal vectors always score equal. */
function fullDot(data: Float32Array, base: number, q: Float64Array, dims: number): number {
  return partialDot(data, base, q, 0, dims);
}
