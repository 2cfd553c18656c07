// Benchmark of the index at scale (npm run bench:scale): build a snapshot of N generated organizations with
// the real command (orgindex index build, in its own process: its wall time and peak RSS), load it in this
// process as `serve --index` does (load time, RSS once ready), then time the requests that decide whether it is usable, in
// process (no HTTP): keyword search, filter-mode page, 2-D stats, fetch of 5,000 domains, semantic and
// hybrid search, p50 / p95. Finally the time `orgindex serve --index` takes to answer.
// Usage: npm run bench:scale [-- --count 1000000] [-- --dir /path/to/snapshot] [-- --keep]
// An existing --dir snapshot of the same count is reused (building 20,000,000 takes a while).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine } from '../dist/lib/index.js';
import { readManifest, readSnapshot } from '../dist/lib/server/index-snapshot.js';
import { warmRelevance } from '../dist/lib/engine/relevance/store-relevance.js';
import { prepareVectorScan } from '../dist/lib/engine/relevance/vector-scan.js';
import { startScanThread } from '../dist/lib/server/scan-thread.js';
import { INDUSTRY_CLASSES } from '../dist/lib/engine/dataset/industries.js';
import { Random } from '../dist/lib/engine/random.js';
import { postingsOf } from '../dist/lib/engine/store/postings.js';
import { filterCases } from './filter-cases.mjs';
import { fmt, gc, time } from './timing.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const count = Number(arg('--count', '1000000'));
const given = arg('--dir', null);
const dir = given ?? join(mkdtempSync(join(tmpdir(), 'orgindex-bench-scale-')), 'index');
const gb = (bytes) => `${(bytes / 1e9).toFixed(2)} GB`;

/** A memory line of a running process's /proc status in bytes (VmHWM: its peak, VmRSS: now); 0 where there is none. */
function statusBytes(pid, field) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
    return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
const peakRss = (pid) => statusBytes(pid, 'VmHWM');
const residentNow = (pid) => statusBytes(pid, 'VmRSS');

/** Runs the orgindex command to its end; its wall time and the peak RSS seen while it ran. */
function run(argv) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--max-old-space-size=16000', 'bin/orgindex.js', ...argv], { stdio: ['ignore', 'inherit', 'inherit'] });
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, peakRss(child.pid))), 250);
    child.on('exit', (code) => {
      clearInterval(poll);
      if (code === 0) resolve({ seconds: (performance.now() - started) / 1000, peak });
      else reject(new Error(`orgindex ${argv.join(' ')} exited ${code}`));
    });
  });
}

console.log(`== ${count.toLocaleString('en')} organizations, snapshot ${dir}`);
let build = null;
if (existsSync(join(dir, 'manifest.json')) && readManifest(dir).organizations === count) console.log('reusing the snapshot there');
else build = await run(['index', 'build', '--count', String(count), '--out', dir, '--replace']);

// The server first, alone: launch to listening, and to its warm-up done (keyword index and vectors ready,
// dedup's name groups and the filter spellings built).
const served = await new Promise((resolve, reject) => {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/orgindex.js', 'serve', '--index', dir, '--port', '0', '--state-dir', join(dir, '..', 'state'), '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  let listening = null;
  let warm = null;
  let rssWarm = 0;
  let rssPeak = 0;
  child.stderr.on('data', (chunk) => {
    text += chunk;
    if (listening === null && /ready at/.test(text)) listening = (performance.now() - started) / 1000;
    if (warm === null && /relevance structures/.test(text)) {
      warm = (performance.now() - started) / 1000;
      rssWarm = residentNow(child.pid);
      rssPeak = peakRss(child.pid);
      child.kill('SIGTERM');
    }
  });
  // Its memory is given back before this process loads the snapshot (two copies of 20,000,000 do not fit).
  child.on('exit', (code) => (warm !== null ? resolve({ listening, warm, rssWarm, rssPeak }) : reject(new Error(`serve exited ${code}: ${text}`))));
});


gc();
const loading = performance.now();
// As serve does: the vector scan on two threads where there are two cores, started first so that the
// snapshot's scan records are read into its shared memory.
const scanThreads = startScanThread() ? 2 : 1;
const { store, bytes } = readSnapshot(dir);
const index = new Engine(store);
const loaded = (performance.now() - loading) / 1000;
await prepareVectorScan();
warmRelevance(store);
const ready = (performance.now() - loading) / 1000;
const postingsStart = performance.now();
postingsOf(store).warm();
const postingsSeconds = (performance.now() - postingsStart) / 1000;
const postingsBytes = postingsOf(store).bytes();
gc();
const rss = process.memoryUsage().rss;
console.log(`loaded in ${loaded.toFixed(1)} s (${gb(bytes)}), relevance ready after ${ready.toFixed(1)} s, filter postings built in ${postingsSeconds.toFixed(1)} s (${gb(postingsBytes)}); RSS ${gb(rss)}; vector scan on ${scanThreads} thread(s)`);

