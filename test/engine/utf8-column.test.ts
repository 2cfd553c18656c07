/**
 * Text columns as UTF-8 outside the heap: values come back exactly (nulls, empty strings, every plane of
 * Unicode), and the hand-written codec that Google Apps Script uses (it has no TextEncoder) agrees with the
 * platform's byte for byte.
 */
import { Utf8Column, Utf8ColumnBuilder } from '../../src/engine/store/utf8-column.js';
import { portableUtf8 } from '../../src/engine/store/utf8.js';

const SAMPLES = ['', 'plain ascii', 'Müller GmbH & Co. KG', 'Łódź', 'Ελληνικά', '東京都', 'emoji 😀 and 𝄞', 'a\u0000b', 'x'.repeat(5000)];

test('values come back as they went in: nulls, empty strings and every kind of character', () => {
  const values = [...SAMPLES, null, undefined, 'after nulls'];
  const column = Utf8Column.from(values);
  expect(column.size).toBe(values.length);
  expect([...column.values()]).toEqual(values.map((value) => value ?? null));
  expect(column.get(0)).toBe('');
  expect(column.isNull(0)).toBe(false);
  expect(column.isNull(SAMPLES.length)).toBe(true);
  expect(column.get(-1)).toBeNull();
  expect(column.get(values.length)).toBeNull();
});

test('a builder grows past what it expected without losing a value', () => {
  const builder = new Utf8ColumnBuilder({ rows: 2, bytes: 4 });
  const values = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? null : `Organisation ${i} — Straße ${i % 13}`));
  for (const value of values) builder.push(value);
  expect([...builder.finish().values()]).toEqual(values);
});

test('the portable codec encodes and decodes as TextEncoder and TextDecoder do, lone surrogates and bad bytes included', () => {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  for (const text of [...SAMPLES, 'lone \ud800 high', 'lone \udc00 low', 'end \ud83d']) {
    const into = new Uint8Array(text.length * 3);
    const written = portableUtf8.encodeInto(text, into);
    expect(Array.from(into.subarray(0, written))).toEqual(Array.from(encoder.encode(text)));
    expect(portableUtf8.decode(into.subarray(0, written))).toBe(decoder.decode(into.subarray(0, written)));
  }
  for (const bytes of [[0xff], [0xc3], [0xe2, 0x82], [0x80, 0x41], [0xf0, 0x9f, 0x98, 0x80, 0xc3, 0xa4]]) {
    expect(portableUtf8.decode(Uint8Array.from(bytes))).toBe(decoder.decode(Uint8Array.from(bytes)));
  }
});
