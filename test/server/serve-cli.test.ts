/** `orgindex serve` as a user runs it: a real process, its printed key and URL, its exit codes. */
import { spawn, spawnSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hs256Token } from './support.js';

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
function serve(args: string[], whileReady?: (url: string, stderr: string) => Promise<void>, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'silent', ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
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
  expect(both.stderr).toMatch(/give one of --index, --data and --count/);
  const keys = join(dir, 'keys.json');
  writeFileSync(keys, JSON.stringify({ keys: [{ key: 'short', tier: 'tier_3' }] }));
  const broken = await serve(['--keys', keys, '--count', '10']);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toMatch(/keys file: keys\.0\.key: .*16 characters.*keys\.0\.tier/);
  expect(existsSync(join(dir, '.orgindex', 'keys.json'))).toBe(false);
  for (const pair of ['intranet.example', 'intranet.example=not-an-address', '=10.0.0.5']) {
    const resolveRun = await serve(['--count', '10', '--resolve', pair]);
    expect(resolveRun.code).toBe(2);
    expect(resolveRun.stderr).toMatch(/--resolve takes HOST=ADDRESS/);
  }
}, 30_000);

test('--resolve HOST=ADDRESS: /v1/qna fetches that host at that address without asking DNS', async () => {
  const site = createHttpServer((request, response) => {
    if (request.url === '/robots.txt') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Intranet</title></head><body><p>The bakery was founded in 1987 in Graz.</p></body></html>');
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  const port = (site.address() as AddressInfo).port;
  const secret = 'serve-cli-resolve-secret-0123456789abcdef';
  try {
    const run = await serve(['--count', '10', '--allow-private-fetch', '--resolve', 'intranet.example=127.0.0.1'], async (url) => {
      const response = await fetch(`${url}/v1/qna`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await hs256Token(secret)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'When was the bakery founded?', domain: `http://intranet.example:${port}/` }),
      });
      const body = (await response.json()) as { success?: boolean; data?: { sources: string[]; answer: string } };
      expect(response.status).toBe(200);
      expect(body.success).toBe(true);
      expect(body.data?.sources).toEqual(['Intranet']);
      expect(body.data?.answer).toMatch(/1987/);
    }, { ORGINDEX_JWT_SECRET: secret });
    expect(run.code).toBe(0);
  } finally {
    site.close();
  }
}, 30_000);

