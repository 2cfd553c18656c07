/**
 * Index snapshots: an index written and read back answers every kind of query exactly as the index it was
 * built from (keyword, semantic, hybrid, filters, stats, fetch, locations), without its index text or any
 * rebuild (its name groups for dedup and its scan records loaded as they are); a snapshot of another
 * version, or with a file missing, cut short or altered, is refused with what to do — and so is a manifest
 * edited by hand with its checksums made to match (a file outside the snapshot, a part of another kind,
 * parts that do not fit together), each refusal naming the part.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createEngine, generateDataset, Engine } from '../../src/engine/index.js';
import { serve } from '../../src/cli/serve.js';
import { indexParts } from '../../src/engine/snapshot/index-parts.js';
import { postingsOf } from '../../src/engine/store/postings.js';
import { duplicateNameGroups } from '../../src/engine/store/name-groups.js';
import { storedVectorsOf } from '../../src/engine/relevance/store-relevance.js';
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
const original = createEngine(generateDataset({ count: 2_000, seed: 17, asOf: '2026-11-01' }), still);
const dir = join(scratch(), 'index');
const written = writeSnapshot(dir, indexParts(original.store), 'generated 2,000 (seed 17)');
const restored = new Engine(readSnapshot(dir).store, still);

test.each([
  ['keyword', { keywords: { must_any: ['software', 'bakery'] }, size: 50 }],
  ['phrase', { keywords: { must_all: ['"software development"'] }, size: 20 }],
  ['semantic', { describe: 'bakeries that make bread for households', size: 30 }],
  ['hybrid', { keywords: { must_any: ['solar'] }, describe: 'installs solar panels on roofs', size: 30 }],
  ['similar', { similar_to: [{ domain: original.store.domain(7) }], size: 20 }],
  ['filters', { filters: { country: ['Deutschland'], organization_size: ['small'] }, size: 100 }],
  ['filters spelled as users spell them', { filters: { country: ['germany'], state: ['Bavaria'] }, size: 100 }],
  ['selective filters through the postings', { filters: { municipality: ['München'], organization_size: ['small', 'micro'] }, size: 100 }],
  ['a tag and register dates', { filters: { summary_keywords: ['retail'], register_date_from: '2000-01-01' }, size: 100 }],
  ['a court and register dates on the same registration', { filters: { company_register_court: ['Amtsgericht München'], register_date_from: '2010-01-01' }, size: 100 }],
  ['dedup', { keywords: { must_any: ['software', 'bakery'] }, dedup: true, size: 100 }],
  ['dedup in filter mode', { filters: { country: ['Deutschland'] }, dedup: true, size: 100 }],
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

test('the filter postings come with the snapshot, not rebuilt, and equal the built ones', () => {
  const loaded = postingsOf(restored.store);
  const built = postingsOf(original.store).parts();
  // Taken from the parts as they were read: installed views of the files' arrays, equal to the built ones.
  expect(loaded.parts()).toEqual(built);
  expect(loaded.bytes()).toBeGreaterThan(0);
});

test('the snapshot keeps no index text, and says what it holds', () => {
  expect(restored.store.indexText).toBeNull();
  expect(original.store.indexText).not.toBeNull();
  const manifest = readManifest(dir);
  expect(manifest).toMatchObject({ version: SNAPSHOT_VERSION, organizations: 2_000, source: 'generated 2,000 (seed 17)' });
  expect(written.files).toBe(manifest.arrays.length + 1);
});

test('a loaded store has the name groups of dedup from the snapshot, equal to those computed, and its scan records in the scan\'s memory', () => {
  const computed = duplicateNameGroups(original.store);
  expect(computed.starts.length).toBeGreaterThan(10);
  const loaded = readSnapshot(dir).store;
  // Given up as read: the records were read into the scan's memory, not into an array of their own.
  expect(storedVectorsOf(loaded).scan.records.length).toBe(0);
  expect(duplicateNameGroups(loaded)).toEqual(computed);
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
    expect(() => readSnapshot(altered)).toThrow(`index snapshot ${altered}: part store.domainSlots (file parts/0003.bin): does not match its checksum; rebuild it with orgindex index build`);
    const names = copy();
    const listed = readManifest(names);
    const last = listed.arrays[(listed.parts as { names: { rows: { $array: number } } }).names.rows.$array]!;
    const groups = readFileSync(join(names, last.file));
    groups[0] = (groups[0] ?? 0) ^ 0xff;
    writeFileSync(join(names, last.file), groups);
    expect(() => readSnapshot(names)).toThrow(`index snapshot ${names}: part names.rows (file ${last.file}): does not match its checksum; rebuild it with orgindex index build`);
    const cut = copy();
    truncateSync(join(cut, readManifest(cut).arrays[5]!.file), 3);
    expect(() => readSnapshot(cut)).toThrow(/: part store\.domainRank \(file parts\/0005\.bin\): has 3 bytes, the manifest says 8000;/);
    const missing = copy();
    rmSync(join(missing, readManifest(missing).arrays[0]!.file));
    expect(() => readSnapshot(missing)).toThrow(`index snapshot ${missing} is incomplete: parts/0000.bin (part store.domains.offsets) is missing; rebuild it with orgindex index build`);
    expect(() => readSnapshot(scratch())).toThrow(/is not an index snapshot \(no manifest\.json\)/);
  });

  test('an existing directory is not overwritten unless asked', () => {
    const to = copy();
    expect(() => writeSnapshot(to, indexParts(original.store), 'again')).toThrow(`${to} exists: give another --out, or --replace to replace it`);
    writeSnapshot(to, indexParts(original.store), 'again', { replace: true });
    expect(readManifest(to).source).toBe('again');
  });
});

/**
 * A manifest edited by hand, its checksums and byte counts made to match: a checksum ties a file to its
 * manifest and no more, so each of these would be served (or crash) if the manifest were trusted.
 */