const random = new Random(13);
const words = [...new Set(INDUSTRY_CLASSES.flatMap((c) => c.keywords).filter((k) => /^[a-z]+$/.test(k)))];
const describe = () => {
  const c = random.pick(INDUSTRY_CLASSES);
  return `${random.pick(c.offerings)} ${random.pick(c.audiences)}`;
};
const countries = index.filterOptions().country ?? ['Deutschland'];
const keywordBodies = Array.from({ length: 50 }, () => ({ keywords: { must_all: [random.pick(words)] }, size: 100, columns: ['domain', 'name', 'country'] }));
const filterBodies = Array.from({ length: 50 }, () => ({ filters: { country: [random.pick(countries)] }, size: 100, columns: ['domain', 'name', 'country'] }));
const fetchBody = { domains: Array.from({ length: 5000 }, () => store.domain(random.int(0, store.size - 1))), columns: ['domain', 'name', 'country', 'nace_code'] };
const semanticBodies = Array.from({ length: 20 }, () => ({ describe: describe(), size: 100, columns: ['domain', 'name'] }));
const hybridBodies = Array.from({ length: 20 }, () => ({ keywords: { must_any: [random.pick(words)] }, describe: describe(), size: 100, columns: ['domain', 'name'] }));
const statsBody = { group_by: 'state', group_by_secondary: 'organization_size' };
// Filter pages from the broad one-country page to selective ones, each case over 20 sampled organizations' values.
const sampled = store
  .rows(Array.from({ length: 20 }, () => random.int(0, store.size - 1)), ['country', 'state', 'municipality', 'organization_size', 'organization_type', 'company_register_date'])
  .map((row) => ({ ...row, register_date: row.company_register_date }));
const cases = Object.entries(filterCases(sampled)).map(([name, list]) => {
  const bodies = list.map((filters) => ({ filters, size: 100, columns: ['domain', 'name', 'country'] }));
  const totals = bodies.map((body) => index.search(body).metadata.total_hits);
  const mean = Math.round(totals.reduce((a, b) => a + b, 0) / totals.length);
  return [`filter page: ${name} (100 rows, exact total; mean total ${mean.toLocaleString('en')})`, time((i) => index.search(bodies[i % bodies.length]), 200), name.includes('broad') ? '≤ 20 ms' : count >= 20_000_000 ? '≤ 3 ms' : '≤ 0.5 ms at 1 M'];
});
const townBodies = sampled.filter((o) => o.municipality).map((o) => ({ describe: describe(), filters: { municipality: [o.municipality] }, size: 100, columns: ['domain', 'name'] }));

// Fewer runs where one request takes long (stats, semantic at millions of rows).
const heavy = count >= 5_000_000;
const rows = [
  ['keyword search (100 rows)', time((i) => index.search(keywordBodies[i % 50]), 200), '≤ 25 ms'],
  ['filter-mode page (100 rows)', time((i) => index.search(filterBodies[i % 50]), 200), '≤ 20 ms'],
  ...cases,
  ['fetch 5,000 domains', time(() => index.fetch(fetchBody), heavy ? 20 : 50, 3), '≤ 20 ms'],
  ['2-D stats (state × size)', time(() => index.stats(statsBody), heavy ? 10 : 30, 2), '≤ 1.5 s'],
  ['semantic search (100 rows)', time((i) => index.search(semanticBodies[i % 20]), heavy ? 20 : 60, 3), '≤ 250 ms'],
  ['hybrid search (100 rows)', time((i) => index.search(hybridBodies[i % 20]), heavy ? 20 : 60, 3), ''],
  ['semantic search in one municipality (100 rows)', time((i) => index.search(townBodies[i % townBodies.length]), 100, 5), '≤ 5 ms at 20 M'],
];
for (const [name, timing] of rows) console.log(`${name}: ${fmt(timing)}`);
gc();
// After the requests too: a keyword query's per-organization buffers, the scan's output arrays.
const rssAfter = process.memoryUsage().rss;

console.log(`\n### ${count.toLocaleString('en')} organizations (generated, seed ${readManifest(dir).source.match(/seed (\d+)/)?.[1] ?? '?'})\n`);
console.log('| measure | value | target |');
console.log('|---|---|---|');
if (build) console.log(`| snapshot build (orgindex index build, generation included) | ${build.seconds.toFixed(0)} s, peak RSS ${gb(build.peak)} | |`);
console.log(`| snapshot size | ${gb(bytes)} | |`);
console.log(`| snapshot load (read, checksums, restore) | ${loaded.toFixed(1)} s (relevance ready ${ready.toFixed(1)} s) | ≤ 60 s |`);
console.log(`| filter postings in memory (read with the snapshot; ${postingsSeconds.toFixed(1)} s to make any missing) | ${gb(postingsBytes)} | |`);
console.log(`| orgindex serve --index: launch to listening / warm-up done | ${served.listening.toFixed(1)} s / ${served.warm.toFixed(1)} s | |`);
console.log(`| orgindex serve --index: RSS once warm (peak while starting) | ${gb(served.rssWarm)} (${gb(served.rssPeak)}) | ≤ 16 GB |`);
console.log(`| this process: RSS loaded and ready / after the requests | ${gb(rss)} / ${gb(rssAfter)} | ≤ 16 GB |`);
for (const [name, timing, target] of rows) console.log(`| ${name} | p50 ${timing.p50.toFixed(2)} ms, p95 ${timing.p95.toFixed(2)} ms | ${target} |`);
if (!given && !args.includes('--keep')) rmSync(join(dir, '..'), { recursive: true, force: true });
