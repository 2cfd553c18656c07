/**
 * JSON Lines files read in pieces: the same records and the same errors, on the same line numbers, as
 * reading the whole text — lines across piece boundaries, lines longer than a piece, blank lines, CRLF,
 * a last line without a line break, multi-byte characters cut by a boundary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonLinesRecords } from '../../src/cli/data-file.js';
import { generateDataset } from '../../src/engine/index.js';
import { readJsonLines, RowChecker } from '../../src/engine/dataset/read.js';

const dir = mkdtempSync(join(tmpdir(), 'orgindex-data-file-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const records = generateDataset({ count: 60, seed: 5, asOf: '2026-11-01' });
const lines = records.map((record) => JSON.stringify(record));
const text = [
  lines[0],
  '',
  lines[1]!.replace('"name":', '"name":"Zürich Straße — 東京 ✓", "x":') + '\r',
  '{not json',
  '[1, 2]',
  lines[2],
  lines[2],
  JSON.stringify({ ...records[3], summary: 'ä'.repeat(5000) }),
  ...lines.slice(4),
].join('\n');

test.each([7, 64, 1000, 1 << 20])('pieces of %i bytes give what the whole text gives', (chunk) => {
  const path = join(dir, `data-${chunk}.jsonl`);
  writeFileSync(path, text);
  const checker = new RowChecker();
  const streamed = [...jsonLinesRecords(path, checker, chunk)];
  const whole = readJsonLines(text);
  expect(streamed).toEqual(whole.records);
  expect(checker.errors).toEqual(whole.errors);
  expect(checker.errors.map((error) => error.line)).toEqual([3, 4, 5, 7]);
  expect(streamed).toHaveLength(59);
});
