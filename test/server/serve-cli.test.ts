/** `orgindex serve` as a user runs it: a real process, its printed key and URL, its exit codes. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bin = resolve(__dirname, '../../bin/orgindex.js');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'orgindex-serve-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  stderr: string;
  code: number | null;
}

/** Runs the command until it prints the ready line (then calls `whileReady`, then SIGTERM) or exits. */
function serve(args: string[], whileReady?: (url: string, stderr: string) => Promise<void>): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'silent', ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let ready = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /ready at (http:\/\/\S+)\/v2/.exec(stderr);
      if (match && !ready && /try: curl/.test(stderr)) {
        ready = true;
        (whileReady ?? (() => Promise.resolve()))(match[1]!, stderr).then(
          () => child.kill('SIGTERM'),
          (error: unknown) => {
            child.kill('SIGKILL');
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      }
    });
    child.on('exit', (code) => {
      resolvePromise({ stderr, code });
    });
  });
}

test('without --keys: a development key is created, printed and works; SIGTERM exits 0', async () => {
  const run = await serve(['--count', '800'], async (url, stderr) => {
    const key = /development key \(tier_2\): (\S+)/.exec(stderr)![1]!;
    const response = await fetch(`${url}/v2/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 3 }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(3);
  });
  expect(run.code).toBe(0);
  expect(run.stderr).toMatch(/800 organizations, started in [\d.]+ s/);
  expect(run.stderr).toMatch(/SIGTERM: closing/);
  const keysFile = join(dir, '.orgindex', 'keys.json');
  expect(statSync(keysFile).mode & 0o077).toBe(0); // readable by the owner only
  const key = (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: { key: string }[] }).keys[0]!.key;
  expect(run.stderr).toContain(key);
  // A second start reuses the file and prints the same key.
  const again = await serve(['--count', '800']);
  expect(again.stderr).toContain(key);
}, 30_000);

test('a data file with bad rows is refused with the rows named, exit 1', async () => {
  const data = join(dir, 'orgs.jsonl');
  writeFileSync(data, `${JSON.stringify({ domain: 'good.de', name: 'Good GmbH', country: 'Deutschland' })}\n{"domain": 42}\nnot json\n`);
  const run = await serve(['--data', data]);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/has 2 bad row\(s\); nothing is served until they are fixed/);
  expect(run.stderr).toMatch(/line 2: /);
  expect(run.stderr).toMatch(/line 3: /);
}, 30_000);

test('bad options exit 2 with a message; a broken keys file exits 1 naming the problem', async () => {
  expect((await serve(['--port', 'eighty'])).code).toBe(2);
  const both = await serve(['--count', '10', '--data', 'x.jsonl']);
  expect(both.code).toBe(2);
  expect(both.stderr).toMatch(/--data or --count, not both/);
  const keys = join(dir, 'keys.json');
  writeFileSync(keys, JSON.stringify({ keys: [{ key: 'short', tier: 'tier_3' }] }));
  const broken = await serve(['--keys', keys, '--count', '10']);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toMatch(/keys file: keys\.0\.key: .*16 characters.*keys\.0\.tier/);
  expect(existsSync(join(dir, '.orgindex', 'keys.json'))).toBe(false);
}, 30_000);
