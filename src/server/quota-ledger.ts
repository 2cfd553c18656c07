/**
 * Durable monthly usage counters per key: requests, /stats requests and returned rows.
 *
 * A journal, not a database: every counted request appends one line
 *   <month>\t<key id>\t<requests>\t<stats requests>\t<rows>\n
 * to `quota-<generation>.log`, and its response waits until that line is written. Lines that arrive
 * while a write is running go out together with the next one (group commit). Two durability levels:
 *   'fsync' (default)  the answer waits for fdatasync: nothing answered is lost, even by a machine crash.
 *                      Group commit makes it cheap: one flush per batch, not per answer (docs/benchmarks.md,
 *                      Server load: the two levels measure alike within noise).
 *   'write'            the answer waits for the write to reach the operating system; fdatasync runs every
 *                      100 ms and at close. A kill -9 (or any crash of the process) still loses no
 *                      answered request — the kernel has the line; a machine crash can lose 100 ms.
 * A torn last line (a crash in the middle of a write) was never acknowledged and is skipped on replay.
 *
 * Compaction keeps the journal short: when it passes COMPACT_BYTES, new lines go to the next generation,
 * the totals are written to `quota-snapshot.json` ("covers every generation ≤ g", written to a temporary
 * file, synced, renamed, directory synced) and the old logs are deleted. A crash between any two of these
 * steps double-counts nothing: start-up reads the snapshot and replays only the logs above its generation.
 *
 * One ledger per directory, in one process: two would each admit the full quota, and one's compaction
 * would delete the other's journal. `orgindex serve` locks the state directory (state-lock.ts) before it
 * opens the ledger; serving one quota from several processes is for a shared database, not shared files.
 *
 * Why not an embedded database: Node 20 has none built in, and the well-kept SQLite bindings ship native
 * binaries that npm would have to download from outside the registry. A journal of this size is the
 * write-ahead log such a database would keep anyway.
 */
import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { messageOf } from '../contract/errors.js';

export interface Usage {
  requests: number;
  statsRequests: number;
  results: number;
}

/** Usage of nothing: the start of a sum. */
export const noUsage = (): Usage => ({ requests: 0, statsRequests: 0, results: 0 });

/** Adds `delta` to `into` (subtracts it with sign -1). */
export function addUsage(into: Usage, delta: Usage, sign: 1 | -1 = 1): void {
  into.requests += sign * delta.requests;
  into.statsRequests += sign * delta.statsRequests;
  into.results += sign * delta.results;
}

/** Journal size that triggers compaction (default). */
const COMPACT_BYTES = 8 * 1024 * 1024;
/** How often 'write' durability syncs the journal to disk. */
const SYNC_INTERVAL_MS = 100;

export type Durability = 'write' | 'fsync';

export interface LedgerOptions {
  durability?: Durability;
  compactBytes?: number;
}
const SNAPSHOT = 'quota-snapshot.json';
const LOG = /^quota-(\d+)\.log$/;

interface Snapshot {
  generation: number;
  /** month → key id → [requests, stats requests, rows] */
  months: Record<string, Record<string, [number, number, number]>>;
}

/** One journal line. */
function journalLine(month: string, key: string, delta: Usage): string {
  return `${month}\t${key}\t${delta.requests}\t${delta.statsRequests}\t${delta.results}\n`;
}

/** Usage per month and key. */
class UsageCounts {
  /** month → key id → usage */
  readonly months = new Map<string, Map<string, Usage>>();

  add(month: string, key: string, delta: Usage): void {
    let keys = this.months.get(month);
    if (!keys) {
      keys = new Map();
      this.months.set(month, keys);
    }
    const usage = keys.get(key) ?? noUsage();
    addUsage(usage, delta);
    keys.set(key, usage);
  }

  get(month: string, key: string): Usage {
    const usage = this.months.get(month)?.get(key);
    return usage ? { ...usage } : noUsage();
  }

  /** Adds one journal line; a torn one (a crash mid-write: too few fields) was never acknowledged and is skipped. */
  addLine(line: string): void {
    const [month, key, requests, stats, rows, extra] = line.replace(/\n$/, '').split('\t');
    if (month === undefined || key === undefined || rows === undefined || extra !== undefined) return;
    const usage = { requests: Number(requests), statsRequests: Number(stats), results: Number(rows) };
    if (!/^\d{4}-\d{2}$/.test(month) || !Object.values(usage).every(Number.isSafeInteger)) return;
    this.add(month, key, usage);
  }
}

export class QuotaLedger {
  private readonly usage = new UsageCounts();
  private generation: number;
  private handle: FileHandle;
  private bytes: number;
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  private syncTimer: ReturnType<typeof setTimeout> | null = null;

  private constructor(
    private readonly dir: string,
    private readonly durability: Durability,
    private readonly compactBytes: number,
    generation: number,
    handle: FileHandle,
    bytes: number,
  ) {
    this.generation = generation;
    this.handle = handle;
    this.bytes = bytes;
  }

