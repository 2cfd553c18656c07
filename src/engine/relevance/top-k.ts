/**
 * Keeping the best k of many scored rows with a binary min-heap (O(n log k), no full sort). "Better"
 * means a higher score, then a smaller tie key (the row's rank in domain order: ties go to the domain
 * that sorts first; without tie keys, the smaller row).
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly rows: Int32Array;
  private readonly ties: Uint32Array;
  private length = 0;

  constructor(
    private readonly k: number,
    private readonly tieKey?: Uint32Array,
  ) {
    this.scores = new Float64Array(Math.max(1, k));
    this.rows = new Int32Array(Math.max(1, k));
    this.ties = new Uint32Array(Math.max(1, k));
  }

  /** Is (a) worse than (b)? */
  private worse(scoreA: number, tieA: number, scoreB: number, tieB: number): boolean {
    return scoreA < scoreB || (scoreA === scoreB && tieA > tieB);
  }

  /**
   * A score a row must exceed (or equal with a smaller tie key) to be kept: the worst kept score once k
   * rows are kept, −∞ before (+∞ when k is 0: nothing is ever kept).
   */
  get threshold(): number {
    if (this.k <= 0) return Number.POSITIVE_INFINITY;
    return this.length < this.k ? Number.NEGATIVE_INFINITY : (this.scores[0] ?? Number.NEGATIVE_INFINITY);
  }

  offer(row: number, score: number): void {
    if (this.k <= 0) return;
    // Most offers of a long list fall below the worst kept: settled before the tie key is read (a random
    // access into an array of every organization, a cache miss at millions of rows).
    if (this.length === this.k && score < (this.scores[0] ?? 0)) return;
    const tie = this.tieKey ? (this.tieKey[row] ?? row) : row;
    if (this.length < this.k) {
      let i = this.length++;
      // sift up
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, tie, this.scores[parent] ?? 0, this.ties[parent] ?? 0)) break;
        this.move(parent, i);
        i = parent;
      }
      this.set(i, row, score, tie);
      return;
    }
    if (!this.worse(this.scores[0] ?? 0, this.ties[0] ?? 0, score, tie)) return;
    // replace the root (the worst kept) and sift down
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.length) break;
      const right = left + 1;
      let child = left;
      if (right < this.length && this.worse(this.scores[right] ?? 0, this.ties[right] ?? 0, this.scores[left] ?? 0, this.ties[left] ?? 0)) child = right;
      if (!this.worse(this.scores[child] ?? 0, this.ties[child] ?? 0, score, tie)) break;
      this.move(child, i);
      i = child;
    }
    this.set(i, row, score, tie);
  }

  private move(from: number, to: number): void {
    this.scores[to] = this.scores[from] ?? 0;
    this.rows[to] = this.rows[from] ?? 0;
    this.ties[to] = this.ties[from] ?? 0;
  }

  private set(i: number, row: number, score: number, tie: number): void {
    this.scores[i] = score;
    this.rows[i] = row;
    this.ties[i] = tie;
  }

  /** The kept rows, best first. */
  sorted(): { rows: Uint32Array; scores: Float64Array } {
    const order = Array.from({ length: this.length }, (_, i) => i);
    order.sort((a, b) => (this.scores[b] ?? 0) - (this.scores[a] ?? 0) || (this.ties[a] ?? 0) - (this.ties[b] ?? 0));
    return {
      rows: Uint32Array.from(order, (i) => this.rows[i] ?? 0),
      scores: Float64Array.from(order, (i) => this.scores[i] ?? 0),
    };
  }
}

/** kthLargestOf()'s buffer, reused from query to query: grown, never shrunk. */
let scratch = new Float64Array(0);

/** The k-th largest of values[0 … n) (1 ≤ k ≤ n), leaving `values` as it was. */
export function kthLargestOf(values: Float64Array, n: number, k: number): number {
  if (scratch.length < n) scratch = new Float64Array(n);
  const copy = scratch.subarray(0, n);
  copy.set(values.subarray(0, n));
  return kthLargest(copy, k);
}

/** A score the k-th best row certainly reaches, from rows' lower bounds: the k-th largest (+∞ for k ≤ 0, −∞ with fewer than k rows). */
export function kthBestLow(low: Float64Array, n: number, k: number): number {
  if (k <= 0) return Number.POSITIVE_INFINITY;
  if (n < k) return Number.NEGATIVE_INFINITY;
  return kthLargestOf(low, n, k);
}

/** The k-th largest value (1 ≤ k ≤ length) by quickselect; reorders `values`. */
function kthLargest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const target = k - 1;
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- lo ≤ i, j ≤ hi < length */
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    // Descending partition: [lo, j] ≥ pivot ≥ [i, hi].
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
}
