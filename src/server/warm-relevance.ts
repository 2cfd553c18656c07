/**
 * Builds a store's relevance structures on two threads: the organization vectors on a worker thread while
 * this one builds the keyword index (each about a second at 100,000 organizations), so that start-up
 * waits for the longer of the two instead of their sum; the worker then makes the vector scan's records,
 * which a query arriving before they are done waits for. Otherwise synchronous like warmRelevance(): a
 * request arriving meanwhile waits, and nothing is built twice. The worker writes into shared memory and
 * says how far it got through an Atomics cell. Where the worker's compiled file is absent (the TypeScript
 * sources under a test runner) or the worker fails, the vectors are built on this thread.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { embeddingDims } from '../engine/relevance/embedder.js';
import { scanRecordBytes, vectorScanSupported } from '../engine/relevance/vector-scan.js';
import {
  hasVectors, installVectors, textIndexOf, vectorsOf, vectorTextSource, warmRelevance, type VectorTextSource,
} from '../engine/relevance/store-relevance.js';
import type { ColumnStore } from '../engine/store/store.js';

/** What the worker receives: the texts, and the shared memory it fills. */
export interface VectorWorkerData {
  source: VectorTextSource;
  data: Float32Array;
  present: Uint8Array;
  component: Float32Array;
  /** The WebAssembly scan's records (null where it cannot run), their axis units and, last, their decoded peak. */
  scan: { records: Uint8Array; axisAndPeak: Float64Array } | null;
  /** [0]: LOADING, STARTED once the worker runs, VECTORS_DONE, then RECORDS_DONE (or FAILED at any step). */
  state: Int32Array;
}

export const LOADING = 0;
export const STARTED = 1;
export const VECTORS_DONE = 2;
export const RECORDS_DONE = 3;
export const FAILED = 4;

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
    data: new Float32Array(new SharedArrayBuffer(rows * dims * 4)),
    present: new Uint8Array(new SharedArrayBuffer(rows)),
    component: new Float32Array(new SharedArrayBuffer(dims * 4)),
    scan: vectorScanSupported()
      ? { records: new Uint8Array(new SharedArrayBuffer(scanRecordBytes(rows, dims))), axisAndPeak: new Float64Array(new SharedArrayBuffer((dims + 1) * 8)) }
      : null,
    state: new Int32Array(new SharedArrayBuffer(4)),
  };
  // No flags of this process's command line: some are refused in a worker (--input-type).
  const worker = new Worker(workerFile, { workerData: shared, execArgv: [] });
  worker.unref();
  // Its errors are seen through the state cell; a listener keeps them from being thrown here.
  worker.on('error', () => undefined);
  textIndexOf(store);
  const { state } = shared;
  Atomics.wait(state, 0, LOADING, START_LIMIT_MS);
  Atomics.wait(state, 0, STARTED, workLimitMs(rows));
  const reached = Atomics.load(state, 0);
  if (reached !== VECTORS_DONE && reached !== RECORDS_DONE) {
    void worker.terminate();
    warmRelevance(store);
    return 1;
  }
  const { data, present, component, scan } = shared;
  installVectors(store, { dims, data, present, component });
  if (scan) {
    // The worker codes the scan records last: nothing waits for them but a query arriving first.
    const { matrix } = vectorsOf(store);
    matrix.expectScan(() => {
      Atomics.wait(state, 0, VECTORS_DONE, workLimitMs(rows));
      if (Atomics.load(state, 0) !== RECORDS_DONE) return null;
      return { rows, dims, records: scan.records, axis: scan.axisAndPeak.subarray(0, dims), decodedPeak: scan.axisAndPeak[dims] ?? 0 };
    });
    worker.once('message', () => {
      matrix.prepareScan();
    });
  }
  return 2;
}
