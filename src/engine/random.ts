/**
 * A small seeded pseudo-random generator (sfc32, seeded through splitmix32): fast, portable and the same
 * sequence on every JavaScript engine, so `generateDataset({count, seed})` is reproducible anywhere.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A uniform number in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** A uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** `count` distinct items (fewer if the list is shorter), in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = items.slice();
    const out: T[] = [];
    while (out.length < count && pool.length > 0) {
      const i = Math.floor(this.next() * pool.length);
      out.push(pool[i] as T);
      pool[i] = pool[pool.length - 1] as T;
      pool.pop();
    }
    return out;
  }

  /** A standard normal deviate (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/**
 * Weighted choice in O(log n): cumulative weights and a binary search. Built once per list, used for
 * hundreds of thousands of draws.
 */
export class WeightedPicker<T> {
  private readonly cumulative: Float64Array;
  private readonly total: number;

  constructor(
    private readonly items: readonly T[],
    weight: (item: T) => number,
  ) {
    this.cumulative = new Float64Array(items.length);
    let sum = 0;
    items.forEach((item, i) => {
      sum += Math.max(0, weight(item));
      this.cumulative[i] = sum;
    });
    if (sum <= 0) throw new Error('WeightedPicker needs a positive total weight');
    this.total = sum;
  }

  pick(random: Random): T {
    const target = random.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] as number) <= target) lo = mid + 1;
      else hi = mid;
    }
    return this.items[lo] as T;
  }
}
