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
  close(): void;
}

export function startServerProcess(count = 3_000): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-gas-'));
  const key = 'gas-harness-key-000000000000000001';
  writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key, tier: 'tier_2' }], tiers: { tier_2: { ratePerSecond: 1_000, burst: 1_000 } } }));
  const bin = join(__dirname, '../../bin/orgindex.js');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--count', String(count), '--keys', join(dir, 'keys.json'), '--state-dir', join(dir, 'state'), '--log-level', 'silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const close = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const ready = /ready at (http:\/\/\S+)\/v2/.exec(stderr);
      if (ready?.[1] && /try: curl|keys:/.test(stderr)) resolve({ url: ready[1], key, close });
    });
    child.on('exit', (code) => {
      reject(new Error(`server exited with ${String(code)}: ${stderr}`));
    });
  });
}
