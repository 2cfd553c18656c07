/**
 * A column of text kept as UTF-8 bytes outside the JavaScript heap: one byte array for all rows, the
 * offset of each row's value, and a bit per row for null. At 20 million organizations the names,
 * summaries, addresses and domains as JavaScript strings would take over 10 GB of V8 heap (two bytes per
 * character for any text with an umlaut, plus a header per string); as UTF-8 they take about half, in
 * memory V8 never scans, and they are written to and read from an index snapshot as they are.
 * A value is decoded when a response asks for it.
 */

import { ChunkedArray } from './chunked.js';
import { utf8 } from './utf8.js';

/** Offsets fit 32 bits until the bytes pass 4 GiB. */
export type Offsets = Uint32Array | Float64Array;

/** Row values as text: what the text index and the row writers read. */
export interface TextValues {
  readonly size: number;
  /** The row's value (null when absent). */
  get(row: number): string | null;
}

/**
 * Where a column's bytes are: an array in memory, or anything that reads a range of them on demand (a
 * server keeps a large snapshot's summaries in their file).
 */
export interface ByteSource {
  readonly length: number;
  /** Bytes [from, to): a view or a copy. */
  subarray(from: number, to: number): Uint8Array;
}

/** A Utf8Column as plain data (what an index snapshot keeps, what a thread receives). */
export interface Utf8ColumnParts {
  offsets: Offsets;
  bytes: Uint8Array;
  nulls: Uint8Array;
}

export class Utf8Column implements TextValues {
  constructor(
    /** offsets[row] … offsets[row + 1] are the row's bytes; size + 1 entries. */
    readonly offsets: Offsets,
    readonly bytes: Uint8Array | ByteSource,
    /** Bit `row` set: the value is null (an empty string is not). */
    readonly nulls: Uint8Array,
  ) {}

  static fromParts(parts: Utf8ColumnParts | (Omit<Utf8ColumnParts, 'bytes'> & { bytes: ByteSource })): Utf8Column {
    return new Utf8Column(parts.offsets, parts.bytes, parts.nulls);
  }

  parts(): Utf8ColumnParts {
    return { offsets: this.offsets, bytes: this.inMemory(), nulls: this.nulls };
  }

  /** The bytes as an array: a column read on demand cannot give them (nothing needs them whole once served). */
  inMemory(): Uint8Array {
    if (!(this.bytes instanceof Uint8Array)) throw new Error('this column is read from its file on demand; its bytes are not in memory');
    return this.bytes;
  }

  static from(values: readonly (string | null | undefined)[]): Utf8Column {
    // Sized up front: every growth of a large buffer makes V8 collect garbage over the whole heap.
    let chars = 0;
    for (const value of values) chars += value?.length ?? 0;
    const builder = new Utf8ColumnBuilder({ rows: values.length, bytes: Math.ceil(chars * 1.06) + 64 });
    for (const value of values) builder.push(value);
    return builder.finish();
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  isNull(row: number): boolean {
    return ((this.nulls[row >>> 3] ?? 0) & (1 << (row & 7))) !== 0;
  }

  get(row: number): string | null {
    if (row < 0 || row >= this.size || this.isNull(row)) return null;
    return utf8.decode(this.bytes.subarray(this.offsets[row] ?? 0, this.offsets[row + 1] ?? 0));
  }

  /** The row's bytes (a view, no copy). */
  bytesOf(row: number): Uint8Array {
    return this.bytes.subarray(this.offsets[row] ?? 0, this.offsets[row + 1] ?? 0);
  }

  /** Every value as a string (for callers that need the whole column at once, such as a build). */
  *values(): IterableIterator<string | null> {
    for (let row = 0; row < this.size; row++) yield this.get(row);
  }
}

/** Appends values one at a time into chunked buffers; `finish` puts them together into a Utf8Column. */
export class Utf8ColumnBuilder {
  private readonly bytes: ChunkedArray<Uint8Array>;
  /** 0, then the end of each row's bytes (f64: a column may pass 4 GB while it is built). */
  private readonly offsets: ChunkedArray<Float64Array>;
  private readonly nullRows = new ChunkedArray((n) => new Uint32Array(n));
  private rows = 0;
  private used = 0;

  /** `rows` and `bytes`: the expected size, if known (the first chunks are made that large). */
  constructor(expected: { rows?: number; bytes?: number } = {}) {
    this.bytes = new ChunkedArray((n) => new Uint8Array(n), expected.bytes ?? 0);
    this.offsets = new ChunkedArray((n) => new Float64Array(n), (expected.rows ?? 0) + 1);
    this.offsets.push(0);
  }

  get size(): number {
    return this.rows;
  }

  push(value: string | null | undefined): void {
    if (value === null || value === undefined) {
      this.nullRows.push(this.rows);
    } else if (value.length > 0) {
      // At most 3 bytes per UTF-16 code unit; the destination is bounded to that (an unbounded view is slow).
      const room = value.length * 3;
      const written = utf8.encodeInto(value, this.bytes.reserve(room));
      this.bytes.unpush(room - written);
      this.used += written;
    }
    this.rows++;
    this.offsets.push(this.used);
  }

  finish(): Utf8Column {
    const size = this.rows;
    const offsets = this.used <= 0xffffffff ? this.offsets.finish((n) => new Uint32Array(n)) : this.offsets.finish();
    const nulls = new Uint8Array(Math.ceil(size / 8));
    for (const row of this.nullRows.finish()) nulls[row >>> 3] = (nulls[row >>> 3] ?? 0) | (1 << (row & 7));
    return new Utf8Column(offsets, this.bytes.finish(), nulls);
  }
}