describe('a hand-edited manifest with matching checksums is refused, naming the part', () => {
  interface Entry {
    file: string;
    type: string;
    bytes: number;
    sha256: string;
  }
  interface Manifest {
    version: unknown;
    parts: Record<string, unknown>;
    arrays: Entry[];
  }
  const copy = (): string => {
    const to = join(scratch(), 'edited');
    writeSnapshot(to, indexParts(original.store), 'edited');
    return to;
  };
  const manifestOf = (to: string): Manifest => JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8')) as Manifest;
  const save = (to: string, manifest: unknown): void => {
    writeFileSync(join(to, 'manifest.json'), JSON.stringify(manifest));
  };
  /** The list entry and the shape's reference of a part, by its path ("vectors.component"). */
  const partOf = (manifest: Manifest, path: string): { ref: { $array: number; type: string }; entry: Entry } => {
    const ref = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], manifest.parts) as { $array: number; type: string };
    return { ref, entry: manifest.arrays[ref.$array]! };
  };
  /** Gives a part new bytes, with the length and checksum in the manifest to match. */
  const rewrite = (to: string, manifest: Manifest, path: string, bytes: Uint8Array): void => {
    const { entry } = partOf(manifest, path);
    writeFileSync(join(to, entry.file), bytes);
    entry.bytes = bytes.length;
    entry.sha256 = createHash('sha256').update(bytes).digest('hex');
  };

  test('a part file outside the snapshot directory: a path out of it, or a symbolic link leading out', () => {
    const to = copy();
    const manifest = manifestOf(to);
    // A file elsewhere, of the part's kind and size, its checksum in the manifest.
    const elsewhere = join(scratch(), 'elsewhere.bin');
    copyFileSync(join(to, manifest.arrays[3]!.file), elsewhere);
    manifest.arrays[3]!.file = relative(to, elsewhere);
    save(to, manifest);
    expect(manifest.arrays[3]!.file).toMatch(/^\.\.\//);
    expect(() => readSnapshot(to)).toThrow(`${join(to, 'manifest.json')} is damaged: arrays.3.file: is not a file of the snapshot's parts/ folder (parts/NNNN.bin); rebuild the snapshot with orgindex index build`);

    // The same bytes outside, linked from inside: every checksum holds, the place does not.
    const linked = copy();
    const file = join(linked, readManifest(linked).arrays[3]!.file);
    const away = join(scratch(), 'away.bin');
    copyFileSync(file, away);
    rmSync(file);
    symlinkSync(away, file);
    expect(() => readSnapshot(linked)).toThrow(`index snapshot ${linked}: part store.domainSlots (file parts/0003.bin): its file leads out of the snapshot directory; rebuild it with orgindex index build`);
  });

  test('a part retyped: in the shape and the list alike, or in the list only', () => {
    const to = copy();
    const manifest = manifestOf(to);
    const { ref, entry } = partOf(manifest, 'vectors.component');
    ref.type = entry.type = 'Uint8Array';
    save(to, manifest);
    expect(() => readSnapshot(to)).toThrow(`part vectors.component (file ${entry.file}): declared Uint8Array, this orgindex reads Float32Array`);

    const listed = copy();
    const other = manifestOf(listed);
    const lat = partOf(other, 'store.lat').entry;
    lat.type = 'Uint8Array';
    save(listed, other);
    expect(() => readSnapshot(listed)).toThrow(`index snapshot ${listed}: part store.lat (file ${lat.file}): declared Uint8Array, this orgindex reads Float64Array; rebuild it with orgindex index build`);
  });

  test('parts that do not fit together: every domain emptied, offsets read as another kind', () => {
    const to = copy();
    const manifest = manifestOf(to);
    rewrite(to, manifest, 'store.domains.offsets', new Uint8Array(4 * 2_001));
    rewrite(to, manifest, 'store.domains.bytes', new Uint8Array(0));
    save(to, manifest);
    expect(() => readSnapshot(to)).toThrow(`index snapshot ${to}: part store.domains.offsets (file ${partOf(manifest, 'store.domains.offsets').entry.file}): row 0 is empty; rebuild it with orgindex index build`);

    // Float64 offsets are the engine's for columns past 4 GiB: over a small column they read as zeros.
    const retyped = copy();
    const other = manifestOf(retyped);
    const name = partOf(other, 'store.text.name.offsets');
    rewrite(retyped, other, 'store.text.name.offsets', readFileSync(join(retyped, name.entry.file)).subarray(0, 8 * 1_000));
    name.ref.type = name.entry.type = 'Float64Array';
    save(retyped, other);
    expect(() => readSnapshot(retyped)).toThrow(`part store.text.name.offsets (file ${name.entry.file}): declared Float64Array, this orgindex reads Uint32Array for`);
  });

  test('a dictionary code past its dictionary, as 16-bit and as 32-bit codes', () => {
    for (const type of ['Uint16Array', 'Uint32Array'] as const) {
      const to = copy();
      const manifest = manifestOf(to);
      const codes = partOf(manifest, 'store.categorical.organization_size.codes');
      const stored = readFileSync(join(to, codes.entry.file));
      const values = type === 'Uint16Array' ? new Uint16Array(stored.buffer.slice(stored.byteOffset, stored.byteOffset + stored.length)) : Uint32Array.from(new Uint16Array(stored.buffer.slice(stored.byteOffset, stored.byteOffset + stored.length)));
      values[1_234] = 65_535;
      rewrite(to, manifest, 'store.categorical.organization_size.codes', new Uint8Array(values.buffer));
      codes.ref.type = codes.entry.type = type;
      save(to, manifest);
      expect(() => readSnapshot(to)).toThrow(`index snapshot ${to}: part store.categorical.organization_size.codes (file ${codes.entry.file}): value 1234 is 65535, past its `);
    }
  });

  test('filter postings that do not fit the store: a position past its end, a list out of order, a bitmap with a bit too many', () => {
    const to = copy();
    const manifest = manifestOf(to);
    const positions = partOf(manifest, 'postings.columns.municipality.positions');
    const bytes = readFileSync(join(to, positions.entry.file));
    const past = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    past[0] = 2_000;
    rewrite(to, manifest, 'postings.columns.municipality.positions', new Uint8Array(past.buffer));
    save(to, manifest);
    expect(() => readSnapshot(to)).toThrow(`index snapshot ${to}: part postings.columns.municipality.positions (file ${positions.entry.file}): value 0 is position 2000 of 2000; rebuild it with orgindex index build`);

    const swapped = copy();
    const other = manifestOf(swapped);
    const list = partOf(other, 'postings.tags.positions');
    const tags = readFileSync(join(swapped, list.entry.file));
    const order = new Uint32Array(tags.buffer.slice(tags.byteOffset, tags.byteOffset + tags.length));
    [order[0], order[1]] = [order[1]!, order[0]!];
    rewrite(swapped, other, 'postings.tags.positions', new Uint8Array(order.buffer));
    save(swapped, other);
    expect(() => readSnapshot(swapped)).toThrow(`part postings.tags.positions (file ${list.entry.file}): value 1 does not ascend`);

    const flipped = copy();
    const third = manifestOf(flipped);
    const dense = partOf(third, 'postings.columns.country.denseBits');
    const words = readFileSync(join(flipped, dense.entry.file));
    const bits = new Uint32Array(words.buffer.slice(words.byteOffset, words.byteOffset + words.length));
    bits[0] = bits[0]! ^ 1;
    rewrite(flipped, third, 'postings.columns.country.denseBits', new Uint8Array(bits.buffer));
    save(flipped, third);
    expect(() => readSnapshot(flipped)).toThrow(`part postings.columns.country.denseBits (file ${dense.entry.file}): value`);
  });

  test('name groups are served as the snapshot has them, and refused where they do not fit the rows', () => {
    const groups = duplicateNameGroups(original.store);
    const bytesOf = (values: Uint32Array): Uint8Array => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    // No group at all, and consistent: served as it is, not computed again.
    const none = copy();
    const empty = manifestOf(none);
    rewrite(none, empty, 'names.groupOf', bytesOf(new Uint32Array(2_000)));
    rewrite(none, empty, 'names.starts', bytesOf(Uint32Array.of(0, 0)));
    rewrite(none, empty, 'names.rows', new Uint8Array(0));
    save(none, empty);
    expect(duplicateNameGroups(readSnapshot(none).store).starts).toEqual(Uint32Array.of(0, 0));

    const first = groups.rows[groups.starts[1]!]!;
    const moved = copy();
    const manifest = manifestOf(moved);
    const groupOf = groups.groupOf.slice();
    groupOf[first] = 2;
    rewrite(moved, manifest, 'names.groupOf', bytesOf(groupOf));
    save(moved, manifest);
    expect(() => readSnapshot(moved)).toThrow(`index snapshot ${moved}: part names.groupOf (file ${partOf(manifest, 'names.groupOf').entry.file}): puts row ${first} in group 2, names.rows in group 1; rebuild it with orgindex index build`);

    const swapped = copy();
    const other = manifestOf(swapped);
    const rows = groups.rows.slice();
    [rows[0], rows[1]] = [rows[1]!, rows[0]!];
    rewrite(swapped, other, 'names.rows', bytesOf(rows));
    save(swapped, other);
    expect(() => readSnapshot(swapped)).toThrow(`index snapshot ${swapped}: part names.rows (file ${partOf(other, 'names.rows').entry.file}): group 1 is not in domain order; rebuild it with orgindex index build`);
  });

  test('a byte count that is no whole number of elements', () => {
    const to = copy();
    const manifest = manifestOf(to);
    const { entry } = partOf(manifest, 'store.byDomain');
    rewrite(to, manifest, 'store.byDomain', readFileSync(join(to, entry.file)).subarray(0, 7));
    save(to, manifest);
    expect(() => readSnapshot(to)).toThrow(`index snapshot ${to}: part store.byDomain (file ${entry.file}): 7 bytes are not a whole number of Uint32Array elements (4 bytes each); rebuild it with orgindex index build`);
  });

  test('odd manifests: the version as a string, null, a deep nesting, an oversized file', () => {
    const to = copy();
    const manifest = manifestOf(to);
    save(to, { ...manifest, version: String(SNAPSHOT_VERSION) });
    expect(() => readSnapshot(to)).toThrow(`${join(to, 'manifest.json')} is damaged: its format version is "${SNAPSHOT_VERSION}", not a number; rebuild the snapshot with orgindex index build`);
    save(to, null);
    expect(() => readSnapshot(to)).toThrow(`${to} is not an OrgIndex index snapshot (its manifest.json names no format orgindex-index-snapshot)`);
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    writeFileSync(join(to, 'manifest.json'), JSON.stringify({ ...manifest, parts: { ...manifest.parts, store: 0 } }).replace('"store":0', `"store":${deep}`));
    expect(() => readSnapshot(to)).toThrow(/manifest\.json is damaged: parts\.store\.size: Invalid input: expected number, received undefined; .*rebuild the snapshot/);
    writeFileSync(join(to, 'manifest.json'), JSON.stringify({ ...manifest, source: 'x'.repeat(2 << 20) }));
    expect(() => readSnapshot(to)).toThrow(/manifest\.json is damaged: \d+ bytes, a manifest has at most 1048576/);
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
    expect(refused.stderr).toContain(`orgindex: index snapshot ${out} is incomplete: parts/0002.bin (part vectors.scan.axis) is missing; rebuild it with orgindex index build`);
    const both = spawnSync(process.execPath, [bin, 'serve', '--index', out, '--count', '5'], { encoding: 'utf8' });
    expect([both.status, both.stderr]).toEqual([2, 'give one of --index, --data and --count\n']);
  }, 60_000);
});
