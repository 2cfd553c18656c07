/**
 * Index snapshots: an index written and read back answers every kind of query exactly as the index it was
 * built from (keyword, semantic, hybrid, filters, stats, fetch, locations), without its index text or any
 * rebuild; a snapshot of another version, or with a file missing, cut short or altered, is refused with
 * what to do.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalIndex, generateDataset, LocalIndex } from '../../src/engine/index.js';
import { serve } from '../../src/cli/serve.js';
import { indexParts } from '../../src/engine/snapshot/index-parts.js';
import { readManifest, readSnapshot, SnapshotError, SNAPSHOT_VERSION, writeSnapshot } from '../../src/server/index-snapshot.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-snapshot-'));
  dirs.push(dir);
  return dir;
};

// A clock that stands still: elapsed_ms is 0 in both answers.
const still = { now: () => 0 };
const original = createLocalIndex(generateDataset({ count: 2_000, seed: 17, asOf: '2026-11-01' }), still);
const dir = join(scratch(), 'index');
const written = writeSnapshot(dir, indexParts(original.store), 'generated 2,000 (seed 17)');
const restored = new LocalIndex(readSnapshot(dir).store, still);

test.each([
  ['keyword', { keywords: { must_any: ['software', 'bakery'] }, size: 50 }],
  ['phrase', { keywords: { must_all: ['"software development"'] }, size: 20 }],
  ['semantic', { describe: 'bakeries that make bread for households', size: 30 }],
  ['hybrid', { keywords: { must_any: ['solar'] }, describe: 'installs solar panels on roofs', size: 30 }],
  ['similar', { similar_to: [{ domain: original.store.domain(7) }], size: 20 }],
  ['filters', { filters: { country: ['Deutschland'], organization_size: ['small'] }, size: 100 }],
  ['filters spelled as users spell them', { filters: { country: ['germany'], state: ['Bavaria'] }, size: 100 }],
])('%s search answers alike', (_name, body) => {
  const answer = original.search(body);
  expect(answer.data.length).toBeGreaterThan(0);
  expect(restored.search(body)).toEqual(answer);
});

test('fetch, stats, filter options and locations answer alike', () => {
  const domains = [original.store.domain(0), original.store.domain(1_999), 'missing.example'];
  expect(restored.fetch({ domains })).toEqual(original.fetch({ domains }));
  for (const body of [{ group_by: 'state' as const, group_by_secondary: 'organization_size' as const }, { group_by: 'company_register_court' as const }]) {
    expect(restored.stats(body)).toEqual(original.stats(body));
  }
  expect(restored.filterOptions()).toEqual(original.filterOptions());
  expect(restored.locationSearch({ q: 'münch' })).toEqual(original.locationSearch({ q: 'münch' }));
});

test('the snapshot keeps no index text, and says what it holds', () => {
  expect(restored.store.indexText).toBeNull();
  expect(original.store.indexText).not.toBeNull();
  const manifest = readManifest(dir);
  expect(manifest).toMatchObject({ version: SNAPSHOT_VERSION, organizations: 2_000, source: 'generated 2,000 (seed 17)' });
  expect(written.files).toBe(manifest.arrays.length + 1);
});

test('the summaries stay in their file, read a row at a time; all of them answer as in memory', () => {
  const { summary } = restored.store.text;
  expect(summary.bytes).not.toBeInstanceOf(Uint8Array);
  expect(readSnapshot(dir, { inMemory: true }).store.text.summary.bytes).toBeInstanceOf(Uint8Array);
  for (let row = 0; row < 2_000; row++) expect(summary.get(row)).toBe(original.store.text.summary.get(row));
  expect(restored.fetch({ domains: [original.store.domain(5)], columns: ['domain', 'summary'] })).toEqual(original.fetch({ domains: [original.store.domain(5)], columns: ['domain', 'summary'] }));
  // A loaded snapshot is served, not written again: its summaries are not in memory to write.
  expect(() => indexParts(restored.store)).toThrow('this column is read from its file on demand; its bytes are not in memory');
});

describe('a snapshot that cannot be trusted is refused, with what to do', () => {
  const copy = (): string => {
    const to = join(scratch(), 'copy');
    writeSnapshot(to, indexParts(original.store), 'copy');
    return to;
  };

  test('another format version', () => {
    const to = copy();
    const manifest = JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8')) as { version: number };
    writeFileSync(join(to, 'manifest.json'), JSON.stringify({ ...manifest, version: SNAPSHOT_VERSION + 1 }));
    expect(() => readSnapshot(to)).toThrow(new SnapshotError(`${to} is an index snapshot of format version ${SNAPSHOT_VERSION + 1}; this orgindex reads version ${SNAPSHOT_VERSION}: rebuild it with this orgindex (orgindex index build)`));
  });

  test('a file altered, cut short or missing; no manifest', () => {
    const altered = copy();
    const file = join(altered, readManifest(altered).arrays[3]!.file);
    const bytes = readFileSync(file);
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    writeFileSync(file, bytes);
    expect(() => readSnapshot(altered)).toThrow(/is damaged: parts\/0003\.bin does not match its checksum; rebuild it/);
    const cut = copy();
    truncateSync(join(cut, readManifest(cut).arrays[5]!.file), 3);
    expect(() => readSnapshot(cut)).toThrow(/is damaged: parts\/0005\.bin has 3 bytes, the manifest says/);
    const missing = copy();
    rmSync(join(missing, readManifest(missing).arrays[0]!.file));
    expect(() => readSnapshot(missing)).toThrow(/is incomplete: parts\/0000\.bin is missing/);
    expect(() => readSnapshot(scratch())).toThrow(/is not an index snapshot \(no manifest\.json\)/);
  });

  test('an existing directory is not overwritten unless asked', () => {
    const to = copy();
    expect(() => writeSnapshot(to, indexParts(original.store), 'again')).toThrow(`${to} exists: give another --out, or --replace to replace it`);
    writeSnapshot(to, indexParts(original.store), 'again', { replace: true });
    expect(readManifest(to).source).toBe('again');
  });
});

describe('orgindex index build, orgindex serve --index', () => {
  const bin = join(__dirname, '../../bin/orgindex.js');

  test('a snapshot built by the command is served as it is; a damaged one stops the start with what to do', async () => {
    const out = join(scratch(), 'built');
    const built = spawnSync(process.execPath, [bin, 'index', 'build', '--count', '400', '--out', out], { encoding: 'utf8' });
    expect(built.status).toBe(0);
    expect(built.stderr).toMatch(/store of 400 organizations built in [\d.]+ s/);
    expect(built.stderr).toContain(`serve it with orgindex serve --index ${out}`);
    expect(readManifest(out).source).toBe('400 generated organizations (seed 20261121)');
    const again = spawnSync(process.execPath, [bin, 'index', 'build', '--count', '400', '--out', out], { encoding: 'utf8' });
    expect([again.status, again.stderr]).toEqual([1, `orgindex index build: ${out} exists: give another --out, or --replace to replace it\n`]);

    const state = scratch();
    writeFileSync(join(state, 'keys.json'), JSON.stringify({ keys: [{ key: 'snapshot-test-key-00000000001', tier: 'tier_2' }] }));
    const lines: string[] = [];
    const running = await serve({ host: '127.0.0.1', port: 0, index: out, keys: join(state, 'keys.json'), stateDir: join(state, 'state'), logLevel: 'silent' }, (line) => lines.push(line));
    try {
      expect(lines.join('\n')).toContain(`index snapshot ${out}`);
      const response = await fetch(`${running.url}/v2/search`, {
        method: 'POST',
        headers: { 'x-api-key': 'snapshot-test-key-00000000001', 'content-type': 'application/json' },
        body: JSON.stringify({ describe: 'software for accountants', size: 5 }),
      });
      const answer = (await response.json()) as { data: unknown[]; metadata: { mode: string } };
      expect([response.status, answer.metadata.mode, answer.data.length]).toEqual([200, 'semantic', 5]);
    } finally {
      await running.close();
    }

    rmSync(join(out, readManifest(out).arrays[2]!.file));
    const refused = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--index', out, '--state-dir', join(state, 'refused')], { encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`orgindex: index snapshot ${out} is incomplete: parts/0002.bin is missing; rebuild it with orgindex index build`);
    const both = spawnSync(process.execPath, [bin, 'serve', '--index', out, '--count', '5'], { encoding: 'utf8' });
    expect([both.status, both.stderr]).toEqual([2, 'give one of --index, --data and --count\n']);
  }, 60_000);
});
