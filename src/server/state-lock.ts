/**
 * One process per state directory. `orgindex serve` takes this lock before it touches the directory (keys
 * file, quota journal, download files) and gives it back when it stops: two servers on one directory would
 * each admit the whole quota, and one's journal compaction would delete the other's journal.
 *
 * Sharing state between several server processes is meant to come through a database, never through
 * files in a shared directory; this lock only makes sure nobody tries the latter by accident.
 *
 * The lock is the file `<dir>/LOCK`, holding one JSON line: the holder's pid, host name, start time and a
 * random token. Only the operating system's exclusive operations decide who holds it:
 *   - taking a free directory: an O_EXCL create of LOCK (two starters: one create succeeds, one fails);
 *   - taking over a stale lock (its process is gone, e.g. killed with kill -9): a starter first creates a
 *     claim file named after that exact LOCK file (inode, size, mtime) with O_EXCL, checks that LOCK is
 *     still that file, and only then renames its own complete lock file over it. Of several starters that
 *     find the same stale lock, one creates the claim; the others see a live claimant and read the new
 *     holder on their next look. A claimant that dies mid-takeover is passed over (next claim number).
 * Whether a holder is alive is only known on its own host (the pid, and on Linux the process's start time
 * against pid reuse): a lock written on another host is never taken over automatically.
 */
import { randomBytes, createHash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'LOCK';

/** What the lock file says about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When the holder took the lock (ISO 8601). */
  started: string;
  /** Linux: the process's start time in clock ticks since boot (tells a reused pid apart). */
  startTicks?: string;
  /** Tells this holder's file from any later one (release removes only its own). */
  token?: string;
}

export interface StateLock {
  readonly dir: string;
  readonly path: string;
  /** Removes the lock file if it is still this process's (idempotent; safe in an 'exit' handler). */
  release(): void;
}

/** The directory is held by a live process (or one on another host, which cannot be checked from here). */
export class StateDirectoryInUse extends Error {
  constructor(
    readonly dir: string,
    readonly lockFile: string,
    readonly holder: LockHolder,
    readonly otherHost: boolean,
  ) {
    super(
      otherHost
        ? `the state directory ${dir} is in use by process ${holder.pid} on host ${holder.host} (lock file ${lockFile}); this host cannot tell whether that process still runs: stop it, or delete the lock file if it is gone, or use another --state-dir`
        : `the state directory ${dir} is in use by process ${holder.pid} (lock file ${lockFile}); stop it or use another --state-dir`,
    );
  }
}

/**
 * A lock file without a complete line is being written (create and write are two steps); one older than
 * this was left by a process that died between them.
 */
const UNFINISHED_GRACE_MS = 10_000;
/** How long a start keeps trying while other starters change the lock under it. */
const ATTEMPT_MS = UNFINISHED_GRACE_MS + 5_000;
const RETRY_MS = 20;

/** Claim files (`LOCK.takeover-<stale lock>-<n>`) and prepared lock files (`LOCK.<pid>-<random>.tmp`). */
const LEFTOVER = new RegExp(`^${LOCK_FILE}\\.(takeover-[0-9a-f]{16}-\\d+|\\d+-[0-9a-f]{12}\\.tmp)$`);

/** Lock files this process holds: path → token. */
const held = new Map<string, string>();

type Seen = { kind: 'absent' } | { kind: 'holder'; holder: LockHolder; id: string } | { kind: 'unfinished'; ageMs: number; id: string };

/** Takes the state directory `dir` (created when missing) for this process, or throws StateDirectoryInUse. */
export function lockStateDirectory(dir: string): StateLock {
  const directory = resolve(dir);
  mkdirSync(directory, { recursive: true });
  const path = join(directory, LOCK_FILE);
  const token = randomBytes(12).toString('hex');
  const me: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), token };
  const startTicks = processStartTicks(process.pid);
  if (startTicks !== null) me.startTicks = startTicks;
  const line = `${JSON.stringify(me)}\n`;
  const giveUpAt = Date.now() + ATTEMPT_MS;
  while (Date.now() <= giveUpAt) {
    if (createExclusive(path, line)) return holding(directory, path, token);
    const seen = inspect(path);
    if (seen.kind === 'absent') continue; // released just now: create it
    if (seen.kind === 'holder') {
      const state = liveness(seen.holder, held.get(path));
      if (state !== 'gone') throw new StateDirectoryInUse(directory, path, seen.holder, state === 'other host');
    }
    const stale = seen.kind === 'holder' || seen.ageMs >= UNFINISHED_GRACE_MS;
    if (stale && takeOver(path, seen.id, line)) return holding(directory, path, token);
    sleep(RETRY_MS); // being written, or being taken over by another start
  }
  throw new Error(`cannot lock the state directory ${directory}: its lock file ${path} keeps changing (other starts running at the same time?)`);
}

