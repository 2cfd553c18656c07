/** The worker thread of part-reader.ts (loaded by its bootstrap): reads and checksums the snapshot files it is handed, one at a time. */
import { workerData } from 'node:worker_threads';
import { EVENTS, READY, readPartFile, type PartAnswer, type PartJob, type PartReaderData } from './part-reader.js';

const { port, cells, slot } = workerData as PartReaderData;
const signal = (): void => {
  Atomics.add(cells, EVENTS, 1);
  Atomics.notify(cells, EVENTS);
};
port.on('message', (job: PartJob) => {
  let answer: PartAnswer;
  try {
    answer = { id: job.id, read: readPartFile(job) };
  } catch {
    answer = { id: job.id, failed: true };
  }
  const buffer = 'read' in answer && !answer.read.short ? answer.read.buffer : null;
  port.postMessage(answer, buffer ? [buffer] : []);
  signal();
});
Atomics.store(cells, slot, READY);
signal();
