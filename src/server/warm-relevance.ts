/**
 * Builds a store's relevance structures on two threads: the organization vectors (embedded, then coded
 * into scan records) on a worker thread while this one builds the keyword index (each about a second at
 * 100,000 organizations), so that start-up waits for the longer of the two instead of their sum.
 * Otherwise synchronous like warmRelevance(): a request arriving meanwhile waits, and nothing is built
 * twice. The worker writes into shared memory and says how far it got through an Atomics cell. Where the
 * worker's compiled file is absent (the TypeScript sources under a test runner) or the worker fails, the
 * vectors are built on this thread.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { embeddingDims } from '../engine/relevance/embedder.js';
import { scanRecordBytes } from '../engine/relevance/vector-scan.js';
import {
  hasVectors, installVectors, textIndexOf, vectorTextSource, warmRelevance, warmVectors, type VectorTextSource,
} from '../engine/relevance/store-relevance.js';
import type { ColumnStore } from '../engine/store/store.js';

/** What the worker receives: the texts, and the shared memory it fills. */
export interface VectorWorkerData {
  source: VectorTextSource;
  dims: number;
  present: Uint8Array;
  component: Float32Array;
  /** The scan records (vector-scan.ts), their axis units and, last, their decoded peak. */
  records: Uint8Array;
  axisAndPeak: Float64Array;
  /** [0]: LOADING, STARTED once the worker runs, then DONE (or FAILED). */
  state: Int32Array;
}

export const LOADING = 0;
export const STARTED = 1;
export const DONE = 2;
export const FAILED = 3;

/** The longest waits for the worker: to load its modules (a fraction of a second), then to embed (≈ 10 µs a row). */
const START_LIMIT_MS = 20_000;
const workLimitMs = (rows: number): number => 60_000 + rows * 0.2;

/** Returns how many threads built them: 2, or 1 where the worker could not be used. */
export function warmRelevanceOnTwoThreads(store: ColumnStore): 1 | 2 {
  const workerFile = new URL('./vector-worker.js', import.meta.url);
  if (hasVectors(store) || store.size === 0 || !existsSync(fileURLToPath(workerFile))) {
    warmRelevance(store);
    return 1;
  }
  // Not the embedder: decoding its asset here would delay the keyword index.
  const dims = embeddingDims();
  const rows = store.size;
  const shared: VectorWorkerData = {
    source: vectorTextSource(store),
    dims,
    present: new Uint8Array(new SharedArrayBuffer(rows)),
    component: new Float32Array(new SharedArrayBuffer(dims * 4)),
    records: new Uint8Array(new SharedArrayBuffer(scanRecordBytes(rows, dims))),
    axisAndPeak: new Float64Array(new SharedArrayBuffer((dims + 1) * 8)),
    state: new Int32Array(new SharedArrayBuffer(4)),
  };
  // No flags of this process's command line: some are refused in a worker (--input-type).
  const worker = new Worker(workerFile, { workerData: shared, execArgv: [] });
  worker.unref();
  // Its errors are seen through the state cell; a listener keeps them from being thrown here.
  worker.on('error', () => undefined);
  textIndexOf(store).warm();
  const { state } = shared;
  Atomics.wait(state, 0, LOADING, START_LIMIT_MS);
  Atomics.wait(state, 0, STARTED, workLimitMs(rows));
  if (Atomics.load(state, 0) !== DONE) {
    void worker.terminate();
    warmRelevance(store);
    return 1;
  }
  const { present, component, records, axisAndPeak } = shared;
  installVectors(store, { present, component, scan: { rows, dims, records, axis: axisAndPeak.subarray(0, dims), decodedPeak: axisAndPeak[dims] ?? 0 } });
  warmVectors(store);
  return 2;
}