function holding(dir: string, path: string, token: string): StateLock {
  held.set(path, token);
  sweep(dir);
  return {
    dir,
    path,
    release: () => {
      if (held.get(path) !== token) return;
      held.delete(path);
      const seen = inspect(path);
      if (seen.kind === 'holder' && seen.holder.token === token) rmSync(path, { force: true });
    },
  };
}

/**
 * Creates `path` with O_EXCL and writes `line` into it. False when it exists — or when, while this process
 * stalled between create and write, another start judged the empty file abandoned and replaced it.
 */
function createExclusive(path: string, line: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  const inode = fstatSync(fd).ino;
  try {
    writeSync(fd, line);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    if (inodeAt(path) === inode) rmSync(path, { force: true });
    throw error;
  }
  closeSync(fd);
  return inodeAt(path) === inode;
}

/**
 * Replaces the stale lock file whose identity is `staleId` with this process's, unless another start
 * claimed it first or it changed meanwhile. True when LOCK is now this process's.
 */
function takeOver(path: string, staleId: string, line: string): boolean {
  const base = `${path}.takeover-${createHash('sha256').update(staleId).digest('hex').slice(0, 16)}`;
  const mine = `${path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(mine, line, { mode: 0o644, flag: 'wx' });
  try {
    for (let claim = 0; ; claim++) {
      if (createExclusive(`${base}-${claim}`, line)) {
        try {
          if (identityOf(path) !== staleId) return false; // replaced or released meanwhile: look again
          renameSync(mine, path);
          return true;
        } finally {
          // This claim and the abandoned ones before it: a late starter that recreates one finds LOCK changed.
          for (let passed = 0; passed <= claim; passed++) rmSync(`${base}-${passed}`, { force: true });
        }
      }
      const claimant = inspect(`${base}-${claim}`);
      if (claimant.kind === 'absent') {
        claim--; // removed just now: try the same number again
        continue;
      }
      // A claim naming this process is an earlier process's with the same pid: this one makes one at a time.
      const abandoned = claimant.kind === 'holder' ? liveness(claimant.holder, undefined) === 'gone' : claimant.ageMs >= UNFINISHED_GRACE_MS;
      if (!abandoned) return false; // another start is taking over: its lock is there at the next look
    }
  } finally {
    rmSync(mine, { force: true });
  }
}

/** Claim and temporary files left by starts that died in the middle of a takeover (best effort). */
function sweep(dir: string): void {
  try {
    for (const name of readdirSync(dir)) {
      if (!LEFTOVER.test(name)) continue;
      const seen = inspect(join(dir, name));
      // With this process's pid: an earlier process's (this one has finished its takeover).
      const gone = seen.kind === 'holder' ? liveness(seen.holder, undefined) === 'gone' : seen.kind === 'unfinished' && seen.ageMs >= UNFINISHED_GRACE_MS;
      if (gone) rmSync(join(dir, name), { force: true });
    }
  } catch {
    // Leftovers are harmless: a later start passes over them.
  }
}

/** Reads a lock (or claim) file: its holder and identity, or that it is absent or not written yet. */
function inspect(path: string): Seen {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    const text = readFileSync(fd, 'utf8');
    const id = identity(stat);
    const holder = parseHolder(text);
    return holder ? { kind: 'holder', holder, id } : { kind: 'unfinished', ageMs: Date.now() - stat.mtimeMs, id };
  } finally {
    closeSync(fd);
  }
}

function parseHolder(text: string): LockHolder | null {
  if (!text.endsWith('\n')) return null;
  try {
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (!value || !Number.isSafeInteger(value.pid) || (value.pid ?? 0) <= 0 || typeof value.host !== 'string') return null;
    return value as LockHolder;
  } catch {
    return null;
  }
}

/** One file at one moment: a replaced or rewritten lock file has another identity. */
function identity(stat: { ino: number; size: number; mtimeMs: number }): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

function identityOf(path: string): string | null {
  try {
    return identity(statSync(path));
  } catch {
    return null;
  }
}

function inodeAt(path: string): number | null {
  try {
    return statSync(path).ino;
  } catch {
    return null;
  }
}

/**
 * Whether a holder still runs: only checkable on its own host. With this process's pid it is this process
 * when the token is the one this process holds (`ownToken`), else an earlier process that had the same pid
 * (a restarted container).
 */
function liveness(holder: LockHolder, ownToken: string | undefined): 'alive' | 'gone' | 'other host' {
  if (holder.host !== hostname()) return 'other host';
  if (holder.pid === process.pid) return ownToken !== undefined && holder.token === ownToken ? 'alive' : 'gone';
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
    // EPERM: a process of another user; alive.
  }
  // The pid runs, but it may be a new process that got a reused pid.
  if (holder.startTicks !== undefined) {
    const now = processStartTicks(holder.pid);
    if (now !== null && now !== holder.startTicks) return 'gone';
  }
  return 'alive';
}

/** Linux: field 22 of /proc/<pid>/stat (start time in clock ticks since boot); null elsewhere. */
function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