  /** Opens (or creates) the ledger in `dir`, replaying the snapshot and the journal. */
  static async open(dir: string, options: LedgerOptions = {}): Promise<QuotaLedger> {
    mkdirSync(dir, { recursive: true });
    const snapshotPath = join(dir, SNAPSHOT);
    let snapshot: Snapshot = { generation: 0, months: {} };
    try {
      snapshot = JSON.parse(readFileSync(snapshotPath, 'utf8')) as Snapshot;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`quota snapshot ${snapshotPath}: ${messageOf(error)}`, { cause: error });
    }
    const logs = readdirSync(dir)
      .map((name) => ({ name, generation: Number(LOG.exec(name)?.[1] ?? NaN) }))
      .filter((log) => Number.isInteger(log.generation))
      .sort((a, b) => a.generation - b.generation);
    // Each start writes a new generation: a torn last line of the previous one stays a line of its own.
    const generation = Math.max(snapshot.generation, ...logs.map((log) => log.generation)) + 1;
    const path = join(dir, `quota-${generation}.log`);
    const handle = await open(path, 'a');
    fsyncDirectory(dir);
    const ledger = new QuotaLedger(dir, options.durability ?? 'fsync', options.compactBytes ?? COMPACT_BYTES, generation, handle, (await handle.stat()).size);
    for (const [month, keys] of Object.entries(snapshot.months)) {
      for (const [key, [requests, statsRequests, results]] of Object.entries(keys)) ledger.usage.add(month, key, { requests, statsRequests, results });
    }
    for (const log of logs) {
      if (log.generation <= snapshot.generation) continue;
      for (const line of readFileSync(join(dir, log.name), 'utf8').split('\n')) ledger.usage.addLine(line);
    }
    return ledger;
  }

  /** A key's usage in a month (zeros when none). */
  get(month: string, key: string): Usage {
    return this.usage.get(month, key);
  }

  /**
   * Counts usage now (later checks see it at once) and resolves when it is durable. Reject means the
   * disk refused the write: the caller answers 500 rather than serve an uncounted request.
   */
  record(month: string, key: string, delta: Usage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the quota ledger is closed'));
    this.usage.add(month, key, delta);
    this.pending.push(journalLine(month, key, delta));
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= this.flush();
    return done;
  }

  /** Writes and syncs batches until nothing is pending (one batch per sync: group commit). */
  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending.join('');
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        await this.handle.write(lines);
        if (this.durability === 'fsync') await this.handle.datasync();
        else this.scheduleSync();
        this.bytes += Buffer.byteLength(lines);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error as Error);
      }
      if (this.bytes >= this.compactBytes) await this.compact();
    }
    this.flushing = null;
  }

  /** 'write' durability: one fdatasync SYNC_INTERVAL_MS after the first unsynced write. */
  private scheduleSync(): void {
    if (this.syncTimer) return;
    const handle = this.handle;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      // A failed background sync surfaces at the next write or at close; nothing to answer here.
      handle.datasync().catch(() => undefined);
    }, SYNC_INTERVAL_MS);
    this.syncTimer.unref();
  }

  /** Starts a new journal generation and folds everything before it into the snapshot. */
  private async compact(): Promise<void> {
    const previous = this.generation;
    const next = await open(join(this.dir, `quota-${previous + 1}.log`), 'a');
    fsyncDirectory(this.dir);
    await this.handle.datasync();
    await this.handle.close();
    this.handle = next;
    this.generation = previous + 1;
    this.bytes = 0;
    // The snapshot covers the logs ≤ previous: everything counted so far except the lines still pending,
    // which the next flush writes to the new generation (replay adds them on top of the snapshot).
    const unwritten = new UsageCounts();
    for (const line of this.pending) unwritten.addLine(line);
    const snapshot: Snapshot = { generation: previous, months: {} };
    for (const [month, keys] of this.usage.months) {
      snapshot.months[month] = Object.fromEntries(
        [...keys].map(([key, u]) => {
          const later = unwritten.get(month, key);
          return [key, [u.requests - later.requests, u.statsRequests - later.statsRequests, u.results - later.results]];
        }),
      );
    }
    writeFileAtomically(join(this.dir, SNAPSHOT), JSON.stringify(snapshot));
    for (const name of readdirSync(this.dir)) {
      const generation = Number(LOG.exec(name)?.[1] ?? NaN);
      if (generation <= previous) rmSync(join(this.dir, name), { force: true });
    }
  }

  /** Waits for pending lines to be durable, then closes the journal (graceful shutdown). */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing) await this.flushing;
    this.closed = true;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    await this.handle.datasync();
    await this.handle.close();
  }

  /** Bytes in the current journal generation (tests, reports). */
  get journalBytes(): number {
    return this.bytes;
  }
}

function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeFileAtomically(path: string, text: string): void {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, text);
  const fd = openSync(temporary, 'r+');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  fsyncDirectory(dirname(path));
}
