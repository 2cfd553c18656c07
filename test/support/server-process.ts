/**
 * The real server in its own process (bin/orgindex.js serve on a free loopback port, a test key), for tests
 * whose client blocks the test process — Apps Script's synchronous UrlFetchApp stand-in, a CLI run with
 * spawnSync — so a server in the jest process could never answer.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServerProcess {
  url: string;
  key: string;
  /** What the server printed on stderr up to now. */
  output(): string;
  close(): void;
}

export interface ServerSource {
  /** Generated organizations (3,000 unless an index is given). */
  count?: number;
  /** An index snapshot directory to serve instead. */
  index?: string;
  /** Resolves once stderr matches this (by default: once the server says it is ready). */
  readyWhen?: RegExp;
}

export function startServerProcess({ count = 3_000, index, readyWhen = /try: curl|keys:/ }: ServerSource = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-gas-'));
  const key = 'gas-harness-key-000000000000000001';
  writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key, tier: 'tier_2' }], tiers: { tier_2: { ratePerSecond: 1_000, burst: 1_000 } } }));
  const bin = join(__dirname, '../../bin/orgindex.js');
  const data = index !== undefined ? ['--index', index] : ['--count', String(count)];
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...data, '--keys', join(dir, 'keys.json'), '--state-dir', join(dir, 'state'), '--log-level', 'silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const close = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const ready = /ready at (http:\/\/\S+)\/v2/.exec(stderr);
      if (ready?.[1] && readyWhen.test(stderr)) resolve({ url: ready[1], key, output: () => stderr, close });
    });
    child.on('exit', (code) => {
      reject(new Error(`server exited with ${String(code)}: ${stderr}`));
    });
  });
}
