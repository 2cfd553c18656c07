// Load benchmark of the HTTP server (npm run bench:server): the real server in its own process on a
// loopback port, autocannon in this one (two cores: one each). Rate limits are lifted with an admin key;
// every answered request is still counted durably in the quota journal, as in production. With
// --rate-limited the key is a tier_2 key instead, its tier's limits raised beyond the load's reach: every
// request then takes a token and holds its place in the quotas before it runs, as a customer's does.
// Usage: npm run bench:server [-- --count 100000] [-- --duration 10] [-- --connections 32] [-- --durability fsync,write]
//        [-- --database URL|local [-- --workers 1,2]] [-- --only keyword,semantic] [-- --rate-limited]
// Each durability level of the quota journal gets its own server run, one after the other. With --database
// the server counts in PostgreSQL instead (orgindex serve --database; "local": a throwaway cluster from the
// packaged binaries, as the tests start one), the journal levels are not run, and the key lives in the
// database; each --workers count gets its own run (1: one process, no supervisor), and after each run the
// requests counted in the database are compared with the answers autocannon received.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { generateDataset, DEFAULT_DATASET } from '../dist/lib/index.js';
import { INDUSTRY_CLASSES } from '../dist/lib/engine/dataset/industries.js';
import { Random } from '../dist/lib/engine/random.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const count = Number(arg('--count', '100000'));
const duration = Number(arg('--duration', '10'));
const connections = Number(arg('--connections', '32'));
const databaseArg = arg('--database', null);
const only = arg('--only', null)?.split(',') ?? null;
const rateLimited = args.includes('--rate-limited');
/** tier_2's limits with --rate-limited: every request goes through the bucket and the quotas, none is refused. */
const unreachable = { ratePerSecond: 1e6, burst: 1e6, monthlyRequests: 1e12, monthlyStatsRequests: 1e12, monthlyResults: 1e15 };
/** One server run each: a journal durability, or (with --database) a number of workers. */
const runs = databaseArg
  ? arg('--workers', '1').split(',').map((workers) => ({ label: Number(workers) === 1 ? 'database, 1 process' : `database, ${workers} workers`, workers: Number(workers) }))
  : arg('--durability', 'fsync,write').split(',').map((durability) => ({ label: `journal ${durability}`, durability }));

const dir = mkdtempSync(join(tmpdir(), 'orgindex-bench-server-'));
let key = 'bench-admin-key-0000000000000001';
writeFileSync(join(dir, 'keys.json'), JSON.stringify(rateLimited ? { keys: [{ key, tier: 'tier_2' }], tiers: { tier_2: unreachable } } : { keys: [{ key, tier: 'tier_2', admin: true }] }));

/** The database URL to count in: the one given, or a throwaway cluster's (stopped when this process ends). */
async function benchDatabase() {
  if (databaseArg !== 'local') return databaseArg;
  const cluster = spawn(process.execPath, ['test/support/postgres-cluster.mjs'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: cluster.stdout });
  const next = () => new Promise((resolve) => lines.once('line', resolve));
  const { port, password } = JSON.parse(await next());
  cluster.stdin.write('create bench\n');
  if ((await next()) !== 'created bench') throw new Error('the bench database was not created');
  stopDatabase = () => cluster.stdin.end();
  return `postgres://postgres:${password}@127.0.0.1:${port}/bench`;
}

let stopDatabase = () => undefined;
const database = databaseArg ? await benchDatabase() : null;
if (database) {
  const made = spawnSync(process.execPath, ['bin/orgindex.js', 'keys', 'create', '--database', database, '--tier', 'tier_2', ...(rateLimited ? [] : ['--admin']), '--name', 'bench'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  key = made.stdout.trim();
  if (rateLimited) {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    await client.query('INSERT INTO tier_limits (tier, limits) VALUES ($1, $2) ON CONFLICT (tier) DO UPDATE SET limits = excluded.limits', ['tier_2', unreachable]);
    await client.end();
  }
}

function startServer(run) {
  const where = database ? ['--database', database, ...(run.workers > 1 ? ['--workers', String(run.workers)] : [])] : ['--keys', join(dir, 'keys.json'), '--durability', run.durability];
  // With workers, every one of them has built its relevance structures.
  const warm = run.workers > 1 ? /relevance structures built in every worker/ : /relevance structures built in ([\d.]+) s/;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/orgindex.js', 'serve', '--port', '0', '--count', String(count), ...where, '--state-dir', join(dir, 'state'), '--log-level', 'warn'], {
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const ready = /ready at (http:\/\/\S+)\/v2/.exec(text);
      if (ready && warm.test(text)) resolve({ child, url: ready[1], log: text });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
  });
}

/**
 * CPU seconds used so far by the server's processes (the one started and its children), PostgreSQL's and
 * this one's, from /proc (Linux; null elsewhere): where the two cores go.
 */
function cpuSeconds(serverPid) {
  if (!existsSync('/proc/self/stat')) return null;
  const processes = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      processes.push({ pid: Number(entry), comm, ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // gone meanwhile
    }
  }
  const server = new Set([serverPid]);
  for (let grown = true; grown; ) {
    grown = false;
    for (const p of processes) if (!server.has(p.pid) && server.has(p.ppid)) grown = server.add(p.pid) !== null;
  }
  const sum = (keep) => processes.filter(keep).reduce((total, p) => total + p.seconds, 0);
  return { server: sum((p) => server.has(p.pid)), postgres: sum((p) => p.comm === 'postgres'), bench: sum((p) => p.pid === process.pid) };
}

