/**
 * One process per state directory: the lock file, its stale takeover (a holder killed with kill -9), the
 * takeover race between several starters, and two real `orgindex serve` processes on one directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lockStateDirectory, StateDirectoryInUse } from '../../src/server/state-lock.js';

const repo = resolve(__dirname, '../..');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'orgindex-lock-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (a holder killed long ago). */
function deadPid(): number {
  const run = spawnSync(process.execPath, ['-e', '']);
  return run.pid;
}

const lockPath = (): string => join(dir, 'LOCK');
const holderPid = (): number => (JSON.parse(readFileSync(lockPath(), 'utf8')) as { pid: number }).pid;

describe('lockStateDirectory', () => {
  test('the first lock wins; a second one names the holder and the lock file; release frees the directory', () => {
    const lock = lockStateDirectory(dir);
    expect(holderPid()).toBe(process.pid);
    expect(() => lockStateDirectory(dir)).toThrow(StateDirectoryInUse);
    expect(() => lockStateDirectory(dir)).toThrow(`the state directory ${dir} is in use by process ${process.pid} (lock file ${lockPath()})`);
    lock.release();
    expect(existsSync(lockPath())).toBe(false);
    lock.release(); // twice is harmless
    const again = lockStateDirectory(dir);
    expect(holderPid()).toBe(process.pid);
    again.release();
  });

  test('creates a missing directory', () => {
    const nested = join(dir, 'a', 'b');
    const lock = lockStateDirectory(nested);
    expect(existsSync(join(nested, 'LOCK'))).toBe(true);
    lock.release();
  });

  test('a lock left by a process that is gone (kill -9) is taken over', () => {
    writeFileSync(lockPath(), `${JSON.stringify({ pid: deadPid(), host: hostname(), started: '2026-01-01T00:00:00.000Z' })}\n`);
    const lock = lockStateDirectory(dir);
    expect(holderPid()).toBe(process.pid);
    lock.release();
    expect(readdirSync(dir)).toEqual([]); // no claim or temporary file left behind
  });

  test('a lock naming this process without being held here (a restarted container reusing the pid) is stale', () => {
    writeFileSync(lockPath(), `${JSON.stringify({ pid: process.pid, host: hostname(), started: '2026-01-01T00:00:00.000Z' })}\n`);
    const lock = lockStateDirectory(dir);
    lock.release();
    expect(existsSync(lockPath())).toBe(false);
  });

  test('a lock from another host is never taken over: its process cannot be checked from here', () => {
    const content = `${JSON.stringify({ pid: deadPid(), host: 'some-other-host.example', started: '2026-01-01T00:00:00.000Z' })}\n`;
    writeFileSync(lockPath(), content);
    expect(() => lockStateDirectory(dir)).toThrow(/in use by process \d+ on host some-other-host\.example .*delete the lock file/);
    expect(readFileSync(lockPath(), 'utf8')).toBe(content);
  });

  test('an empty lock file left long ago (a crash between creating and writing it) is taken over', () => {
    writeFileSync(lockPath(), '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath(), old, old);
    const lock = lockStateDirectory(dir);
    expect(holderPid()).toBe(process.pid);
    lock.release();
  });

  test('release leaves a lock file that is not its own', () => {
    const lock = lockStateDirectory(dir);
    const other = `${JSON.stringify({ pid: 1, host: hostname(), started: '2026-01-01T00:00:00.000Z', token: 'someone-else' })}\n`;
    writeFileSync(lockPath(), other);
    lock.release();
    expect(readFileSync(lockPath(), 'utf8')).toBe(other);
  });
});

describe('the takeover race', () => {
  const module = join(repo, 'dist/lib/server/state-lock.js');

  /**
   * Starts `n` processes that try to lock `dir` at the same instant; each reports "won" or "lost …"; the
   * winner holds the lock until every one has reported (its stdin closes). Every file operation waits a
   * random 0–30 ms first, so that the starters' steps interleave in many orders.
   */
  async function race(n: number): Promise<string[]> {
    const at = Date.now() + 1_500;
    const script = `
      import fs from 'node:fs';
      import { syncBuiltinESMExports } from 'node:module';
      const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      for (const name of ['openSync', 'readFileSync', 'writeFileSync', 'writeSync', 'statSync', 'fstatSync', 'renameSync', 'rmSync', 'unlinkSync', 'linkSync']) {
        const original = fs[name];
        fs[name] = function (...args) { pause(Math.random() * 30); return original.apply(this, args); };
      }
      syncBuiltinESMExports();
      const { lockStateDirectory } = await import(${JSON.stringify(module)});
      while (Date.now() < ${at}) {}
      let lock = null;
      try { lock = lockStateDirectory(${JSON.stringify(dir)}); process.stdout.write('won\\n'); }
      catch (error) { process.stdout.write('lost ' + error.message + '\\n'); }
      process.stdin.on('data', () => {});
      process.stdin.on('end', () => { lock?.release(); });
    `;
    const children: ChildProcess[] = [];
    const lines = await Promise.all(
      Array.from({ length: n }, () => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
        children.push(child);
        return new Promise<string>((resolveLine) => {
          let text = '';
          child.stdout.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes('\n')) resolveLine(text.trim());
          });
          child.on('exit', () => { resolveLine(text.trim() || 'exited without a word'); });
        });
      }),
    );
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolveExit) => {
            child.on('exit', resolveExit);
            child.stdin!.end();
          }),
      ),
    );
    return lines;
  }

  test('a start killed in the middle of a takeover (claim made, lock not yet replaced) blocks nobody', () => {
    writeFileSync(lockPath(), `${JSON.stringify({ pid: deadPid(), host: hostname(), started: '2026-01-01T00:00:00.000Z' })}\n`);
    const script = `
      import fs from 'node:fs';
      import { syncBuiltinESMExports } from 'node:module';
      fs.renameSync = () => process.kill(process.pid, 'SIGKILL');
      syncBuiltinESMExports();
      const { lockStateDirectory } = await import(${JSON.stringify(module)});
      lockStateDirectory(${JSON.stringify(dir)});
    `;
    const killed = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
    expect(killed.signal).toBe('SIGKILL');
    expect(readdirSync(dir).filter((name) => name !== 'LOCK')).toHaveLength(2); // its claim and its prepared lock file
    const lock = lockStateDirectory(dir);
    expect(holderPid()).toBe(process.pid);
    expect(readdirSync(dir)).toEqual(['LOCK']);
    lock.release();
  });

  test('several starters on a free directory: exactly one wins', async () => {
    const lines = await race(6);
    expect(lines.filter((line) => line === 'won')).toHaveLength(1);
    expect(lines.filter((line) => /^lost .*is in use by process \d+/.test(line))).toHaveLength(5);
    expect(existsSync(lockPath())).toBe(false);
  }, 20_000);

  test('several starters over a stale lock: exactly one takes it over', async () => {
    for (let round = 0; round < 3; round++) {
      writeFileSync(lockPath(), `${JSON.stringify({ pid: deadPid(), host: hostname(), started: '2026-01-01T00:00:00.000Z' })}\n`);
      const lines = await race(6);
      expect(lines.filter((line) => line === 'won')).toHaveLength(1);
      expect(lines.filter((line) => /^lost .*is in use by process \d+/.test(line))).toHaveLength(5);
      expect(readdirSync(dir)).toEqual([]);
    }
  }, 30_000);
});

