// Chunked builders (src/engine/store/chunked.ts and Utf8ColumnBuilder on top of it): values appended across
// many chunk boundaries come out whole and in order, in the array type asked for.
import { ChunkedArray } from '../../src/engine/store/chunked.js';
import { Utf8ColumnBuilder } from '../../src/engine/store/utf8-column.js';
import { Random } from '../../src/engine/random.js';

test('pushes across chunk boundaries come out in order, in this type or another', () => {
  const values = Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 100_003);
  const builder = new ChunkedArray((n) => new Float64Array(n));
  for (const value of values) builder.push(value);
  expect(builder.length).toBe(values.length);
  const out = builder.finish((n) => new Uint32Array(n));
  expect(out).toBeInstanceOf(Uint32Array);
  expect(Array.from(out)).toEqual(values);
  expect(builder.length).toBe(0);
});

test('reserve and unpush: only what was kept is appended, larger than a chunk too', () => {
  const builder = new ChunkedArray((n) => new Uint8Array(n), 8);
  const want: number[] = [];
  const random = new Random(3);
  for (let i = 0; i < 400; i++) {
    const room = i === 200 ? 5_000_000 : random.int(1, 3_000);
    const view = builder.reserve(room);
    const kept = random.int(0, room);
    for (let j = 0; j < kept; j++) {
      view[j] = (i + j) & 0xff;
      want.push((i + j) & 0xff);
    }
    builder.unpush(room - kept);
    builder.push(255);
    want.push(255);
  }
  expect(Array.from(builder.finish())).toEqual(want);
});

test('a UTF-8 column built across many chunks: every value, null and empty string back', () => {
  const random = new Random(5);
  const values: (string | null)[] = [];
  for (let i = 0; i < 20_000; i++) {
    const kind = random.int(0, 9);
    values.push(kind === 0 ? null : kind === 1 ? '' : `${'Müller-Straße 7 ✓ '.repeat(random.int(1, 40))}${i}`);
  }
  const builder = new Utf8ColumnBuilder();
  for (const value of values) builder.push(value);
  const column = builder.finish();
  expect(column.size).toBe(values.length);
  expect(Array.from({ length: column.size }, (_, row) => column.get(row))).toEqual(values);
  expect(column.offsets).toBeInstanceOf(Uint32Array);
});
