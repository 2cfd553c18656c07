/**
 * `orgindex serve --workers N`: several server processes on one port (node:cluster hands each new
 * connection to one of them), sharing keys, rate limits and quotas through the database — each worker is
 * an `orgindex serve --database` of its own, with its own copy of the index.
 *
 * This process (the primary) serves nothing itself: it holds the state directory's lock, checks the
 * database once, starts the workers, prints what the first of them says, and replaces a worker that
 * stops unasked (unless workers keep stopping: then it stops everything). Stopping the primary (a signal,
 * `--exit-with-stdin`) stops the workers, each closing its connections first; a worker whose primary is
 * gone (kill -9) stops by itself.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Database } from '../server/database/database.js';
import { DatabaseKeyStore, KeyStoreError } from '../server/key-store.js';
import { lockForServe, ServeError, ServeUsageError, type ServeOptions } from './serve.js';

/** More would only add copies of the index (each worker holds one). */
export const MAX_WORKERS = 64;

/** A worker that stops this many times within RESTART_WINDOW_MS is not started again. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
/** How long a worker may take to close its connections when asked to stop; then it is killed. */
const STOP_GRACE_MS = 10_000;

/** What a worker tells the primary. */
export type WorkerMessage = { orgindex: 'line'; text: string } | { orgindex: 'ready'; address: string } | { orgindex: 'warm' };

const isWorkerMessage = (message: unknown): message is WorkerMessage =>
  typeof message === 'object' && message !== null && 'orgindex' in message && typeof (message).orgindex === 'string';

/** `--workers` as typed: a number 1–64, or "auto" (one per core). */
export function workerCount(text: string): number {
  if (text.trim().toLowerCase() === 'auto') return Math.min(MAX_WORKERS, availableParallelism());
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS) throw new ServeUsageError(`--workers takes a number of processes from 1 to ${MAX_WORKERS}, or "auto" (one per core: ${availableParallelism()} here); not "${text}"`);
  return n;
}

/** In a worker: tells the primary something (a no-op when the primary is gone). */
export function tellPrimary(message: WorkerMessage): void {
  if (process.connected) process.send?.(message);
}

export interface Supervisor {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts `workers` processes of this same command line and resolves once all of them listen. `print`
 * gets the first worker's lines and the primary's own; `onListening` gets `close` before the line that
 * says all are ready.
 */
export async function superviseWorkers(options: ServeOptions, workers: number, print: (line: string) => void, onListening?: (close: () => Promise<void>) => void): Promise<Supervisor> {
  if (options.database === undefined) {
    throw new ServeUsageError('--workers needs --database (or ORGINDEX_DATABASE_URL): the workers share their keys, rate limits and quotas through it; the quota journal of the state directory belongs to one process');
  }
  const { lock, releaseOnExit } = lockForServe(resolve(options.stateDir));
  try {
    // Once here rather than in every worker: the schema migrated, and a database without keys refused before anything starts.
    const database = await Database.open(options.database).catch((error: unknown) => {
      throw new ServeError(`orgindex serve: ${(error as Error).message}`);
    });
    try {
      await new DatabaseKeyStore(database).keyRing();
    } catch (error) {
      if (error instanceof KeyStoreError) throw new ServeError(`orgindex serve: ${error.message}`);
      throw error;
    } finally {
      await database.close();
    }
  } catch (error) {
    lock.release();
    process.removeListener('exit', releaseOnExit);
    throw error;
  }

  const live = new Set<Worker>();
  const restarts: number[] = [];
  let speaker: Worker | null = null;
  let closing: Promise<void> | null = null;
  let url = '';
  let warm = 0;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      await Promise.all([...live].map((worker) => stopWorker(worker)));
      lock.release();
      process.removeListener('exit', releaseOnExit);
    })();
    return closing;
  };

  return new Promise<Supervisor>((resolveStarted, rejectStarted) => {
    let started = false;
    let ready = 0;
    const fork = (): void => {
      const worker = cluster.fork();
      live.add(worker);
      speaker ??= worker;
      worker.on('message', (message: unknown) => {
        if (!isWorkerMessage(message)) return;
        if (message.orgindex === 'line') {
          if (worker === speaker) print(message.text);
        } else if (message.orgindex === 'ready') {
          url = message.address;
          if (started) print(`  worker pid ${worker.process.pid} ready`);
          else if (++ready === workers) {
            started = true;
            onListening?.(close);
            print(`  ${workers} worker process${workers === 1 ? '' : 'es'} (pids ${[...live].map((w) => w.process.pid).join(', ')}) share ${url} and the database; this process (pid ${process.pid}) supervises them`);
            resolveStarted({ url, close });
          }
        } else if (++warm === workers) {
          print(`  relevance structures built in every worker (${workers})`);
        }
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        if (worker === speaker) speaker = [...live][0] ?? null;
        if (closing) return;
        const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
        if (!started) {
          void close().then(() => { rejectStarted(new ServeError(`orgindex serve: a worker ${how} while starting; its error is above`)); });
          return;
        }
        const now = Date.now();
        restarts.push(now);
        while (restarts.length > 0 && (restarts[0] ?? now) < now - RESTART_WINDOW_MS) restarts.shift();
        if (restarts.length > MAX_RESTARTS) {
          print(`orgindex serve: workers stopped ${restarts.length} times within a minute; stopping`);
          void close().then(() => process.exit(1));
          return;
        }
        print(`orgindex serve: worker pid ${worker.process.pid} ${how}; starting another`);
        fork();
      });
    };
    for (let i = 0; i < workers; i++) fork();
  });
}

/** Asks a worker to close (SIGTERM) and waits for it; kills it after the grace period. */
function stopWorker(worker: Worker): Promise<void> {
  return new Promise((done) => {
    if (worker.isDead()) {
      done();
      return;
    }
    const kill = setTimeout(() => worker.process.kill('SIGKILL'), STOP_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    worker.process.kill('SIGTERM');
  });
}
