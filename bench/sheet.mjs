// The spreadsheet functions as a workbook feels them (npm run bench:sheet): =ORG.FETCH over 10,000 cells
// and =ORG.SEARCH, cold (first calculation) and warm (recalculation from the cache), on the local backend
// (engine in-process, 50,000 sample) and on the remote backend (the real server in its own process on a
// loopback port, ky client) — side by side in one run; the cache persists to an in-memory stand-in of
// OfficeRuntime.storage. Also 5,000 single-cell formulas calculated together, the built add-in's size, and
// the Sheets bundle: its size and one execution's cold start (bench/appsscript-execution.mjs).
// Usage: npm run bench:sheet [-- --repeat 5]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDefaultEngine, createRemoteClient } from '../dist/lib/index.js';
import { localBackend, remoteBackend } from '../dist/lib/sheet/backend.js';
import { ResultCache } from '../dist/lib/sheet/cache.js';
import { clientOptionsOf, DEFAULT_CONNECTION } from '../dist/lib/sheet/connection.js';
import { SheetFunctions } from '../dist/lib/sheet/functions.js';

const args = process.argv.slice(2);
const repeat = Number(args.includes('--repeat') ? args[args.indexOf('--repeat') + 1] : '5');
const dir = mkdtempSync(join(tmpdir(), 'orgindex-bench-sheet-'));
const key = 'bench-sheet-key-0000000000000001';
writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ key, tier: 'tier_2', admin: true }] }));

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/orgindex.js', 'serve', '--port', '0', '--keys', join(dir, 'keys.json'), '--state-dir', join(dir, 'state'), '--log-level', 'warn'], { stdio: ['ignore', 'inherit', 'pipe'] });
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const ready = /ready at (http:\/\/\S+)\/v2/.exec(text);
      if (ready && /relevance structures built/.test(text)) resolve({ child, url: ready[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;

async function measure(makeFunctions, column) {
  const cold = { fetch: [], search: [], cells: [] };
  const warm = { fetch: [], search: [] };
  let requests = 0;
  for (let i = 0; i < repeat; i++) {
    const functions = makeFunctions(); // a fresh cache: a first calculation
    let t = performance.now();
    await functions.fetch(column, 'domain, name, country, nace_code', null);
    cold.fetch.push(performance.now() - t);
    t = performance.now();
    await functions.fetch(column, 'domain, name, country, nace_code', null);
    warm.fetch.push(performance.now() - t);
    const query = `software +gmbh -hardware ${i}`;
    t = performance.now();
    await functions.search(query, 'country=Deutschland', 'domain, name, summary', 'size=200; min_score=0');
    cold.search.push(performance.now() - t);
    t = performance.now();
    await functions.search(query, 'country=Deutschland', 'domain, name, summary', 'size=200; min_score=0');
    warm.search.push(performance.now() - t);
    requests = functions.requests;
    // 5,000 single-cell formulas calculated together (=ORG.FETCH(A2) filled down), on a fresh cache.
    const cells = makeFunctions();
    t = performance.now();
    await Promise.all(column.slice(0, 5_000).map((row) => cells.fetch([row], 'name', null)));
    cold.cells.push(performance.now() - t);
  }
  return { cold, warm, requests };
}

const index = createDefaultEngine();
const domains = index.search({ filters: { organization_type: ['Company', 'Startup', 'Public', 'Academic', 'Other'] }, columns: ['domain'], size: 500 }).data.map((row) => row.domain);
// 10,000 cells: 8,000 known (repeating 500 distinct) and 2,000 unknown domains.
const column = Array.from({ length: 10_000 }, (_, i) => [i % 5 === 4 ? `unknown-${i}.example` : domains[i % domains.length]]);
/** A Map behind OfficeRuntime.storage's async interface, so persistence is part of what is measured. */
function mapStorage() {
  const map = new Map();
  return {
    getItem: async (key) => map.get(key) ?? null,
    setItem: async (key, value) => void map.set(key, value),
    removeItem: async (key) => void map.delete(key),
    getItems: async (keys) => Object.fromEntries(keys.map((key) => [key, map.get(key) ?? null])),
    setItems: async (values) => void Object.entries(values).forEach(([key, value]) => map.set(key, value)),
    removeItems: async (keys) => void keys.forEach((key) => map.delete(key)),
  };
}
const make = (backend) => () => new SheetFunctions({ backend: () => backend, cache: new ResultCache({ now: Date.now, storage: mapStorage() }), schedule: (run, wait) => setTimeout(run, wait) });

const { child, url } = await startServer();
try {
  const local = await measure(make(localBackend(() => index)), column);
  const remote = await measure(make(remoteBackend(createRemoteClient({ ...clientOptionsOf({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: url, apiKey: key }) }))), column);
  console.log(`\nSpreadsheet functions, median of ${repeat} (10,000-cell ORG.FETCH: 2,500 distinct domains, 4 columns; ORG.SEARCH: 200 rows with summaries)\n`);
  console.log('| backend | ORG.FETCH 10,000 cells, first calculation | recalculation (cache) | 5,000 single-cell ORG.FETCH formulas | ORG.SEARCH 200 rows, first | recalculation | requests per first calculation (fetch + search) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, result] of [['local (in-process)', local], ['remote (loopback server)', remote]]) {
    console.log(`| ${name} | ${ms(median(result.cold.fetch))} | ${ms(median(result.warm.fetch))} | ${ms(median(result.cold.cells))} | ${ms(median(result.cold.search))} | ${ms(median(result.warm.search))} | ${result.requests} |`);
  }
  const addin = join(process.cwd(), 'dist/addin');
  if (existsSync(addin)) {
    const size = (file) => statSync(join(addin, file)).size;
    const initial = ['runtime.js', 'vendor.js', 'common.js', 'functions.js', 'commands.js', 'taskpane.js'].reduce((sum, file) => sum + size(file), 0);
    console.log(`\nBuilt add-in: page scripts ${(initial / 1e6).toFixed(2)} MB (budget 1.6 MB); engine + sample chunks ${((size('engine.js') + size('geography-data.js')) / 1e6).toFixed(2)} MB, loaded on first local use (budget 11 MB a file), the geography alone ${(size('geography-data.js') / 1e6).toFixed(2)} MB for the map; ${readdirSync(addin).length} files`);
  }
  const sheets = join(process.cwd(), 'dist/appsscript');
  if (existsSync(sheets)) {
    const code = join(sheets, 'Code.js');
    const runs = Array.from({ length: repeat }, () => JSON.parse(execFileSync(process.execPath, ['bench/appsscript-execution.mjs', code]).toString()));
    const of = (name) => ms(median(runs.map((run) => run[name])));
    console.log(`\nSheets bundle: Code.js ${(statSync(code).size / 1e6).toFixed(2)} MB (budget 6 MB), Sidebar.html ${(statSync(join(sheets, 'Sidebar.html')).size / 1e6).toFixed(2)} MB`);
    console.log(`One Apps Script execution on the embedded sample (fresh process each, median of ${repeat}): load Code.js ${of('load')}, first =ORGSEARCH ${of('firstSearch')} (generates and indexes the sample), first describe: ${of('firstDescribe')}`);
  }
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
