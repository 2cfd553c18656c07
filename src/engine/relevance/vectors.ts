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
  let total = 0;
  for (let row = 0, base = 0; row < present.length; row++, base += dims) {
    if (!allowed[row] || !present[row]) continue;
    let dot = 0;
    let d = 0;
    // Unrolled by four: the scan is memory-bound, fewer loop checks help V8 keep up.
    for (; d + 3 < dims; d += 4) {
      dot +=
        (data[base + d] ?? 0) * (query[d] ?? 0) +
        (data[base + d + 1] ?? 0) * (query[d + 1] ?? 0) +
        (data[base + d + 2] ?? 0) * (query[d + 2] ?? 0) +
        (data[base + d + 3] ?? 0) * (query[d + 3] ?? 0);
    }
    for (; d < dims; d++) dot += (data[base + d] ?? 0) * (query[d] ?? 0);
    if (dot < minScore) continue;
    total++;
    top.offer(row, dot);
  }
  return { ...top.sorted(), total };
}
