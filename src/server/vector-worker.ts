/** The worker thread of warm-relevance.ts: embeds the organizations and codes their vectors into the shared memory it was given. */
import { workerData } from 'node:worker_threads';
import { sifGloveEmbedder } from '../engine/relevance/embedder.js';
import { buildVectors, vectorTexts } from '../engine/relevance/store-relevance.js';
import { DONE, FAILED, STARTED, type VectorWorkerData } from './warm-relevance.js';

const { source, dims, present, component, records, axisAndPeak, state } = workerData as VectorWorkerData;
Atomics.store(state, 0, STARTED);
try {
  const { scan, component: made } = buildVectors(present.length, vectorTexts(source), sifGloveEmbedder(), { present, records });
  component.set(made);
  axisAndPeak.set(scan.axis);
  axisAndPeak[dims] = scan.decodedPeak;
  Atomics.store(state, 0, DONE);
} catch {
  Atomics.store(state, 0, FAILED);
}
Atomics.notify(state, 0);
