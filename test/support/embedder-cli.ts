/**
 * The orgindex command as an operator runs it with --embedder (bin/orgindex.js, the compiled CLI): a
 * command run to its end, or `serve` kept running until a test is done with it — never with a call that
 * blocks this process, whose event loop may be serving the embedding service the command talks to.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const bin = resolve(__dirname, '../../bin/orgindex.js');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `orgindex …args` to its end. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => {
      done({ code, stdout, stderr });
    });
  });
}

export const TEST_KEY = 'embedder-test-key-00000000000000001';

export interface Served {
  url: string;
  stderr(): string;
  /** The server's log (pino's JSON lines, warn and above). */
  stdout(): string;
  /** POST /v2/… (or /v1/…) with the test key: status, headers and JSON body. */
  post(path: string, body: unknown): Promise<{ status: number; headers: Headers; body: unknown }>;
  close(): Promise<Finished>;
}

/** `orgindex serve --port 0 …args` with a keys file of its own; resolves once it has warmed up (or rejects with what it printed). */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-embedder-serve-'));
  const keys = join(dir, 'keys.json');
  writeFileSync(keys, JSON.stringify({ keys: [{ key: TEST_KEY, tier: 'tier_2' }], tiers: { tier_2: { ratePerSecond: 10_000, burst: 10_000 } } }));
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--keys', keys, '--state-dir', join(dir, 'state'), '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<Finished>((done) => {
    child.on('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      done({ code, stdout, stderr });
    });
  });
  return new Promise((resolveServed, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /ready at (http:\/\/\S+)\/v2/.exec(stderr)?.[1];
      if (url && /relevance structures/.test(stderr)) {
        resolveServed({
          url,
          stderr: () => stderr,
          stdout: () => stdout,
          async post(path, body) {
            const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
            return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
          },
          close() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((finished) => {
      reject(new Error(`orgindex serve exited (${String(finished.code)}): ${finished.stderr}`));
    });
  });
}
