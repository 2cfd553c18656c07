/**
 * An ONNX sentence encoder (onnx-model.ts) on a thread of its own (onnx-worker.ts): calls post texts to it
 * and wait for its vectors, each wait bounded. ONNX Runtime runs a model synchronously on the thread that
 * calls it, so on this one it would hold every other request meanwhile; on its own thread a model that
 * is slow, stuck or gone costs the requests that need it a time-out (503), nothing else: at most
 * MAX_OUTSTANDING requests wait on it, and one unanswered for twice its time-out has the thread replaced.
 * A thread that stops is started again on the next call. The thread runs the compiled onnx-worker.js (npm run
 * build:lib); tests of the TypeScript sources name it in dist/.
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { OnnxDirectory } from './onnx-model.js';
import type { EmbedderIdentity } from './embedder-spec.js';
import { EmbedderFailure, seconds, type EmbedRole, type TextEmbedder } from './text-embedder.js';
import { messageOf } from '../../contract/errors.js';

/** What the thread is sent. */
export interface OnnxRequest {
  id: number;
  texts: string[];
}

/** What the thread answers. */
export type OnnxReply =
  | { type: 'ready'; dims: number; loadMs: number }
  | { type: 'failed'; message: string }
  | { type: 'vectors'; id: number; data: Float32Array; present: Uint8Array }
  | { type: 'error'; id: number; message: string };

/** The longest a model may take to load (a large one reads and compiles a gigabyte). */
const LOAD_LIMIT_MS = 300_000;
/** Texts sent to the thread at a time when organizations are embedded (it runs them in batches of batch_size, like lengths together). */
const BLOCK = 128;
/** Requests the thread may have been sent and not yet answered (timed-out ones included): more wait for nothing. */
const MAX_OUTSTANDING = 64;
/** A request unanswered for this many times its own time-out means the thread is stuck: it is replaced. */
const STUCK_AFTER_TIMEOUTS = 2;

export function onnxIdentity(directory: OnnxDirectory, dims: number): EmbedderIdentity {
  return { kind: 'onnx', model: directory.model, dims, fingerprint: directory.fingerprint };
}

interface Runner {
  /** The texts' vectors; rejected (retryable) after `timeoutMs`, or at once when the thread is stuck or full. */
  run(texts: string[], timeoutMs: number): Promise<(Float32Array | null)[]>;
  close(): Promise<void>;
  /** False once the thread has stopped. */
  alive(): boolean;
}

/** The compiled thread beside this module. */
export const ONNX_WORKER_FILE = new URL('./onnx-worker.js', import.meta.url);

/** The model on its own thread; resolves once it is loaded. */
function onThread(file: URL, directory: OnnxDirectory): Promise<{ runner: Runner; dims: number; loadMs: number }> {
  return new Promise((resolveStarted, rejectStarted) => {
    // No flags of this process's command line: some are refused in a worker.
    const worker = new Worker(file, { workerData: directory, execArgv: [] });
    worker.unref();
    const pending = new Map<number, { resolve: (vectors: (Float32Array | null)[]) => void; reject: (error: Error) => void }>();
    // Posted and not answered, waited for or timed out: when each was sent and how long it was given.
    const outstanding = new Map<number, { sentAt: number; timeoutMs: number }>();
    let next = 0;
    let stopped: string | null = null;
    let started = false;
    const stop = (why: string): void => {
      if (stopped !== null) return;
      stopped = why;
      outstanding.clear();
      for (const { reject } of pending.values()) reject(new EmbedderFailure(`the ONNX model's thread stopped: ${why}`, true));
      pending.clear();
      if (!started) rejectStarted(new EmbedderFailure(`the ONNX model could not be loaded: ${why}`, false));
    };
    const limit = setTimeout(() => {
      if (!started) {
        stop(`not loaded within ${seconds(LOAD_LIMIT_MS)}`);
        void worker.terminate();
      }
    }, LOAD_LIMIT_MS);
    limit.unref();
    worker.on('error', (error) => {
      stop(error.message);
    });
    worker.on('exit', (code) => {
      stop(`it exited (code ${code})`);
    });
    worker.on('message', (reply: OnnxReply) => {
      if (reply.type === 'ready') {
        started = true;
        clearTimeout(limit);
        const runner: Runner = {
          run: (texts, timeoutMs) =>
            new Promise((resolveRun, rejectRun) => {
              const [oldest] = outstanding.values();
              if (stopped === null && oldest && performance.now() - oldest.sentAt > STUCK_AFTER_TIMEOUTS * oldest.timeoutMs) {
                stop(`stuck: no answer for ${seconds(performance.now() - oldest.sentAt)}`);
                void worker.terminate();
              }
              if (stopped !== null) {
                rejectRun(new EmbedderFailure(`the ONNX model's thread stopped: ${stopped}`, true));
                return;
              }
              if (outstanding.size >= MAX_OUTSTANDING) {
                rejectRun(new EmbedderFailure(`the ONNX model is busy: ${outstanding.size} requests unanswered`, true));
                return;
              }
              const id = next++;
              const timer = setTimeout(() => {
                pending.delete(id);
                rejectRun(new EmbedderFailure(`the ONNX model did not answer within ${seconds(timeoutMs)}`, true));
              }, timeoutMs);
              const settle = <T>(then: (value: T) => void) => (value: T): void => {
                clearTimeout(timer);
                then(value);
              };
              pending.set(id, { resolve: settle(resolveRun), reject: settle(rejectRun) });
              outstanding.set(id, { sentAt: performance.now(), timeoutMs });
              worker.postMessage({ id, texts } satisfies OnnxRequest);
            }),
          close: async () => {
            stop('closed');
            await worker.terminate();
          },
          alive: () => stopped === null,
        };
        resolveStarted({ runner, dims: reply.dims, loadMs: reply.loadMs });
      } else if (reply.type === 'failed') {
        stop(reply.message);
        void worker.terminate();
      } else {
        const waiting = pending.get(reply.id);
        pending.delete(reply.id);
        outstanding.delete(reply.id);
        if (!waiting) return; // answered after its time-out
        if (reply.type === 'error') {
          waiting.reject(new EmbedderFailure(`the ONNX model failed: ${reply.message}`, false));
          return;
        }
        const dims = reply.present.length === 0 ? 0 : reply.data.length / reply.present.length;
        waiting.resolve(Array.from(reply.present, (present, i) => (present ? reply.data.subarray(i * dims, (i + 1) * dims) : null)));
      }
    });
  });
}