/**
 * countedRequests() once it stops moving (two reads 500 ms apart agree): requests a timed run cut off are
 * still answered and counted after autocannon returns, and must not land in the next measurement.
 */
async function settledCount() {
  for (let last = await countedRequests(); ; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await countedRequests();
    if (now === last) return now;
    last = now;
  }
}

/** One number from the bench database. */
async function databaseNumber(sql) {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query(sql);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/** The requests counted in the database for the bench key (all months). */
const countedRequests = () => databaseNumber('SELECT coalesce(sum(requests), 0)::bigint AS n FROM quota_usage');
/** Transactions committed in the bench database so far (each a WAL flush when it wrote): what counting costs PostgreSQL. */
const commits = () => databaseNumber('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');

// Request bodies from the same generator the server uses (same seed, so the domains exist).
const records = generateDataset({ ...DEFAULT_DATASET, count });
const random = new Random(5);
const words = [...new Set(INDUSTRY_CLASSES.flatMap((c) => c.keywords).filter((k) => /^[a-z]+$/.test(k)))];
const keywordBodies = Array.from({ length: 50 }, () => ({ keywords: { must_all: [random.pick(words)] }, size: 100, columns: ['domain', 'name', 'country'] }));
const describeOf = () => {
  const c = random.pick(INDUSTRY_CLASSES);
  return `${random.pick(c.offerings)} ${random.pick(c.audiences)}`;
};
const semanticBodies = Array.from({ length: 20 }, () => ({ describe: describeOf(), size: 100, columns: ['domain', 'name'] }));
const hybridBodies = Array.from({ length: 20 }, () => ({ keywords: { must_any: [random.pick(words)] }, describe: describeOf(), size: 100, columns: ['domain', 'name'] }));
const fetchBody = { domains: Array.from({ length: 5000 }, () => random.pick(records).domain), columns: ['domain', 'name', 'country', 'nace_code'] };
const statsBody = { group_by: 'state', group_by_secondary: 'organization_size' };

const scenarios = [
  { name: 'keyword search (100 rows)', path: '/v2/search', bodies: keywordBodies, target: '≥ 3,000 req/s, p99 ≤ 20 ms' },
  { name: 'semantic search (100 rows)', path: '/v2/search', bodies: semanticBodies },
  { name: 'hybrid search (100 rows)', path: '/v2/search', bodies: hybridBodies },
  { name: 'fetch 5,000 domains', path: '/v2/fetch', bodies: [fetchBody] },
  { name: '2-D stats (state × size)', path: '/v2/stats', bodies: [statsBody] },
];

const selected = only ? scenarios.filter((scenario) => only.some((word) => scenario.name.startsWith(word))) : scenarios;
const rows = [];
for (const run of runs) {
  const { child, url, log } = await startServer(run);
  console.log(`${run.label}:`);
  console.log(log.trim().split('\n').filter((line) => /ready|relevance|worker/.test(line)).join('\n'));
  const countedBefore = database ? await countedRequests() : 0;
  let answered = 0;
  try {
    for (const scenario of selected) {
      const cpuBefore = cpuSeconds(child.pid);
      const result = await autocannon({
        url: `${url}${scenario.path}`,
        connections,
        duration,
        requests: scenario.bodies.map((body) => ({ method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) })),
      });
      const ok = result['2xx'];
      answered += ok;
      const failed = result.non2xx + result.errors + result.timeouts;
      const cpuAfter = cpuSeconds(child.pid);
      const cores = cpuBefore && cpuAfter ? ['server', 'postgres', 'bench'].map((part) => ((cpuAfter[part] - cpuBefore[part]) / duration).toFixed(2)).join(' / ') : 'n/a';
      rows.push({ ...scenario, run: run.label, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok, failed, cores });
      console.log(`${scenario.name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${ok} ok, ${failed} failed; cores used by server / PostgreSQL / autocannon: ${cores}`);
    }
    if (database) {
      // A fixed number of requests, each awaited: every one answered, so the count must match exactly.
      const before = await settledCount();
      const commitsBefore = await commits();
      // Timed runs end by cutting the requests in flight: the server answered (and counted) them, autocannon did not record them.
      console.log(`timed runs: ${(before - countedBefore).toLocaleString('en')} requests counted in the database, ${answered.toLocaleString('en')} answers recorded by autocannon`);
      const exact = await autocannon({ url: `${url}/v2/search`, connections, amount: 2000, requests: [{ method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(keywordBodies[0]) }] });
      const counted = (await countedRequests()) - before;
      // Statistics reach pg_stat_database within a second of a transaction's end.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const committed = (await commits()) - commitsBefore;
      console.log(`exactly ${exact['2xx'].toLocaleString('en')} answered (2xx), ${counted.toLocaleString('en')} counted in the database${counted === exact['2xx'] ? '' : ' — MISMATCH'}; ${committed.toLocaleString('en')} transactions committed meanwhile (${(committed / exact['2xx']).toFixed(2)} per answer)`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
rmSync(dir, { recursive: true, force: true });

console.log(`\n### ${count.toLocaleString('en')} organizations, ${connections} connections, ${duration} s per row (autocannon in this process)\n`);
console.log('| request | server | req/s | p50 | p99 | failed | cores: server / PostgreSQL / autocannon | target |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${r.run} | ${r.rps.toFixed(0)} | ${r.p50} ms | ${r.p99} ms | ${r.failed} | ${r.cores} | ${r.target ?? ''} |`);
stopDatabase();
