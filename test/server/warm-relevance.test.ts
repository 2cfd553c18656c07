/**
 * The server's start-up build on two threads (src/server/warm-relevance.ts): the worker runs from the
 * compiled library (a worker thread loads a JavaScript file), so each case runs in a Node process of its
 * own over dist/lib, as `orgindex serve` does, and reports what it found.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { warmRelevanceOnTwoThreads } from '../../src/server/warm-relevance.js';
import { createEngine, generateDataset } from '../../src/index.js';
import { textIndexOf, vectorsOf } from '../../src/engine/relevance/store-relevance.js';

const lib = (path: string): string => pathToFileURL(resolve(__dirname, '../../dist/lib', path)).href;

/** Runs an ES module script over the compiled library; its last output line is JSON. */
function run(script: string): Record<string, unknown> {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
  if (child.status !== 0) throw new Error(`the script failed (${String(child.status)}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

test('two threads build the same vectors as one, and queries over them return the same hits', () => {
  const report = run(`
    import { createEngine, generateDataset } from '${lib('index.js')}';
    import { vectorsOf, warmRelevance } from '${lib('engine/relevance/store-relevance.js')}';
    import { currentRecords } from '${lib('engine/relevance/vector-scan.js')}';
    import { nearest } from '${lib('engine/relevance/vectors.js')}';
    import { warmRelevanceOnTwoThreads } from '${lib('server/warm-relevance.js')}';
    const records = generateDataset({ count: 4000, seed: 5 });
    const one = createEngine(records).store;
    const two = createEngine(records).store;
    warmRelevance(one);
    const threads = warmRelevanceOnTwoThreads(two);
    const a = vectorsOf(one), b = vectorsOf(two);
    const sameVectors = a.matrix.plain().data.every((x, i) => x === b.matrix.plain().data[i]) && a.matrix.present.every((x, i) => x === b.matrix.present[i])
      && a.component.every((x, i) => x === b.component[i])
      && currentRecords(a.matrix.scan).every((x, i) => x === currentRecords(b.matrix.scan)[i]);
    const allowed = new Uint8Array(records.length).fill(1);
    const queries = [3, 333, 3333].map((row) => a.matrix.vector(row));
    let sameHits = true;
    let hits = 0;
    for (const q of queries) {
      const x = nearest(a.matrix, q, 50, allowed, 0.35, one.domainRank), y = nearest(b.matrix, q, 50, allowed, 0.35, two.domainRank);
      sameHits &&= x.total === y.total && x.rows.every((r, i) => r === y.rows[i]) && x.scores.every((s, i) => s === y.scores[i]);
      hits += x.rows.length;
    }
    console.log(JSON.stringify({ threads, sameVectors, sameHits, hits }));
  `);
  expect(report).toEqual({ threads: 2, sameVectors: true, sameHits: true, hits: 150 });
});

test('where the worker file is absent (these TypeScript sources), everything is built on this thread', () => {
  const store = createEngine(generateDataset({ count: 300, seed: 2 })).store;
  expect(warmRelevanceOnTwoThreads(store)).toBe(1);
  expect(textIndexOf(store).docCount).toBe(300);
  expect(vectorsOf(store).matrix.rows).toBe(300);
});
