/** The worker thread of warm-relevance.ts: embeds the organizations into the shared memory it was given. */
import { parentPort, workerData } from 'node:worker_threads';
import { sifGloveEmbedder } from '../engine/relevance/embedder.js';
import { buildVectors, vectorTexts } from '../engine/relevance/store-relevance.js';
import { scanRecords } from '../engine/relevance/vector-scan.js';
import { FAILED, RECORDS_DONE, STARTED, VECTORS_DONE, type VectorWorkerData } from './warm-relevance.js';

const { source, data, present, component, scan, state } = workerData as VectorWorkerData;
Atomics.store(state, 0, STARTED);
try {
  const built = buildVectors(present.length, vectorTexts(source), sifGloveEmbedder(), { data, present });
  component.set(built.component);
  Atomics.store(state, 0, VECTORS_DONE);
  Atomics.notify(state, 0);
  if (scan) {
    const made = scanRecords(built.dims, data, present, scan.records);
    scan.axisAndPeak.set(made.axis);
    scan.axisAndPeak[built.dims] = made.decodedPeak;
    Atomics.store(state, 0, RECORDS_DONE);
    Atomics.notify(state, 0);
    parentPort?.postMessage('records');
  }
} catch {
  Atomics.store(state, 0, FAILED);
  Atomics.notify(state, 0);
}
