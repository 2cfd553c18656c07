/**
 * Long work in short slices: the server has one event loop, and every other request (a health check too)
 * waits for whatever runs on it. Work that can take longer than a few milliseconds is written as steps (the
 * engine's generators, a page parsed chunk by chunk), and the server gives the loop a turn between slices.
 */
import { setImmediate as nextTurnPromise } from 'node:timers/promises';

/** The longest run of steps between two turns of the event loop, in ms. */
export const SLICE_MS = 8;

/** Resolves on the event loop's next turn, after the I/O and timers that are due. */
export function nextTurn(): Promise<void> {
  return nextTurnPromise();
}

/**
 * Runs `steps` to their end and resolves with their result, giving the event loop a turn whenever
 * `sliceMs` have passed (each step must itself be short). When `signal` aborts, stops and rejects with
 * its reason.
 */
export async function runInSlices<T>(steps: Iterator<unknown, T>, signal?: AbortSignal, sliceMs = SLICE_MS): Promise<T> {
  try {
    for (;;) {
      signal?.throwIfAborted();
      const started = performance.now();
      do {
        const step = steps.next();
        if (step.done) return step.value;
      } while (performance.now() - started < sliceMs);
      await nextTurn();
    }
  } finally {
    steps.return?.();
  }
}
