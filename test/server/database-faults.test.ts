/**
 * The shared database as a dependency that fails, with the real thing: two `orgindex serve --database`
 * processes and a `--workers 2` supervisor on a real PostgreSQL (a throwaway cluster started here) under
 * steady load — a request every 50 ms to each — while the cluster is stopped, started again, frozen
 * (SIGSTOP: connections stay open and nothing answers, as in a partition) and resumed.
 *
 * What must hold: no server process exits; every request is answered — 200, or 503 with the documented
 * body and Retry-After — within a bounded wait; the answers that need no database (health, the language
 * routes) keep coming; every 200 is counted; the service answers 200 again within seconds of the
 * database's return (the recovery times are printed). And a worker that cannot start is tried again with
 * a back-off, while a supervisor left with no worker that can start exits 1.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { countedRequests, serveOnDatabase, type DatabaseServer } from '../support/serve-on-database.js';

const bin = resolve(__dirname, '../../bin/orgindex.js');
const SECRET = 'database-faults-test-secret-of-32-bytes!';
/** The longest a request may wait for its answer while the database is gone or frozen (the documented bound is 3 s to connect, 5 s of work, and a turn in the queue of at most the same). */
const ANSWER_BOUND_MS = 15_000;
/** Generous for a loaded 2-core machine: the design recovers on the first probe after the database answers (about a second). */
const RECOVERY_BOUND_MS = 20_000;

const started: DatabaseServer[] = [];
let postgres: Postgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  await Promise.all(
    started.splice(0).map((served) => {
      served.child.kill('SIGKILL');
      return served.close();
    }),
  );
  await postgres.fault('thaw').catch(() => undefined);
  await postgres.stop();
}, 60_000);

function serveOn(database: string, extra: string[] = [], logLevel = 'silent'): Promise<DatabaseServer> {
  const served = serveOnDatabase(database, { extra: ['--jwt-secret', SECRET, ...extra], logLevel });
  void served.then((server) => started.push(server), () => undefined);
  return served;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): string {
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout.trim();
}

/** A tier_2 key whose rate the load cannot reach (the tier's limits raised in the database). */
async function loadKey(database: string): Promise<string> {
  const key = cli(['keys', 'create', '--database', database, '--tier', 'tier_2']).split('\n').pop() ?? '';
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  await client.query(`INSERT INTO tier_limits (tier, limits) VALUES ('tier_2', '{"ratePerSecond": 1000, "burst": 1000}') ON CONFLICT (tier) DO UPDATE SET limits = excluded.limits`);
  await client.end();
  return key;
}

interface Answer {
  url: string;
  status: number;
  /** When it was sent and how long it took, ms. */
  at: number;
  ms: number;
  body: string;
  retryAfter: string | null;
}

/** A request every `everyMs` to each URL until stopped; every answer recorded (a refused connection is status 0). */
function steadyLoad(urls: string[], key: string, everyMs = 50): { answers: Answer[]; stop: () => Promise<void> } {
  const answers: Answer[] = [];
  const inFlight = new Set<Promise<void>>();
  const send = (url: string): void => {
    const at = Date.now();
    const sent = fetch(`${url}/v2/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 2 }), signal: AbortSignal.timeout(60_000) })
      .then(async (response) => {
        answers.push({ url, status: response.status, at, ms: Date.now() - at, body: await response.text(), retryAfter: response.headers.get('retry-after') });
      })
      .catch((error: unknown) => {
        answers.push({ url, status: 0, at, ms: Date.now() - at, body: String(error), retryAfter: null });
      });
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };
  const timer = setInterval(() => {
    for (const url of urls) send(url);
  }, everyMs);
  return {
    answers,
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...inFlight]);
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** How long after `since` each URL's load first answered 200 (sent after `since`); waits up to the bound. */
async function recovery(answers: Answer[], urls: string[], since: number): Promise<number[]> {
  const deadline = Date.now() + RECOVERY_BOUND_MS;
  for (;;) {
    const firsts = urls.map((url) => answers.find((answer) => answer.url === url && answer.at >= since && answer.status === 200));
    const times = firsts.flatMap((first) => (first ? [first.at + first.ms - since] : []));
    if (times.length === urls.length) return times;
    if (Date.now() > deadline) throw new Error(`no 200 from ${urls.filter((_, i) => !firsts[i]).join(', ')} within ${String(RECOVERY_BOUND_MS / 1000)} s of the database's return`);
    await sleep(100);
  }
}

const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/** Every answer a 200 or the documented 503; none waited longer than the bound; none refused at the socket. */
function expectAnswered(answers: readonly Answer[]): void {
  const odd = answers.filter((answer) => answer.status !== 200 && answer.status !== 503);
  expect(odd.map((answer) => `${String(answer.status)} ${answer.body}`)).toEqual([]);
  for (const refused of answers.filter((answer) => answer.status === 503)) {
    expect(JSON.parse(refused.body)).toEqual({ detail: expect.stringMatching(/^Service temporarily unavailable: its database cannot be reached; retry in \d+ seconds$/) });
    expect(refused.retryAfter).toMatch(/^\d+$/);
  }
  expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_BOUND_MS);
}

function bearerToken(): string {
  return cli(['token'], { ORGINDEX_JWT_SECRET: SECRET });
}

