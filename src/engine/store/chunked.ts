/**
 * Typed arrays built by appending, in chunks: growing never copies what is there (a buffer grown by half
 * copies it all and holds both for a moment), and `finish` copies the chunks into one array of the exact
 * length, letting each go once copied. Building a store of millions of organizations, the moment of most
 * memory is then the largest column twice, not every column two and a half times.
 */

type Numbers = Float64Array | Int32Array | Uint32Array | Int8Array | Uint8Array;

/**
 * The first chunk's length; each next one is twice the last, up to MAX_CHUNK_BYTES. Large chunks are
 * above the C allocator's largest mmap threshold (32 MB on 64-bit glibc), so a chunk let go goes back to
 * the system at once; chunks of a few MB, reused from the allocator's heap, kept the finished store's
 * build about 2 GB larger at 5,000,000.
 */
const FIRST_CHUNK = 1 << 10;
const MAX_CHUNK_BYTES = 1 << 26;

export class ChunkedArray<T extends Numbers> {
  private readonly full: T[] = [];
  private current: T;
  private used = 0;
  /** Values appended so far. */
  length = 0;

  constructor(
    private readonly make: (length: number) => T,
    /** The length expected, if known: the first chunk is made that long. */
    expected = 0,
  ) {
    this.current = make(Math.max(FIRST_CHUNK, expected));
  }

  push(value: number): void {
    if (this.used === this.current.length) this.nextChunk(1);
    this.current[this.used++] = value;
    this.length++;
  }

  /**
   * A writable view of the next `count` places, which count as appended (a UTF-8 encoder writes into it,
   * then `unpush` gives back what it did not use); what was there before is not cleared.
   */
  reserve(count: number): T {
    if (this.used + count > this.current.length) this.nextChunk(count);
    const view = this.current.subarray(this.used, this.used + count) as T;
    this.used += count;
    this.length += count;
    return view;
  }

  /** Takes back the last `count` places of the last `reserve`. */
  unpush(count: number): void {
    this.used -= count;
    this.length -= count;
  }

  private nextChunk(room: number): void {
    this.full.push(this.current.subarray(0, this.used) as T);
    const max = MAX_CHUNK_BYTES / this.current.BYTES_PER_ELEMENT;
    this.current = this.make(Math.max(room, Math.min(max, this.current.length * 2)));
    this.used = 0;
  }

  /** Every value in one array of the exact length, of this type or of `into`'s (the builder is empty afterwards). */
  finish(): T;
  finish<U extends Numbers>(into: (length: number) => U): U;
  finish(into: (length: number) => Numbers = this.make): Numbers {
    const out = into(this.length);
    let at = 0;
    this.full.push(this.current.subarray(0, this.used) as T);
    this.current = this.make(0);
    this.used = 0;
    // Oldest first, each dropped once copied.
    this.full.reverse();
    for (let chunk = this.full.pop(); chunk !== undefined; chunk = this.full.pop()) {
      out.set(chunk, at);
      at += chunk.length;
    }
    this.length = 0;
    return out;
  }
}
