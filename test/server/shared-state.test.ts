/**
 * Two real `orgindex serve --database` processes on one PostgreSQL (a throwaway cluster started here) act
 * as one service: one key, one bucket, one quota count; kill -9 loses no answered request; health says
 * when the database is gone. `serve --workers 2` does the same on one port, replaces a killed worker, and
 * its workers stop when their supervisor is killed.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { startPostgres, usePostgres } from '../support/postgres.js';
import { countedRequests, serveOnDatabase, type DatabaseServer } from '../support/serve-on-database.js';

const bin = resolve(__dirname, '../../bin/orgindex.js');
const started: DatabaseServer[] = [];
afterEach(async () => {
  await Promise.all(
    started.splice(0).map((served) => {
      served.child.kill('SIGKILL');
      return served.close();
    }),
  );
});

/** A server on the database (`--workers n` when given), stopped after the test. */
async function serveOn(database: string, workers?: number): Promise<DatabaseServer> {
  const served = await serveOnDatabase(database, workers ? { extra: ['--workers', String(workers)] } : {});
  started.push(served);
  return served;
}

function createKey(database: string, tier: string): string {
  const made = spawnSync(process.execPath, [bin, 'keys', 'create', '--database', database, '--tier', tier], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  return made.stdout.trim();
}

const search = (url: string, key: string): Promise<Response> =>
  fetch(`${url}/v2/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 2 }) });

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

  test('keys created and revoked while servers run apply within seconds, without a restart', async () => {
    const database = await cluster().createDatabase();
    createKey(database, 'tier_2');
    const served = await serveOn(database);
    const late = createKey(database, 'tier_2');
    const statusWithin = async (want: number): Promise<number> => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const status = (await search(served.url, late)).status;
        if (status === want || Date.now() > deadline) return status;
        await new Promise((done) => setTimeout(done, 250));
      }
    };
    expect(await statusWithin(200)).toBe(200);
    const id = (JSON.parse(spawnSync(process.execPath, [bin, 'keys', 'list', '--database', database, '--json'], { encoding: 'utf8' }).stdout) as { id: string }[])[1]!.id;
    const revoked = spawnSync(process.execPath, [bin, 'keys', 'revoke', id, '--database', database], { encoding: 'utf8' });
    expect(revoked.stderr).toContain('servers on the database apply it within 5 seconds');
    expect(await statusWithin(401)).toBe(401);
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
  try {
    const database = await own.createDatabase('health');
    createKey(database, 'tier_2');
    const { url } = await serveOn(database);
    expect(await (await fetch(`${url}/v2/health`)).json()).toEqual({ healthy: true, database: 'reachable' });
    await own.stop();
    const health = (await (await fetch(`${url}/v2/health`)).json()) as { healthy: boolean; error: string };
    expect(health).toMatchObject({ healthy: false, database: 'unreachable' });
    expect(health.error).toMatch(/^the database cannot be reached \(no connection\): requests with an API key answer 503 until it returns/);
    expect(health.error).not.toMatch(/127\.0\.0\.1|ECONN/);
  } finally {
    await own.stop();
  }
}, 120_000);

/** A POST on a connection of its own (so that the cluster hands each to a worker in turn). */
function postOnNewConnection(url: string, path: string, key: string, payload: unknown): Promise<{ status: number; body: unknown }> {
  const body = JSON.stringify(payload);
  return new Promise((resolvePromise, reject) => {
    const sent = request(`${url}${path}`, { method: 'POST', agent: false, headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => { resolvePromise({ status: response.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text }); });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const searchOnNewConnection = async (url: string, key: string): Promise<number> => (await postOnNewConnection(url, '/v2/search', key, { filters: { country: ['Deutschland'] }, size: 2 })).status;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

describe('orgindex serve --workers', () => {
  const cluster = usePostgres();

  test('two workers on one port are one service; a killed worker is replaced; killing the supervisor stops the workers', async () => {
    const database = await cluster().createDatabase();
    const key = createKey(database, 'tier_1');
    const walker = createKey(database, 'tier_2');
    const served = await serveOn(database, 2);
    const pids = /pids (\d+), (\d+)\)/.exec(served.stderr())!.slice(1).map(Number);
    expect(pids).toHaveLength(2);
    const started = Date.now();
    const statuses = await Promise.all(Array.from({ length: 12 }, () => searchOnNewConnection(served.url, key)));
    const seconds = (Date.now() - started) / 1000;
    const answered = statuses.filter((status) => status === 200).length;
    expect(answered).toBeGreaterThanOrEqual(5);
    expect(answered).toBeLessThanOrEqual(5 + Math.ceil(seconds * 2));
    expect(await countedRequests(database)).toBe(answered);

    process.kill(pids[0]!, 'SIGKILL');
    await until(() => /worker pid \d+ ready/.test(served.stderr()), 'the replacement worker');
    expect(served.stderr()).toContain(`worker pid ${pids[0]} was killed (SIGKILL); starting another`);
    await new Promise((done) => setTimeout(done, 600));
    expect(await searchOnNewConnection(served.url, key)).toBe(200);
    expect(await searchOnNewConnection(served.url, key)).toBe(200);
    expect(await countedRequests(database)).toBe(answered + 2);

    // A v1 walk whose pages land on either worker: the PIT is in the database.
    const query = { search_id: '00000000-0000-4000-8000-000000000009', locations: { country: ['Deutschland'] }, size: 3 };
    type V1Page = { data: { domain: string }[]; metadata: { pit_id: string | null; search_after: unknown[] | null } };
    let page = (await postOnNewConnection(served.url, '/v1/search', walker, query)).body as V1Page;
    const walked = page.data.map((row) => row.domain);
    for (let n = 0; n < 4; n++) {
      const next = await postOnNewConnection(served.url, '/v1/search', walker, { ...query, pit_id: page.metadata.pit_id, search_after: page.metadata.search_after });
      expect(next.status).toBe(200);
      page = next.body as V1Page;
      walked.push(...page.data.map((row) => row.domain));
    }
    expect(new Set(walked).size).toBe(15);

    const workers = [pids[1]!, Number(/worker pid (\d+) ready/.exec(served.stderr())![1])];
    served.child.kill('SIGKILL');
    await until(() => workers.every((pid) => !alive(pid)), 'the workers to stop');
    await expect(searchOnNewConnection(served.url, key)).rejects.toThrow();
  }, 90_000);

  test('--workers without a database, or with a bad count, is refused at once (exit 2)', () => {
    const alone = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--workers', '2'], { encoding: 'utf8', env: { ...process.env, ORGINDEX_DATABASE_URL: '' } });
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('--workers needs --database');
    const bad = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--workers', 'many', '--database', cluster().url], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--workers takes a number of processes from 1 to 64, or "auto"');
  }, 30_000);
});
