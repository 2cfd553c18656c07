/**
 * The vector scan on two threads (vector-scan.ts's ScanHelper): a worker thread holds an instance of the
 * scan module over the same shared memory and, for each large scan, runs it over the second half of the
 * rows while this thread runs the first. Synchronous like the rest of a search: this thread waits for the
 * worker through an Atomics cell (a few microseconds to wake it), so a scan of 20,000,000 rows takes
 * about half the time on two cores. Where the worker's compiled file is absent (the TypeScript sources
 * under a test runner), shared memory cannot be made, or the worker fails, the scan stays on one thread.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { shareScan, type ScanHelper } from '../engine/relevance/vector-scan.js';

/** What the worker receives. */
export interface ScanWorkerData {
  memory: WebAssembly.Memory;
  /** [STATE]: LOADING, then IDLE, WORK (arguments written) and DONE in turn; [LISTED]: the rows a scan listed. */
  control: Int32Array;
  /** The scan's arguments (vector-scan.ts's `scan` export). */
  args: Float64Array;
}

export const STATE = 0;
export const LISTED = 1;
export const LOADING = 0;
export const IDLE = 1;
export const WORK = 2;
export const DONE = 3;
/** The module's scan takes 17 arguments. */
const ARGS = 17;
/** The longest wait for the worker's half: far above any scan (about 15 ns a row), so only a worker that is gone reaches it. */
const finishLimitMs = (rows: number): number => 10_000 + rows * 0.001;

let started = false;

/**
 * Starts the scan thread (once a process: a later call returns true at once); false where the scan stays on
 * one thread (one core, no worker file, no shared memory).
 */
export function startScanThread(): boolean {
  if (started) return true;
  const workerFile = new URL('./scan-worker.js', import.meta.url);
  if (availableParallelism() < 2 || !existsSync(fileURLToPath(workerFile))) return false;
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: 1, maximum: 65_536, shared: true });
  } catch {
    return false;
  }
  const data: ScanWorkerData = { memory, control: new Int32Array(new SharedArrayBuffer(8)), args: new Float64Array(new SharedArrayBuffer(ARGS * 8)) };
  const worker = new Worker(workerFile, { workerData: data, execArgv: [] });
  worker.unref();
  // A worker that fails never reaches IDLE, or never finishes (then it is given up): a listener keeps its error from being thrown here.
  worker.on('error', () => undefined);
  const { control, args } = data;
  let rows = 0;
  const scanHelper: ScanHelper = {
    start(scanArgs) {
      if (Atomics.load(control, STATE) !== IDLE) return false;
      args.set(scanArgs);
      rows = (scanArgs[1] ?? 0) - (scanArgs[0] ?? 0);
      Atomics.store(control, STATE, WORK);
      Atomics.notify(control, STATE);
      return true;
    },
    finish() {
      Atomics.wait(control, STATE, WORK, finishLimitMs(rows));
      if (Atomics.load(control, STATE) !== DONE) {
        void worker.terminate();
        return null;
      }
      const listed = Atomics.load(control, LISTED);
      Atomics.store(control, STATE, IDLE);
      Atomics.notify(control, STATE);
      return listed;
    },
  };
  started = shareScan(memory, scanHelper);
  if (!started) void worker.terminate();
  return started;
}
