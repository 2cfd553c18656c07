/**
 * Long work in short slices: the server has one event loop, and every other request (a health check too)
 * waits for whatever runs on it. Work that can take longer than a few milliseconds is written as steps (the
 * engine's generators, a page parsed chunk by chunk), and the server gives the loop a turn between slices.
 */
import { setImmediate as nextTurnPromise } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';

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

/** Rows serialised between two turns of the event loop (a few hundred rows of every column: ~1–2 ms). */
const ROWS_PER_SLICE = 250;

/**
 * The JSON text of an answer, as `JSON.stringify` writes it, with a long `data` array serialised a slice
 * of rows at a time: 5,000 rows of every column are ~4.5 MB and ~18 ms of serialisation in one piece.
 */
export async function stringifyInSlices(body: unknown): Promise<string> {
  if (!body || typeof body !== 'object' || !('data' in body) || !Array.isArray(body.data) || body.data.length <= ROWS_PER_SLICE) return JSON.stringify(body);
  const rows: unknown[] = body.data;
  // The envelope with a placeholder where the rows go: key order and everything else exactly as stringify has it.
  const placeholder = '\u0000rows\u0000';
  const envelope = JSON.stringify({ ...body, data: placeholder });
  const marker = JSON.stringify(placeholder);
  const at = envelope.indexOf(marker);
  // The same text elsewhere in the answer (an echoed input) would make the place ambiguous.
  if (envelope.indexOf(marker, at + 1) >= 0) return JSON.stringify(body);
  const parts = [envelope.slice(0, at), '['];
  for (let start = 0; start < rows.length; start += ROWS_PER_SLICE) {
    if (start > 0) {
      parts.push(',');
      await nextTurn();
    }
    const slice = JSON.stringify(rows.slice(start, start + ROWS_PER_SLICE));
    parts.push(slice.slice(1, -1));
  }
  parts.push(']', envelope.slice(at + marker.length));
  return parts.join('');
}

/** Sends an answer as JSON text serialised in slices, so that other requests get turns meanwhile. */
export async function sendJsonInSlices(reply: FastifyReply, body: unknown): Promise<FastifyReply> {
  const text = await stringifyInSlices(body);
  return reply.type('application/json; charset=utf-8').send(text);
}
