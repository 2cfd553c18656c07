/**
 * A long list of unsigned 32-bit ids (the keyword index's posting doc ids) in fewer bytes, any one still
 * read in constant time: frame of reference per block of 128 ids. A block stores each id as its
 * difference from the block's smallest, in the fewest whole bytes (0–4) that hold the block's largest
 * difference. Postings list a term's docs in ascending order, so a block of a common term spans a narrow
 * range (one or two bytes an id) and only blocks of rare terms need three or four: at 1,000,000
 * generated organizations the body's doc ids take about 45 % of a Uint32Array's bytes.
 *
 * Hand-written: the index reads ids in its innermost loops (a walk decodes a chunk at a time, a phrase
 * gallops with `get`), and a general-purpose codec (varints, bit packing) gives up the constant-time
 * access or the speed. Widths 2 and 4 start at offsets aligned to them, so they are read through typed
 * views; width 3 is put together from bytes.
 */

/** Ids per block. */
const BLOCK_SHIFT = 7;
const BLOCK = 1 << BLOCK_SHIFT;
const BLOCK_MASK = BLOCK - 1;

/** Plain data: what an index snapshot keeps. */
export interface PackedIdsParts {
  length: number;
  /** The smallest id of each block. */
  bases: Uint32Array;
  /** Where each block's differences start in `bytes` (one more entry: the end). */
  offsets: Uint32Array;
  /** Bytes per difference in each block, 0–4 (0: every id of the block is its base). */
  widths: Uint8Array;
  bytes: Uint8Array;
}

const widthOf = (range: number): number => (range === 0 ? 0 : range < 0x100 ? 1 : range < 0x10000 ? 2 : range < 0x1000000 ? 3 : 4);
/** Offsets of 2- and 4-byte blocks are multiples of their width. */
const alignTo = (offset: number, width: number): number => (width === 2 || width === 4 ? Math.ceil(offset / width) * width : offset);

export class PackedIds {
  readonly length: number;
  private readonly bases: Uint32Array;
  private readonly offsets: Uint32Array;
  private readonly widths: Uint8Array;
  private readonly bytes: Uint8Array;
  private readonly halves: Uint16Array;
  private readonly words: Uint32Array;

  constructor(parts: PackedIdsParts) {
    const blocks = Math.ceil(parts.length / BLOCK);
    if (parts.bases.length !== blocks || parts.widths.length !== blocks || parts.offsets.length !== blocks + 1 || (parts.offsets[blocks] ?? 0) > parts.bytes.length) {
      throw new Error('packed ids: the parts do not fit together');
    }
    this.length = parts.length;
    this.bases = parts.bases;
    this.offsets = parts.offsets;
    this.widths = parts.widths;
    this.bytes = parts.bytes;
    const { buffer, byteOffset, byteLength } = parts.bytes;
    // The views need an aligned start: packed bytes always begin at one (their own buffer, or a copy).
    if (byteOffset % 4 !== 0) throw new Error('packed ids: bytes must start at a multiple of 4');
    this.halves = new Uint16Array(buffer, byteOffset, byteLength >>> 1);
    this.words = new Uint32Array(buffer, byteOffset, byteLength >>> 2);
  }

  /** Packs `ids[0 … length)`. */
  static pack(ids: ArrayLike<number>, length = ids.length): PackedIds {
    const all = ids instanceof Uint32Array ? ids : Uint32Array.from({ length }, (_, i) => ids[i] ?? 0);
    return PackedIds.packStream(length, (emit) => {
      emit(all, length);
    });
  }

