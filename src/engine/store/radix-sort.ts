/**
 * Stable LSD radix sort of indices by 32-bit keys, 16 bits a pass: linear in the count, where the built-in
 * comparison sort of a typed array takes 1 ms for 27,000 values and 40 ms for 600,000.
 */

/** One stable pass: `from` into `to` by 16 bits of `key[index]`. */
export function radixPass(from: Uint32Array, to: Uint32Array, key: Uint32Array, shift: number, buckets: Uint32Array): void {
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < length */
  buckets.fill(0);
  for (let i = 0; i < from.length; i++) buckets[((key[from[i]!]! >>> shift) & 0xffff) + 1]! += 1;
  for (let k = 1; k < buckets.length; k++) buckets[k]! += buckets[k - 1]!;
  for (let i = 0; i < from.length; i++) {
    const index = from[i]!;
    const k = (key[index]! >>> shift) & 0xffff;
    to[buckets[k]!++] = index;
  }
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
}

/** Buckets for radixPass (one per 16-bit digit, and one more). */
export function radixBuckets(): Uint32Array {
  return new Uint32Array(65_537);
}

/** The values in ascending order (a new array). */
export function sortedAscending(values: Uint32Array): Uint32Array {
  let order = Uint32Array.from({ length: values.length }, (_, i) => i);
  let scratch = new Uint32Array(values.length);
  const buckets = radixBuckets();
  for (const shift of [0, 16]) {
    radixPass(order, scratch, values, shift, buckets);
    [order, scratch] = [scratch, order];
  }
  for (let i = 0; i < order.length; i++) scratch[i] = values[order[i] ?? 0] ?? 0;
  return scratch;
}