export class OnnxEmbedder implements TextEmbedder {
  readonly batchSize = BLOCK;
  /** Two blocks at once: the thread starts the next as soon as it has answered one. */
  readonly concurrency = 2;
  private restarting: Promise<Runner> | null = null;

  private constructor(
    private readonly directory: OnnxDirectory,
    private runner: Runner,
    private readonly start: () => Promise<{ runner: Runner; dims: number; loadMs: number }>,
    readonly dims: number,
    /** How long loading took (ms): reading the files, compiling the model, one text embedded. */
    readonly loadMs: number,
  ) {}

  /** The model loaded on its thread (`workerFile`: the compiled onnx-worker.js). */
  static async open(directory: OnnxDirectory, workerFile: URL = ONNX_WORKER_FILE): Promise<OnnxEmbedder> {
    if (!existsSync(fileURLToPath(workerFile))) throw new EmbedderFailure(`the ONNX model's thread ${fileURLToPath(workerFile)} is missing: build orgindex first (npm run build:lib)`, false);
    const start = (): Promise<{ runner: Runner; dims: number; loadMs: number }> => onThread(workerFile, directory);
    const loaded = await start();
    return new OnnxEmbedder(directory, loaded.runner, start, loaded.dims, loaded.loadMs);
  }

  get identity(): EmbedderIdentity {
    return onnxIdentity(this.directory, this.dims);
  }

  /** The runner, started again if its thread has stopped. */
  private current(): Promise<Runner> {
    if (this.runner.alive()) return Promise.resolve(this.runner);
    this.restarting ??= this.start().then(
      ({ runner }) => {
        this.runner = runner;
        this.restarting = null;
        return runner;
      },
      (error: unknown) => {
        this.restarting = null;
        throw error;
      },
    );
    return this.restarting;
  }

  async embed(texts: readonly string[], role: EmbedRole, timeoutMs: number): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return [];
    const prefix = role === 'query' ? this.directory.queryPrefix : this.directory.documentPrefix;
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new EmbedderFailure(`the ONNX model did not answer within ${seconds(timeoutMs)}`, true));
      }, timeoutMs);
    });
    try {
      // A thread being started again counts against the same wait.
      const runner = await Promise.race([this.current(), late]);
      const left = Math.max(1, timeoutMs - (performance.now() - started));
      const vectors = await runner.run(texts.map((text) => prefix + text), left);
      if (vectors.some((vector) => vector !== null && vector.length !== this.dims)) throw new EmbedderFailure(`the ONNX model gave vectors of other dimensions than ${this.dims}`, false);
      return vectors;
    } catch (error) {
      if (error instanceof EmbedderFailure) throw error;
      throw new EmbedderFailure(`the ONNX model failed: ${messageOf(error)}`, false, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}