  /**
   * Packs `length` ids that `produce` hands to `emit` in order, a chunk at a time; it is called twice (once to
   * size the blocks, once to write them), so that the ids never need to exist whole.
   */
  static packStream(length: number, produce: (emit: (chunk: Uint32Array, count: number) => void) => void): PackedIds {
    const blocks = Math.ceil(length / BLOCK);
    const bases = new Uint32Array(blocks);
    const widths = new Uint8Array(blocks);
    let i = 0;
    let low = 0;
    let high = 0;
    /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < length */
    produce((chunk, count) => {
      for (let j = 0; j < count; j++, i++) {
        const id = chunk[j]!;
        if ((i & BLOCK_MASK) === 0) {
          low = id;
          high = id;
        } else if (id < low) low = id;
        else if (id > high) high = id;
        if ((i & BLOCK_MASK) === BLOCK_MASK || i === length - 1) {
          bases[i >>> BLOCK_SHIFT] = low;
          widths[i >>> BLOCK_SHIFT] = widthOf(high - low);
        }
      }
    });
    if (i !== length) throw new Error(`packed ids: ${i} ids given for ${length}`);
    const offsets = new Uint32Array(blocks + 1);
    let size = 0;
    for (let b = 0; b < blocks; b++) {
      const width = widths[b]!;
      size = alignTo(size, width);
      offsets[b] = size;
      size += Math.min(BLOCK, length - b * BLOCK) * width;
    }
    offsets[blocks] = size;
    const bytes = new Uint8Array(Math.ceil(size / 4) * 4);
    const halves = new Uint16Array(bytes.buffer);
    const words = new Uint32Array(bytes.buffer);
    i = 0;
    produce((chunk, count) => {
      for (let j = 0; j < count; j++, i++) {
        const b = i >>> BLOCK_SHIFT;
        const width = widths[b]!;
        const difference = chunk[j]! - bases[b]!;
        const k = i & BLOCK_MASK;
        const at = offsets[b]!;
        if (width === 1) bytes[at + k] = difference;
        else if (width === 2) halves[(at >>> 1) + k] = difference;
        else if (width === 4) words[(at >>> 2) + k] = difference;
        else if (width === 3) {
          bytes[at + 3 * k] = difference & 0xff;
          bytes[at + 3 * k + 1] = (difference >>> 8) & 0xff;
          bytes[at + 3 * k + 2] = difference >>> 16;
        }
      }
    });
    /* eslint-enable @typescript-eslint/no-non-null-assertion */
    if (i !== length) throw new Error('packed ids: the ids changed between the two passes');
    return new PackedIds({ length, bases, offsets, widths, bytes });
  }

  parts(): PackedIdsParts {
    const { length, bases, offsets, widths, bytes } = this;
    return { length, bases, offsets, widths, bytes };
  }

  get byteLength(): number {
    return this.bases.byteLength + this.offsets.byteLength + this.widths.byteLength + this.bytes.byteLength;
  }

  /** Id i (0 ≤ i < length). */
  get(i: number): number {
    /* eslint-disable @typescript-eslint/no-non-null-assertion -- i < length, so its block exists */
    const b = i >>> BLOCK_SHIFT;
    const width = this.widths[b]!;
    const k = i & BLOCK_MASK;
    const at = this.offsets[b]!;
    const base = this.bases[b]!;
    if (width === 1) return base + this.bytes[at + k]!;
    if (width === 2) return base + this.halves[(at >>> 1) + k]!;
    if (width === 4) return base + this.words[(at >>> 2) + k]!;
    if (width === 0) return base;
    const j = at + 3 * k;
    return base + (this.bytes[j]! | (this.bytes[j + 1]! << 8) | (this.bytes[j + 2]! << 16));
    /* eslint-enable @typescript-eslint/no-non-null-assertion */
  }

  /** Ids [from, to) into out[0 …): a block at a time, each with one width. */
  decode(from: number, to: number, out: Uint32Array): void {
    /* eslint-disable @typescript-eslint/no-non-null-assertion -- every index is < length */
    let n = 0;
    for (let i = from; i < to; ) {
      const b = i >>> BLOCK_SHIFT;
      const stop = Math.min(to, (b + 1) * BLOCK);
      const width = this.widths[b]!;
      const base = this.bases[b]!;
      const k = i & BLOCK_MASK;
      const at = this.offsets[b]!;
      const count = stop - i;
      if (width === 1) {
        const { bytes } = this;
        for (let j = at + k, end = j + count; j < end; j++) out[n++] = base + bytes[j]!;
      } else if (width === 2) {
        const { halves } = this;
        for (let j = (at >>> 1) + k, end = j + count; j < end; j++) out[n++] = base + halves[j]!;
      } else if (width === 4) {
        const { words } = this;
        for (let j = (at >>> 2) + k, end = j + count; j < end; j++) out[n++] = base + words[j]!;
      } else if (width === 0) {
        for (let j = 0; j < count; j++) out[n++] = base;
      } else {
        const { bytes } = this;
        for (let j = at + 3 * k, end = j + 3 * count; j < end; j += 3) out[n++] = base + (bytes[j]! | (bytes[j + 1]! << 8) | (bytes[j + 2]! << 16));
      }
      i = stop;
    }
    /* eslint-enable @typescript-eslint/no-non-null-assertion */
  }
}

/** The first index in [from, to) whose id is ≥ target (ids ascending there): galloping, then binary search. */
export function advance(ids: PackedIds, from: number, to: number, target: number): number {
  if (from >= to || ids.get(from) >= target) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < to && ids.get(hi) < target) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > to) hi = to;
  // ids[lo] < target; the answer is in (lo, hi].
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids.get(mid) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
