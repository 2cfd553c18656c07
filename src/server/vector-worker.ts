/** The worker thread of warm-relevance.ts: embeds the organizations and codes their vectors into the shared memory it was given. */
import { workerData } from 'node:worker_threads';
import { sifGloveEmbedder } from '../engine/relevance/embedder.js';
import { buildVectors, storeVectors, vectorTexts } from '../engine/relevance/store-relevance.js';
import { DONE, FAILED, STARTED, type VectorWorkerData } from './warm-relevance.js';

const { source, dims, present, component, records, axisAndPeak, state } = workerData as VectorWorkerData;
Atomics.store(state, 0, STARTED);
try {
  const built = buildVectors(present.length, vectorTexts(source), sifGloveEmbedder(), { data: new Float32Array(present.length * dims), present });
  const { scan } = storeVectors(built, records);
  component.set(built.component);
  axisAndPeak.set(scan.axis);
  axisAndPeak[dims] = scan.decodedPeak;
  Atomics.store(state, 0, DONE);
} catch {
  Atomics.store(state, 0, FAILED);
}
Atomics.notify(state, 0);
