/**
 * Snapshot files read and checksummed on worker threads (src/server/part-reader.ts): the workers run from
 * the compiled library (a worker thread loads a JavaScript file), so the cases with workers run in a Node
 * process of their own over dist/lib, as `orgindex serve` does, and report what they found. Every way of
 * reading gives the same bytes and checksums: on workers, on this thread, and when a worker cannot start
 * or dies with a file in hand (this thread reads it instead); a damaged file is still refused by name.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readPartFile, readPartFiles } from '../../src/server/part-reader.js';

const lib = (path: string): string => pathToFileURL(resolve(__dirname, '../../dist/lib', path)).href;
const scratch = mkdtempSync(join(tmpdir(), 'orgindex-part-reader-'));
afterAll(() => { rmSync(scratch, { recursive: true, force: true }); });

/** Runs an ES module script over the compiled library; its last output line is JSON. */
function run(script: string): Record<string, unknown> {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
  if (child.status !== 0) throw new Error(`the script failed (${String(child.status)}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

/** Writes files of these sizes, distinct bytes each; their paths. */
function writeFiles(sizes: number[]): string[] {
  return sizes.map((size, i) => {
    const path = join(scratch, `${i}-${size}.bin`);
    writeFileSync(path, Uint8Array.from({ length: size }, (_, at) => (at * 7 + i * 13) & 0xff));
    return path;
  });
}

/**
 * Reads files of these sizes with `readPartFiles(files, OPTIONS)` in a process of its own: the second read
 * for its checksum only, the third into shared memory, the fourth into memory of that thread only, the rest
 * kept in buffers of their own. Reports, for each, whether the checksum and the bytes are right.
 */
function readInProcess(sizes: number[], options: string): Record<string, unknown> {
  return run(`
    import { createHash } from 'node:crypto';
    import { openSync, readFileSync } from 'node:fs';
    import { readPartFiles } from '${lib('server/part-reader.js')}';
    const paths = ${JSON.stringify(writeFiles(sizes))};
    const files = paths.map((path, i) => {
      const size = readFileSync(path).length;
      const into = i === 1 ? 'check' : i === 2 ? new Uint8Array(new SharedArrayBuffer(size)) : i === 3 ? new Uint8Array(size) : 'keep';
      return { fd: openSync(path, 'r'), size, into };
    });
    const reads = readPartFiles(files, ${options});
    const right = reads.map((read, i) => {
      const bytes = readFileSync(paths[i]);
      if (read.short) return 'short';
      const held = files[i].into === 'keep' ? new Uint8Array(read.buffer) : files[i].into === 'check' ? null : files[i].into;
      const sameBytes = held === null ? read.buffer === null : Buffer.compare(Buffer.from(held), bytes) === 0;
      return read.sha256 === createHash('sha256').update(bytes).digest('hex') && sameBytes ? 'right' : 'wrong';
    });
    console.log(JSON.stringify({ right }));
  `);
}

/** A worker module that says which files it is handed, then works as the real one. */
function tellingWorker(): string {
  const path = join(scratch, 'telling-worker.mjs');
  writeFileSync(path, `
    import { writeSync } from 'node:fs';
    import { workerData } from 'node:worker_threads';
    workerData.port.on('message', (job) => writeSync(1, 'handed ' + job.id + '\\n'));
    await import('${lib('server/part-reader-worker.js')}');
  `);
  return path;
}

// Above the 16 MB in all from which the workers are started.
const SIZES = [9_000_000, 5_000_001, 1_234_567, 777_777, 0, 1, 65_536, 2_000_000];

test('on worker threads, every file is read and checksummed as on this thread, into the place it goes', () => {
  const report = readInProcess(SIZES, '{}');
  expect(report).toEqual({ right: SIZES.map(() => 'right') });
});

test('the workers are handed every file but one in memory of this thread only, largest first', () => {
  const path = tellingWorker();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { openSync, readFileSync } from 'node:fs';
    import { readPartFiles } from '${lib('server/part-reader.js')}';
    const paths = ${JSON.stringify(writeFiles(SIZES))};
    const files = paths.map((path, i) => {
      const size = readFileSync(path).length;
      return { fd: openSync(path, 'r'), size, into: i === 3 ? new Uint8Array(size) : 'keep' };
    });
    readPartFiles(files, { workerFile: new URL(${JSON.stringify(pathToFileURL(path).href)}), threads: 2 });
  `], { encoding: 'utf8', timeout: 120_000 });
  expect(child.stderr).toBe('');
  const handed = child.stdout.trim().split('\n').map((line) => Number(line.replace('handed ', '')));
  expect([...handed].sort((a, b) => a - b)).toEqual([0, 1, 2, 4, 5, 6, 7]);
  // Each worker takes the largest file left when it is free: the two largest go first.
  expect(handed.slice(0, 2).sort()).toEqual([0, 1]);
});

