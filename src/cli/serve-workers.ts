/**
 * `orgindex serve --workers N`: several server processes on one port (node:cluster hands each new
 * connection to one of them), sharing keys, rate limits and quotas through the database — each worker is
 * an `orgindex serve --database` of its own, with its own copy of the index.
 *
 * This process (the primary) serves nothing itself: it holds the state directory's lock, checks the
 * database once, starts the workers, prints what the first of them says, and replaces a worker that
 * stops unasked. A replacement that cannot start (the database is down, say: a worker exits when its
 * start fails) is tried again after a back-off that doubles up to RESTART_DELAY_MAX_MS; while other
 * workers serve, it is tried for as long as it takes. When no worker is left and RESTART_ATTEMPTS starts
 * in a row have failed, the primary stops with exit code 1, so that its own supervisor (systemd, a
 * container runtime) sees it. Stopping the primary (a signal, `--exit-with-stdin`) stops the workers,
 * each closing its connections first; a worker whose primary is gone (kill -9) stops by itself.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { databaseKeys, lockForServe, openDatabase, ServeError, type ServeOptions } from './serve.js';
import { UsageError } from './usage.js';

/** More would only add copies of the index (each worker holds one). */
export const MAX_WORKERS = 64;

/** The wait before the first new start after a failed one; doubled after each further failure, up to the maximum. */
export const RESTART_DELAY_MS = 1_000;
export const RESTART_DELAY_MAX_MS = 30_000;
/** With no worker left, this many failed starts in a row stop the primary (exit 1). */
export const RESTART_ATTEMPTS = 5;

/** The wait before a start after `failures` failed starts in a row (none after a worker that had started). */
export const restartDelay = (failures: number): number => (failures === 0 ? 0 : Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MS * 2 ** (failures - 1)));
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
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS) throw new UsageError(`--workers takes a number of processes from 1 to ${MAX_WORKERS}, or "auto" (one per core: ${availableParallelism()} here); not "${text}"`);
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
    throw new UsageError('--workers needs --database (or ORGINDEX_DATABASE_URL): the workers share their keys, rate limits and quotas through it; the quota journal of the state directory belongs to one process');
  }
  const { lock, releaseOnExit } = lockForServe(resolve(options.stateDir));
  try {
    // Once here rather than in every worker: the schema migrated, and a database without keys refused before anything starts.
    const database = await openDatabase(options.database);
    try {
      await databaseKeys(database);
    } finally {
      await database.close();
    }
  } catch (error) {
    lock.release();
    process.removeListener('exit', releaseOnExit);
    throw error;
  }

  const live = new Set<Worker>();
  /** Workers that have said they are ready (a worker that exits before is a failed start). */
  const serving = new WeakSet<Worker>();
  let failedStarts = 0;
  const restartTimers = new Set<ReturnType<typeof setTimeout>>();
  let speaker: Worker | null = null;
  let closing: Promise<void> | null = null;
  let url = '';
  let warm = 0;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const timer of restartTimers) clearTimeout(timer);
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
          serving.add(worker);
          failedStarts = 0;
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
        if (!serving.has(worker)) failedStarts++;
        // Starts still waiting for their turn do not count as workers: they would fail as the others did.
        if (live.size === 0 && failedStarts >= RESTART_ATTEMPTS) {
          print(`orgindex serve: no worker is left and ${String(failedStarts)} starts in a row failed (their errors are above); stopping`);
          void close().then(() => process.exit(1));
          return;
        }
        const delay = restartDelay(failedStarts);
        print(`orgindex serve: worker pid ${String(worker.process.pid)} ${how}${serving.has(worker) ? '' : ' before it could serve'}; starting another${delay > 0 ? ` in ${String(delay / 1000)} s` : ''}`);
        const timer = setTimeout(() => {
          restartTimers.delete(timer);
          if (!closing) fork();
        }, delay);
        restartTimers.add(timer);
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