test('two servers and --workers 2 live through a stop, a restart, a freeze and a resume of their database under load', async () => {
  const database = await postgres.createDatabase('faults');
  const key = await loadKey(database);
  const [a, b, workers] = await Promise.all([serveOn(database), serveOn(database), serveOn(database, ['--workers', '2'])]);
  const servers = [a, b, workers];
  const urls = servers.map((served) => served.url);
  const load = steadyLoad(urls, key);
  const token = bearerToken();
  await sleep(1_500);

  // Stopped: the servers answer 503 (or 200 from what was under way), health says why, the language routes still work.
  await postgres.fault('down');
  await sleep(3_000);
  const health = (await (await fetch(`${a.url}/v2/health`)).json()) as { healthy: boolean; database: string; error: string };
  expect(health).toEqual({ healthy: false, database: 'unreachable', error: expect.stringContaining('the database cannot be reached') });
  expect(health.error).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
  const language = await fetch(`${a.url}/v1/generate-keywords`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ keywords: ['solar'] }) });
  expect(language.status).toBe(200);
  const upAt = Date.now();
  await postgres.fault('up');
  const afterRestart = await recovery(load.answers, urls, upAt);

  // Frozen: connections stay open and nothing answers; each request is still answered within the bound.
  await sleep(1_000);
  await postgres.fault('freeze');
  await sleep(8_000);
  const thawAt = Date.now();
  await postgres.fault('thaw');
  const afterThaw = await recovery(load.answers, urls, thawAt);
  await sleep(1_000);
  await load.stop();

  expectAnswered(load.answers);
  const statuses = new Map<number, number>();
  for (const answer of load.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
  for (const served of servers) expect(alive(served.child)).toBe(true);
  expect(workers.stderr()).not.toMatch(/worker pid \d+ (exited|was killed)/);
  // Every answered request is counted. A request answered 503 while its count was in a transaction the
  // database took but did not confirm may be counted too (never the reverse).
  const answered = statuses.get(200) ?? 0;
  const counted = await countedRequests(database);
  expect(counted).toBeGreaterThanOrEqual(answered);
  expect(counted - answered).toBeLessThanOrEqual(statuses.get(503) ?? 0);
  process.stderr.write(
    `database faults under load: ${String(load.answers.length)} requests, ${[...statuses].map(([status, n]) => `${String(n)}× ${String(status)}`).join(', ')}; ` +
      `slowest answer ${String(Math.max(...load.answers.map((answer) => answer.ms)))} ms; ` +
      `200 again ${afterRestart.map(String).join(' / ')} ms after the restart, ${afterThaw.map(String).join(' / ')} ms after the freeze ended; counted ${String(counted)} for ${String(answered)} answered\n`,
  );
}, 180_000);

test('idle connections the database ends (as a restart does) are logged as warnings, and the server serves on', async () => {
  const database = await postgres.createDatabase('idle_ended');
  const key = await loadKey(database);
  const served = await serveOn(database, [], 'warn');
  const search = async (): Promise<number> =>
    (await fetch(`${served.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 1 }) })).status;
  expect(await search()).toBe(200);
  const admin = new pg.Client({ connectionString: database });
  await admin.connect();
  const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle'");
  expect(rows.length).toBeGreaterThan(0);
  await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [rows.map((row) => row.pid)]);
  await admin.end();

  const warned = (): string[] => served.stdout().split('\n').filter((line) => line.includes('a database connection failed while idle'));
  const deadline = Date.now() + 10_000;
  while (warned().length === 0 && Date.now() < deadline) await sleep(100);
  expect(JSON.parse(warned()[0] ?? '{}')).toMatchObject({ level: 40, err: { message: expect.stringContaining('terminating connection due to administrator command') } });
  expect(alive(served.child)).toBe(true);
  expect(await search()).toBe(200);
}, 60_000);

test('--workers: a worker that cannot start is tried again with a back-off until it can; with none that can, the supervisor exits 1', async () => {
  const database = await postgres.createDatabase('workers_backoff');
  const key = await loadKey(database);
  const served = await serveOn(database, ['--workers', '2']);
  const pids = /pids (\d+), (\d+)\)/.exec(served.stderr())?.slice(1).map(Number) ?? [];
  expect(pids).toHaveLength(2);

  await postgres.fault('down');
  process.kill(pids[0] ?? 0, 'SIGKILL');
  // Its replacement cannot reach the database: it exits, and is tried again later, while the other worker answers.
  const deadline = Date.now() + 30_000;
  while (!/before it could serve; starting another in \d+ s/.test(served.stderr()) && Date.now() < deadline) await sleep(100);
  expect(served.stderr()).toMatch(/before it could serve; starting another in \d+ s/);
  expect((await fetch(`${served.url}/v2/health`)).status).toBe(200);
  await postgres.fault('up');
  const upAt = Date.now();
  while (!/worker pid \d+ ready/.test(served.stderr()) && Date.now() - upAt < 60_000) await sleep(100);
  expect(served.stderr()).toMatch(/worker pid \d+ ready/);
  expect(alive(served.child)).toBe(true);
  const search = await fetch(`${served.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 1 }) });
  expect(search.status).toBe(200);

  // Now the database goes for good and every worker is killed: no worker can start, and the supervisor says so with exit 1.
  await postgres.fault('down');
  const exited = new Promise<number | null>((done) => served.child.once('exit', (code) => { done(code); }));
  const live = [...served.stderr().matchAll(/worker pid (\d+) ready|pids (\d+), (\d+)\)/g)].flatMap((match) => match.slice(1).filter(Boolean).map(Number));
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  expect(await exited).toBe(1);
  expect(served.stderr()).toMatch(/no worker is left and \d+ starts in a row failed/);
  await postgres.fault('up');
}, 180_000);