test('a few small files are read on this thread: starting workers would cost more', () => {
  const path = tellingWorker();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { openSync, readFileSync } from 'node:fs';
    import { readPartFiles } from '${lib('server/part-reader.js')}';
    const paths = ${JSON.stringify(writeFiles([1_000_000, 2_000_000]))};
    const reads = readPartFiles(paths.map((path) => ({ fd: openSync(path, 'r'), size: readFileSync(path).length, into: 'keep' })), { workerFile: new URL(${JSON.stringify(pathToFileURL(path).href)}), threads: 2 });
    console.log(reads.map((read) => read.buffer.byteLength).join(' '));
  `], { encoding: 'utf8', timeout: 120_000 });
  expect(child.stderr).toBe('');
  expect(child.stdout.trim()).toBe('1000000 2000000');
});

test('a worker that cannot start: this thread reads every file', () => {
  const path = join(scratch, 'failing-worker.mjs');
  writeFileSync(path, "throw new Error('this worker fails as it starts');\n");
  const report = readInProcess(SIZES, `{ workerFile: new URL(${JSON.stringify(pathToFileURL(path).href)}) }`);
  expect(report).toEqual({ right: SIZES.map(() => 'right') });
});

test('a worker that dies with a file in hand, or fails to read it: this thread reads it', () => {
  // It says READY, as the real worker does; then it dies at the first file, or answers that it failed.
  for (const [name, onJob] of [['dying', 'process.exit(3);'], ['failing', "port.postMessage({ id: job.id, failed: true }); Atomics.add(cells, 0, 1); Atomics.notify(cells, 0);"]] as const) {
    const path = join(scratch, `${name}-worker.mjs`);
    writeFileSync(path, `
      import { workerData } from 'node:worker_threads';
      const { port, cells, slot } = workerData;
      port.on('message', (job) => { ${onJob} });
      Atomics.store(cells, slot, 1);
      Atomics.add(cells, 0, 1);
      Atomics.notify(cells, 0);
    `);
    const report = readInProcess(SIZES, `{ workerFile: new URL(${JSON.stringify(pathToFileURL(path).href)}) }`);
    expect(report).toEqual({ right: SIZES.map(() => 'right') });
  }
});

test('a damaged file read on a worker is refused with its part and file, as on this thread', () => {
  const report = run(`
    import { readFileSync, writeFileSync } from 'node:fs';
    import { join } from 'node:path';
    import { createEngine, generateDataset } from '${lib('index.js')}';
    import { indexParts } from '${lib('engine/snapshot/index-parts.js')}';
    import { readManifest, readSnapshot, writeSnapshot } from '${lib('server/index-snapshot.js')}';
    const dir = join(${JSON.stringify(scratch)}, 'snapshot');
    // Above the 16 MB from which the files are read on workers.
    const written = writeSnapshot(dir, indexParts(createEngine(generateDataset({ count: 24000, seed: 3 })).store), 'generated 24,000');
    const loaded = readSnapshot(dir).store.size;
    const file = join(dir, readManifest(dir).arrays[3].file);
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);
    let refused = '';
    try {
      readSnapshot(dir);
    } catch (error) {
      refused = error.message;
    }
    console.log(JSON.stringify({ loaded, onWorkers: written.bytes >= 16 << 20, refused }));
  `);
  const dir = join(scratch, 'snapshot');
  expect(report).toEqual({ loaded: 24_000, onWorkers: true, refused: `index snapshot ${dir}: part store.domainSlots (file parts/0003.bin): does not match its checksum; rebuild it with orgindex index build` });
});

test('without the worker file (these TypeScript sources), every file is read on this thread', () => {
  const path = join(scratch, 'here.bin');
  writeFileSync(path, Uint8Array.from({ length: 100_000 }, (_, at) => at & 0xff));
  const fd = openSync(path, 'r');
  try {
    const reads = readPartFiles([
      { fd, size: 100_000, into: 'keep' },
      { fd, size: 100_000, into: 'check' },
    ]);
    const sha256 = createHash('sha256').update(Uint8Array.from({ length: 100_000 }, (_, at) => at & 0xff)).digest('hex');
    expect(reads.map((read) => (read.short ? 'short' : read.sha256))).toEqual([sha256, sha256]);
    expect(readPartFile({ fd, size: 100_001, into: 'keep' })).toEqual({ short: true });
  } finally {
    closeSync(fd);
  }
});
