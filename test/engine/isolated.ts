/**
 * `runIsolated(file, name, args, limitMs)`: the exported function `name` of the TypeScript module `file`,
 * called in a worker thread. Rejects when it has not returned after `limitMs` (the worker is stopped), so
 * a test of "this input no longer hangs" fails instead of blocking the test run. The limit is a guard far
 * above the expected time (milliseconds), not a measurement.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export function runIsolated<T>(file: string, name: string, args: unknown[], limitMs: number): Promise<T> {
  const worker = new Worker(join(__dirname, 'isolated-worker.cjs'), { workerData: { file, name, args } });
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`${name}(${args.map((a) => JSON.stringify(a)).join(', ')}) did not return within ${limitMs} ms`));
    }, limitMs);
    worker.once('message', (message: { ok: true; value: T } | { ok: false; error: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (message.ok) resolve(message.value);
      else reject(new Error(message.error));
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
