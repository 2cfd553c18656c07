/**
 * Organization vectors in one contiguous Float32Array (row-major, L2-normalised) and the brute-force
 * scan over it. At 100,000 × 100 dimensions a scan reads 40 MB and takes a few milliseconds; no
 * approximate index beats that at this size in plain JavaScript (see NOTES).
 */
import { TopK } from './top-k.js';

export class VectorMatrix {
  constructor(
    readonly dims: number,
    /** rows × dims; a row without a vector is all zeros. */
    readonly data: Float32Array,
    /** 1 when the row has a vector. */
    readonly present: Uint8Array,
  ) {}

  get rows(): number {
    return this.present.length;
  }

  /** A copy of one row's vector, or null. */
  vector(row: number): Float32Array | null {
    if (!this.present[row]) return null;
    return this.data.slice(row * this.dims, (row + 1) * this.dims);
  }
}

export interface VectorHits {
  rows: Uint32Array;
  scores: Float64Array;
  /** Rows at or above the floor among those allowed. */
  total: number;
}

/**
 * The k rows most similar (cosine = dot product of unit vectors) to `query` among `allowed` rows, with
 * similarity ≥ `minScore`; ties by `tieKey` (domain order).
 */
export function nearest(matrix: VectorMatrix, query: Float32Array, k: number, allowed: Uint8Array, minScore: number, tieKey: Uint32Array): VectorHits {
  const { dims, data, present } = matrix;
  const top = new TopK(k, tieKey);
  const scores = dotAll(data, dims, query, allowed, present);
  let total = 0;
  for (let row = 0; row < scores.length; row++) {
    const score = scores[row] as number;
    if (score < minScore) continue;
    total++;
    top.offer(row, score);
  }
  return { ...top.sorted(), total };
}

/**
 * The dot product of every allowed row with `query` (−∞ for the others). This loop is the whole cost of
 * a semantic search, so it is written for V8: the query in a local Float64Array, plain indexed reads
 * without undefined checks (indices are in range by construction), four accumulators.
 */
function dotAll(data: Float32Array, dims: number, query: Float32Array, allowed: Uint8Array, present: Uint8Array): Float64Array {
  const rows = present.length;
  const out = new Float64Array(rows).fill(Number.NEGATIVE_INFINITY);
  const q = Float64Array.from(query);
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- hot loop: every index is < length */
  for (let row = 0; row < rows; row++) {
    if (allowed[row]! === 0 || present[row]! === 0) continue;
    const base = row * dims;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let d = 0;
    for (; d + 3 < dims; d += 4) {
      s0 += data[base + d]! * q[d]!;
      s1 += data[base + d + 1]! * q[d + 1]!;
      s2 += data[base + d + 2]! * q[d + 2]!;
      s3 += data[base + d + 3]! * q[d + 3]!;
    }
    for (; d < dims; d++) s0 += data[base + d]! * q[d]!;
    out[row] = s0 + s1 + s2 + s3;
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return out;
}
