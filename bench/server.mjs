// Load benchmark of the HTTP server (npm run bench:server): the real server in its own process on a
// loopback port, autocannon in this one (two cores: one each). Rate limits are lifted with an admin key;
// every answered request is still counted durably in the quota journal, as in production.
// Usage: npm run bench:server [-- --count 100000] [-- --duration 10] [-- --connections 32] [-- --durability fsync,write]
//        [-- --database URL|local]
// Each durability level of the quota journal gets its own server run, one after the other. With --database
// the server counts in PostgreSQL instead (orgindex serve --database; "local": a throwaway cluster from the
// packaged binaries, as the tests start one), the journal levels are not run, and the key lives in the database.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { generateDataset, DEFAULT_DATASET } from '../dist/lib/index.js';
import { INDUSTRY_CLASSES } from '../dist/lib/engine/dataset/industries.js';
import { Random } from '../dist/lib/engine/random.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const count = Number(arg('--count', '100000'));
const duration = Number(arg('--duration', '10'));
const connections = Number(arg('--connections', '32'));
const databaseArg = arg('--database', null);
const durabilities = databaseArg ? ['database'] : arg('--durability', 'fsync,write').split(',');

const dir = mkdtempSync(join(tmpdir(), 'orgindex-bench-server-'));
let key = 'bench-admin-key-0000000000000001';
writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key, tier: 'tier_2', admin: true }] }));

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
  const made = spawnSync(process.execPath, ['bin/orgindex.js', 'keys', 'create', '--database', database, '--tier', 'tier_2', '--admin', '--name', 'bench'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  key = made.stdout.trim();
}

function startServer(durability) {
  const where = database ? ['--database', database] : ['--keys', join(dir, 'keys.json'), '--durability', durability];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/orgindex.js', 'serve', '--port', '0', '--count', String(count), ...where, '--state-dir', join(dir, 'state'), '--log-level', 'warn'], {
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const ready = /ready at (http:\/\/\S+)\/v2/.exec(text);
      if (ready && /relevance structures built in ([\d.]+) s/.test(text)) resolve({ child, url: ready[1], log: text });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
  });
}

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

const rows = [];
for (const durability of durabilities) {
  const { child, url, log } = await startServer(durability);
  console.log(`journal durability "${durability}":`);
  console.log(log.trim().split('\n').filter((line) => /ready|relevance/.test(line)).join('\n'));
  try {
    for (const scenario of scenarios) {
      const result = await autocannon({
        url: `${url}${scenario.path}`,
        connections,
        duration,
        requests: scenario.bodies.map((body) => ({ method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) })),
      });
      const ok = result['2xx'];
      const failed = result.non2xx + result.errors + result.timeouts;
      rows.push({ ...scenario, durability, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok, failed });
      console.log(`${scenario.name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${ok} ok, ${failed} failed`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
rmSync(dir, { recursive: true, force: true });

console.log(`\n### ${count.toLocaleString('en')} organizations, ${connections} connections, ${duration} s per row (autocannon; server and load generator one core each)\n`);
console.log('| request | journal | req/s | p50 | p99 | failed | target |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${r.durability} | ${r.rps.toFixed(0)} | ${r.p50} ms | ${r.p99} ms | ${r.failed} | ${r.target ?? ''} |`);
stopDatabase();
