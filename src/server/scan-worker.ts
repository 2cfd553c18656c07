/** The worker thread of scan-thread.ts: runs the vector scan over the rows it is given, in the shared memory. */
import { workerData } from 'node:worker_threads';
import { VECTOR_SCAN_SHARED_WASM } from '../engine/relevance/vector-scan-wasm.js';
import { DONE, IDLE, LISTED, STATE, WORK, type ScanWorkerData } from './scan-thread.js';

const { memory, control, args } = workerData as ScanWorkerData;
const instance = new WebAssembly.Instance(new WebAssembly.Module(VECTOR_SCAN_SHARED_WASM), { env: { memory } });
const scan = instance.exports.scan as (...scanArgs: number[]) => number;
Atomics.store(control, STATE, IDLE);
for (;;) {
  // Asleep until there is work; after DONE, until this thread's result has been read.
  Atomics.wait(control, STATE, IDLE);
  const state = Atomics.load(control, STATE);
  if (state === WORK) {
    Atomics.store(control, LISTED, scan(...args));
    Atomics.store(control, STATE, DONE);
    Atomics.notify(control, STATE);
  } else if (state === DONE) {
    Atomics.wait(control, STATE, DONE);
  }
}
