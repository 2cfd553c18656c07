/**
 * Weighted reciprocal rank fusion, the project's pinned form:
 *   score(d) = (1 − β) / (60 + r_bm25(d)) + β / (60 + r_vec(d))
 * ranks from 1, an absent rank contributes 0, ties broken by domain ascending (the caller supplies the
 * tie-break key). k = 60 is the original paper's constant (Cormack, Clarke, Büttcher 2009).
 */
export const RRF_K = 60;

export interface RankedList {
  /** Row ids, best first. */
  rows: ArrayLike<number>;
}

/** Fused scores of every row present in either list. */
export function weightedRrf(keyword: RankedList, vector: RankedList, balance: number): Map<number, number> {
  const fused = new Map<number, number>();
  const add = (rows: ArrayLike<number>, weight: number): void => {
    if (weight === 0) return;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] ?? 0;
      fused.set(row, (fused.get(row) ?? 0) + weight / (RRF_K + i + 1));
    }
  };
  add(keyword.rows, 1 - balance);
  add(vector.rows, balance);
  return fused;
}

/** Rows of a fused map ordered by score descending, ties by `tieKey` ascending. */
export function orderFused(fused: Map<number, number>, tieKey: (row: number) => string): { rows: number[]; scores: number[] } {
  const entries = [...fused];
  entries.sort((a, b) => b[1] - a[1] || (tieKey(a[0]) < tieKey(b[0]) ? -1 : tieKey(a[0]) > tieKey(b[0]) ? 1 : 0));
  return { rows: entries.map((e) => e[0]), scores: entries.map((e) => e[1]) };
}