describe('the JWT secret', () => {
  test('an empty one is refused at start with exit 2, from --jwt-secret or from ORGINDEX_JWT_SECRET', async () => {
    const flag = await serve(['--count', '10', '--jwt-secret', '']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/orgindex serve: --jwt-secret is empty; give a secret of at least 32 random bytes/);
    const environment = await serve(['--count', '10'], undefined, { ORGINDEX_JWT_SECRET: '' });
    expect(environment.code).toBe(2);
    expect(environment.stderr).toMatch(/orgindex serve: ORGINDEX_JWT_SECRET is set but empty; give a secret of at least 32 random bytes .*or unset it/);
    const blank = await serve(['--count', '10', '--jwt-secret', '   ']);
    expect(blank.code).toBe(2);
    expect(existsSync(join(dir, '.orgindex'))).toBe(false); // refused before anything was written
  }, 30_000);

  test('a short one starts with one warning; bearer requests are answered, never a 500', async () => {
    const secret = 'short-secret';
    const run = await serve(['--count', '200', '--jwt-secret', secret], async (url) => {
      const sublocations = (authorization: string) =>
        fetch(`${url}/v1/sublocations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: '{"parent_level":"all","parent_value":""}' });
      expect((await sublocations(`Bearer ${await hs256Token(secret)}`)).status).toBe(200);
      for (const token of ['not.a.jwt', 'x', '..', `${(await hs256Token(secret)).slice(0, -4)}AAAA`, await hs256Token('another-secret-0000000000000000000')]) {
        expect((await sublocations(`Bearer ${token}`)).status).toBe(403);
      }
    });
    expect(run.code).toBe(0);
    const warnings = run.stderr.match(/warning: the JWT secret is 12 bytes; HS256 wants at least 32 \(RFC 7518 §3\.2\)/g) ?? [];
    expect(warnings).toHaveLength(1);
  }, 30_000);
});

describe('sign-in tokens for development', () => {
  const generate = async (url: string, token: string) =>
    fetch(`${url}/v1/generate-keywords`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ keywords: ['bakery'] }) });

  test('on its development defaults serve prints a token that the language routes accept; orgindex token makes another', async () => {
    const noSecret = spawnSync(process.execPath, [bin, 'token'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ORGINDEX_JWT_SECRET: '' } });
    expect(noSecret.status).toBe(2);
    expect(noSecret.stderr).toMatch(/no secret: set ORGINDEX_JWT_SECRET .* start `orgindex serve` once/);
    const run = await serve(['--count', '10'], async (url, stderr) => {
      const printed = /development sign-in token \(12 h; `orgindex token` makes another\): (\S+)/.exec(stderr)?.[1];
      expect(printed).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
      expect((await generate(url, printed ?? '')).status).toBe(200);
      const made = spawnSync(process.execPath, [bin, 'token', '--sub', 'ada', '--expires', '30m'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ORGINDEX_JWT_SECRET: '' } });
      expect(made.status).toBe(0);
      const token = made.stdout.trim().split('\n').pop() ?? '';
      expect(JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'))).toEqual(expect.objectContaining({ sub: 'ada', username: 'developer', 'idp:groups': ['developers'] }));
      expect((await generate(url, token)).status).toBe(200);
      expect((await generate(url, `${token.slice(0, -2)}xx`)).status).toBe(401);
    });
    expect(run.code).toBe(0);
    expect(statSync(join(dir, '.orgindex', 'jwt-secret')).mode & 0o777).toBe(0o600);
  }, 30_000);

  test('a server given its own keys or secret makes no development secret', async () => {
    const keys = join(dir, 'keys.json');
    writeFileSync(keys, JSON.stringify({ keys: [{ key: 'serve-cli-test-key-000000000001', tier: 'tier_2' }] }));
    const run = await serve(['--count', '10', '--keys', keys], (_url, stderr) => {
      expect(stderr).not.toMatch(/sign-in token/);
      return Promise.resolve();
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, '.orgindex', 'jwt-secret'))).toBe(false);
  }, 30_000);
});

test('a keys file written by `orgindex keys create` (hashes only) serves the key it printed, and not another', async () => {
  const keys = join(dir, 'keys.json');
  const made = spawnSync(process.execPath, [bin, 'keys', 'create', '--keys', keys, '--tier', 'tier_1', '--name', 'reporting'], { encoding: 'utf8' });
  expect(made.status).toBe(0);
  const key = made.stdout.trim();
  expect(readFileSync(keys, 'utf8')).not.toContain(key);
  const run = await serve(['--count', '50', '--keys', keys], async (url) => {
    const ask = (apiKey: string) => fetch(`${url}/v2/search`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 1 }) });
    expect((await ask(key)).status).toBe(200);
    // Another key: the last digit changed (to 1 when it is 0, so that it always differs).
    expect((await ask(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`)).status).toBe(401);
  });
  expect(run.code).toBe(0);
}, 30_000);

test('--exit-with-stdin: the server stops, releasing its state directory, when the process holding its stdin goes', async () => {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'silent', '--count', '10', '--exit-with-stdin'], { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((ready) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/try: curl/.test(stderr)) ready();
    });
  });
  expect(existsSync(join(dir, '.orgindex', 'LOCK'))).toBe(true);
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  child.stdin.end();
  expect(await exited).toBe(0);
  expect(stderr).toMatch(/stdin closed: closing/);
  expect(existsSync(join(dir, '.orgindex', 'LOCK'))).toBe(false);
}, 30_000);
