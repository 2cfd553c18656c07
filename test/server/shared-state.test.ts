/**
 * Two real `orgindex serve --database` processes on one PostgreSQL (a throwaway cluster started here) act
 * as one service: one key, one bucket, one quota count; kill -9 loses no answered request; health says
 * when the database is gone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { startPostgres, usePostgres } from '../support/postgres.js';

const bin = resolve(__dirname, '../../bin/orgindex.js');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A server on the database; resolves with its URL once it says it is ready. */
function serveOn(database: string): Promise<{ url: string; child: ChildProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-shared-'));
  dirs.push(dir);
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--count', '300', '--database', database, '--state-dir', dir, '--log-level', 'silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /ready at (http:\/\/\S+)\/v2/.exec(stderr)?.[1];
      if (url && /try: curl/.test(stderr)) resolvePromise({ url, child });
    });
    child.on('exit', (code) => {
      reject(new Error(`serve exited ${String(code)}: ${stderr}`));
    });
  });
}

function createKey(database: string, tier: string): string {
  const made = spawnSync(process.execPath, [bin, 'keys', 'create', '--database', database, '--tier', tier], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  return made.stdout.trim();
}

const search = (url: string, key: string): Promise<Response> =>
  fetch(`${url}/v2/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 2 }) });

async function countedRequests(database: string): Promise<number> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  const { rows } = await client.query<{ n: string | null }>('SELECT sum(requests) AS n FROM quota_usage');
  await client.end();
  return Number(rows[0]?.n ?? 0);
}

describe('two servers, one database', () => {
  const cluster = usePostgres();

  test("a tier_1 key's burst of 5 is one burst across both; every answer counted once, kill -9 included", async () => {
    const database = await cluster().createDatabase();
    const key = createKey(database, 'tier_1');
    const [a, b] = await Promise.all([serveOn(database), serveOn(database)]);
    const started = Date.now();
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => search(i % 2 === 0 ? a.url : b.url, key).then((response) => response.status)));
    const seconds = (Date.now() - started) / 1000;
    const answered = statuses.filter((status) => status === 200).length;
    // One bucket of 5, refilled at 2 a second while the requests ran; two buckets would have let 10 through.
    expect(answered).toBeGreaterThanOrEqual(5);
    expect(answered).toBeLessThanOrEqual(5 + Math.ceil(seconds * 2));
    expect(statuses.filter((status) => status === 429)).toHaveLength(12 - answered);
    a.child.kill('SIGKILL');
    expect(await countedRequests(database)).toBe(answered);
    // The survivor still serves the key, and counts on.
    await new Promise((done) => setTimeout(done, 600));
    expect((await search(b.url, key)).status).toBe(200);
    expect(await countedRequests(database)).toBe(answered + 1);
  }, 60_000);

  test('a database without keys stops the start with what to do; a wrong URL names it without the password', () => {
    const empty = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--count', '10', '--database', cluster().url.replace('/orgindex', '/postgres')], { encoding: 'utf8' });
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('the database holds no live key: orgindex keys create --database');
    const wrong = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--count', '10', '--database', 'postgres://u:hunter2@127.0.0.1:1/x'], { encoding: 'utf8' });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('cannot reach the database at postgres://u:***@127.0.0.1:1/x');
    expect(wrong.stderr).not.toContain('hunter2');
  }, 60_000);
});

test('/v2/health says the database cannot be reached once it is gone', async () => {
  const own = await startPostgres();
  const database = await own.createDatabase('health');
  createKey(database, 'tier_2');
  const { url } = await serveOn(database);
  expect(await (await fetch(`${url}/v2/health`)).json()).toEqual({ healthy: true });
  await own.stop();
  const health = (await (await fetch(`${url}/v2/health`)).json()) as { healthy: boolean; error: string };
  expect(health.healthy).toBe(false);
  expect(health.error).toMatch(/^the database cannot be reached: /);
}, 120_000);
