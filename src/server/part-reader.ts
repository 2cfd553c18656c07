/**
 * The part files of an index snapshot read and checksummed on worker threads (index-snapshot.ts): at
 * 5,000,000 organizations SHA-256 over their 4.1 GB costs more than reading them, and both ran one file
 * after another on the thread that then serves. Each worker reads a whole file and hashes it as it reads;
 * this thread hands out the files, largest first, and waits. Synchronous like the rest of loading: the
 * workers wake this thread through an Atomics cell and it takes their answers with receiveMessageOnPort.
 *
 * A file read into a buffer of its own comes back transferred (no copy); one read into shared memory (the
 * scan's records) is read there by the worker; any other view is read on this thread. Where the worker's
 * compiled file is absent (the TypeScript sources under a test runner), on one core, for a small index
 * (under 16 MB in all), or when a worker fails or stops answering, this thread reads what is left: the
 * answers are the same either way.
 */
import { createHash } from 'node:crypto';
import { existsSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/** One read call moves less than 2 GiB. */
const CHUNK = 1 << 30;
/** The piece a file read for its checksum only is read through. */
const CHECK_PIECE = 16 << 20;

/** A part file, open and of `size` bytes, and where its bytes go. */
export interface PartFile {
  fd: number;
  size: number;
  /** 'keep': into a buffer of its own; 'check': nowhere (read through for its checksum only); a view: into it. */
  into: 'keep' | 'check' | Uint8Array;
}

/** What a file held: its SHA-256 (hex) and, for 'keep', its buffer; `short` when it ended before `size`. */
export type PartRead = { short: false; sha256: string; buffer: ArrayBuffer | null } | { short: true };

/** Reads one file on this thread (and the workers' way of reading one). */
export function readPartFile({ fd, size, into }: PartFile): PartRead {
  const buffer = into === 'keep' ? new ArrayBuffer(size) : null;
  const view = into === 'keep' || into === 'check' ? new Uint8Array(buffer ?? new ArrayBuffer(Math.min(size, CHECK_PIECE))) : into;
  const piece = into === 'check' ? CHECK_PIECE : CHUNK;
  const hash = createHash('sha256');
  for (let at = 0; at < size; ) {
    const to = into === 'check' ? 0 : at;
    const read = readSync(fd, view, to, Math.min(piece, size - at), at);
    if (read === 0) return { short: true };
    hash.update(view.subarray(to, to + read));
    at += read;
  }
  return { short: false, sha256: hash.digest('hex'), buffer };
}

/** What a worker receives. */
export interface PartReaderData {
  port: MessagePort;
  /** [EVENTS]: counts what the workers did (this thread waits on it); [1 + slot]: each worker's state. */
  cells: Int32Array;
  slot: number;
  /** The worker's module (its URL). */
  module: string;
}

export interface PartJob extends PartFile {
  id: number;
}

/** A worker's answer: the read, or that reading threw there (this thread then reads the file itself, and throws the same). */
export type PartAnswer = { id: number; read: PartRead } | { id: number; failed: true };

export const EVENTS = 0;
export const STARTING = 0;
export const READY = 1;
export const GONE = 2;

/** Below this many bytes in all, starting the workers (some 30 ms) costs more than they save. */
const THREADS_FROM_BYTES = 16 << 20;
/** The longest waits for a worker: to load (a fraction of a second), then for a file (generous: only a worker that hangs reaches it). */
const START_LIMIT_MS = 10_000;
const readLimitMs = (bytes: number): number => 60_000 + bytes / 5_000;

interface Reader {
  worker: Worker;
  port: MessagePort;
  slot: number;
  job: number | null;
  since: number;
  /** Given up: failed, gone or too slow. */
  out: boolean;
}

/**
 * Reads every file, on up to `threads` worker threads (default: one a core, at most 4), and returns what
 * each held, in their order. `workerFile`: the worker's module (the compiled part-reader-worker.js).
 */
export function readPartFiles(files: readonly PartFile[], options: { threads?: number; workerFile?: URL } = {}): PartRead[] {
  const workerFile = options.workerFile ?? new URL('./part-reader-worker.js', import.meta.url);
  const threads = Math.min(options.threads ?? Math.min(4, availableParallelism()), files.length);
  // A view that is not shared memory cannot be handed to another thread.
  const here = files.flatMap((file, i) => (file.into instanceof Uint8Array && !(file.into.buffer instanceof SharedArrayBuffer) ? [i] : []));
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  if (threads < 2 || bytes < THREADS_FROM_BYTES || !existsSync(fileURLToPath(workerFile))) return files.map(readPartFile);
  const results: (PartRead | undefined)[] = new Array<PartRead | undefined>(files.length);
  const queue = files
    .map((_, i) => i)
    .filter((i) => !here.includes(i))
    .sort((a, b) => (files[b]?.size ?? 0) - (files[a]?.size ?? 0));
  const cells = new Int32Array(new SharedArrayBuffer(4 * (threads + 1)));
  const readers = Array.from({ length: threads }, (_, i) => startReader(workerFile, cells, i + 1));
  const started = performance.now();
  const state = (reader: Reader): number => Atomics.load(cells, reader.slot);
  const giveUp = (reader: Reader): void => {
    reader.out = true;
    if (reader.job !== null) here.push(reader.job);
    reader.job = null;
    void reader.worker.terminate();
  };
  try {
    let left = files.length;
    while (left > 0) {
      // Read before looking: a worker that answers after this wakes the wait below at once.
      const seen = Atomics.load(cells, EVENTS);
      for (const reader of readers) {
        // A worker given up is not heard any more: its file is read here.
        if (reader.out) continue;
        for (let message = receiveMessageOnPort(reader.port); message !== undefined; message = receiveMessageOnPort(reader.port)) {
          const answer = message.message as PartAnswer;
          if (answer.id !== reader.job) continue;
          reader.job = null;
          if ('read' in answer) {
            results[answer.id] = answer.read;
            left--;
          } else {
            here.push(answer.id);
          }
        }
        const now = performance.now();
        const stuck = reader.job !== null && now - reader.since > readLimitMs(files[reader.job]?.size ?? 0);
        if (state(reader) === GONE || stuck || (state(reader) === STARTING && now - started > START_LIMIT_MS)) {
          giveUp(reader);
          continue;
        }
        const job = reader.job === null && state(reader) === READY ? queue.shift() : undefined;
        const file = job === undefined ? undefined : files[job];
        if (job !== undefined && file !== undefined) {
          reader.job = job;
          reader.since = now;
          const message: PartJob = { id: job, fd: file.fd, size: file.size, into: file.into };
          reader.port.postMessage(message);
        }
      }
      if (readers.every((reader) => reader.out)) here.push(...queue.splice(0));
      const mine = here.shift();
      if (mine !== undefined) {
        const file = files[mine];
        if (file !== undefined) results[mine] = readPartFile(file);
        left--;
      } else if (left > 0) {
        Atomics.wait(cells, EVENTS, seen, 1_000);
      }
    }
  } finally {
    for (const reader of readers) {
      reader.port.close();
      void reader.worker.terminate();
    }
  }
  return results.map((read, i) => {
    if (read === undefined) throw new Error(`part file ${i} was not read`);
    return read;
  });
}

/**
 * Marks the worker GONE however its thread ends (its module failing to load, an error thrown, process.exit),
 * then loads the worker's module: the reading thread never waits for a worker that is not there.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
process.on('exit', () => {
  Atomics.store(workerData.cells, workerData.slot, ${GONE});
  Atomics.add(workerData.cells, ${EVENTS}, 1);
  Atomics.notify(workerData.cells, ${EVENTS});
});
import(workerData.module);
`;

function startReader(workerFile: URL, cells: Int32Array, slot: number): Reader {
  const { port1, port2 } = new MessageChannel();
  const data: PartReaderData = { port: port2, cells, slot, module: workerFile.href };
  // No flags of this process's command line: some are refused in a worker (--input-type).
  const worker = new Worker(BOOTSTRAP, { eval: true, workerData: data, transferList: [port2], execArgv: [] });
  worker.unref();
  // A worker that fails says so through its state cell; a listener keeps its error from being thrown here.
  worker.on('error', () => undefined);
  return { worker, port: port1, slot, job: null, since: 0, out: false };
}
