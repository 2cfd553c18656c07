/**
 * The real server in its own process (bin/orgindex.js serve), for tests whose client blocks the test
 * process — Apps Script's synchronous UrlFetchApp stand-in, a CLI run with spawnSync — or whose subject is
 * the command itself (`npm start`'s arguments, --embedder): a server in the jest process could not answer
 * or would not be the one an operator runs. The one spawner of `orgindex serve` for every such test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const bin = resolve(__dirname, '../../bin/orgindex.js');

/** A command run to its end (or a server stopped): its exit code and what it printed. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ServeOptions {
  /** The arguments after `orgindex serve`; `--port 0` comes first, so a `--port` here wins. */
  args: string[];
  /** Requests a second this key's tier allows, or false for no keys file (serve then makes its development key in its state directory). */
  testKeyRate?: number | false;
  /** The whole environment of the process (by default this process's). */
  env?: NodeJS.ProcessEnv;
  /** Resolves once stderr matches this as well as the ready line. */
  readyWhen?: RegExp;
}

export interface ServedProcess {
  child: ChildProcess;
  /** http://127.0.0.1:PORT, without /v2. */
  url: string;
  /** The test key (empty without a keys file). */
  key: string;
  stdout(): string;
  stderr(): string;
  /** POST /v2/… (or /v1/…) with the test key: status, headers and JSON body. */
  post(path: string, body: unknown): Promise<{ status: number; headers: Headers; body: unknown }>;
  /** SIGTERM; resolves once the process has exited and its temporary directory is gone. */
  close(): Promise<Finished>;
}

const TEST_KEY = 'served-process-key-0000000000000001';

/** `orgindex serve` in its own process; resolves once it says it is ready (or rejects with what it printed). */
export function spawnServe({ args, testKeyRate = 1_000, env = process.env, readyWhen = /ready at/ }: ServeOptions): Promise<ServedProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-serve-'));
  // A state directory of its own unless the args name one (the last --state-dir wins): never the working directory.
  const keyArgs: string[] = ['--state-dir', join(dir, 'state')];
  if (testKeyRate !== false) {
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key: TEST_KEY, tier: 'tier_2' }], tiers: { tier_2: { ratePerSecond: testKeyRate, burst: testKeyRate } } }));
    keyArgs.push('--keys', join(dir, 'keys.json'));
  }
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...keyArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<Finished>((done) => {
    child.on('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      done({ code, stdout, stderr });
    });
  });
  const key = testKeyRate === false ? '' : TEST_KEY;
  return new Promise((resolveServed, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /ready at (http:\/\/\S+)\/v2/.exec(stderr)?.[1];
      if (!url || !readyWhen.test(stderr)) return;
      resolveServed({
        child,
        url,
        key,
        stdout: () => stdout,
        stderr: () => stderr,
        async post(path, body) {
          const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
        },
        close() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((finished) => {
      reject(new Error(`orgindex serve exited (${String(finished.code)}): ${finished.stderr}`));
    });
  });
}

export interface ServerSource {
  /** Generated organizations (3,000 unless an index is given). */
  count?: number;
  /** An index snapshot directory to serve instead. */
  index?: string;
  /** Resolves once stderr matches this (by default: once the server says it is ready). */
  readyWhen?: RegExp;
}

/** A quiet server on generated organizations or a snapshot, with the test key. */
export function startServerProcess({ count = 3_000, index, readyWhen = /try: curl|keys:/ }: ServerSource = {}): Promise<ServedProcess> {
  const data = index !== undefined ? ['--index', index] : ['--count', String(count)];
  return spawnServe({ args: [...data, '--log-level', 'silent'], readyWhen });
}
