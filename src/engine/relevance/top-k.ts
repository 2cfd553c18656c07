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