describe('two orgindex serve processes on one state directory', () => {
  const bin = join(repo, 'bin/orgindex.js');

  interface Started {
    child: ChildProcess;
    /** The URL once ready, or null when the process exited first. */
    ready: Promise<string | null>;
    exited: Promise<{ code: number | null; stderr: string }>;
  }

  function start(stateDir: string): Started {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--count', '200', '--state-dir', stateDir, '--log-level', 'silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let onReady: (url: string | null) => void = () => undefined;
    const ready = new Promise<string | null>((resolveReady) => (onReady = resolveReady));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /ready at (http:\/\/\S+)\/v2/.exec(stderr);
      if (match && /try: curl/.test(stderr)) onReady(match[1]!);
    });
    const exited = new Promise<{ code: number | null; stderr: string }>((resolveExit) => {
      child.on('exit', (code) => {
        onReady(null);
        resolveExit({ code, stderr });
      });
    });
    return { child, ready, exited };
  }

  test('the second start exits 1 at once naming the first one’s pid; the first serves on; a clean stop frees the directory', async () => {
    const stateDir = join(dir, 'state');
    const first = start(stateDir);
    try {
      const url = await first.ready;
      expect(url).not.toBeNull();
      const second = start(stateDir);
      const startedAt = Date.now();
      const secondUrl = await second.ready;
      if (secondUrl !== null) second.child.kill('SIGTERM');
      expect(secondUrl).toBeNull();
      const { code, stderr } = await second.exited;
      expect(code).toBe(1);
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect(stderr).toContain(`orgindex serve: the state directory ${stateDir} is in use by process ${first.child.pid!} (lock file ${join(stateDir, 'LOCK')}); stop it or use another --state-dir`);
      // The first one is untouched: it answers, and its lock and journal are still there.
      expect((await fetch(`${url!}/v2/health`)).status).toBe(200);
      expect(holderPidIn(stateDir)).toBe(first.child.pid);
      expect(readdirSync(stateDir).some((name) => /^quota-\d+\.log$/.test(name))).toBe(true);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect((await first.exited).code).toBe(0);
    expect(existsSync(join(stateDir, 'LOCK'))).toBe(false);
  }, 40_000);

  test('after a kill -9 the next start takes the lock over', async () => {
    const stateDir = join(dir, 'state');
    const first = start(stateDir);
    expect(await first.ready).not.toBeNull();
    first.child.kill('SIGKILL');
    await first.exited;
    expect(holderPidIn(stateDir)).toBe(first.child.pid); // left behind
    const second = start(stateDir);
    try {
      const url = await second.ready;
      expect(url).not.toBeNull();
      expect(holderPidIn(stateDir)).toBe(second.child.pid);
      expect((await fetch(`${url!}/v2/health`)).status).toBe(200); // (and its signal handlers are in place)
    } finally {
      second.child.kill('SIGTERM');
    }
    expect((await second.exited).code).toBe(0);
  }, 40_000);

  function holderPidIn(stateDir: string): number {
    return (JSON.parse(readFileSync(join(stateDir, 'LOCK'), 'utf8')) as { pid: number }).pid;
  }
});
