// Benchmark of the relevance engine (scored modes) against MiniSearch and Orama, in one run on one dataset:
// build time and heap of the BM25 text index and the organization vectors, keyword search (OrgIndex
// search and the raw TextIndex.top, MiniSearch, Orama), semantic top-100, vector_similarity and hybrid.
// Runs the compiled library (npm run build).
// Usage: npm run bench:relevance [-- --sizes 100000,1000000] [-- --competitors minisearch,orama|none]
//        [-- --listed 500,5000,50000] (the rows a filter leaves, given to nearest() as a list and as a mask)
//        [-- --scan-thread] (the vector scan on two threads, as the server runs it)
// At 1,000,000 pass --competitors minisearch: Orama builds in ~140 s / 2.9 GB and its 1,000 AND queries
// take over 15 minutes (and its heap makes the other engines' timings GC-bound).
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { create as createOrama, insertMultiple as oramaInsertMultiple, search as oramaSearch } from '@orama/orama';
import { createEngine, generateDataset } from '../dist/lib/index.js';
import { fmt, gc, mb, memory, time, timeAsync, timedDataset } from './timing.mjs';
// Not exported from the package entry: deep imports of the compiled modules.
import { textIndexOf, vectorsOf, warmRelevance } from '../dist/lib/engine/relevance/store-relevance.js';
import { applyComponentRemoval, embeddingVocabulary, sifGloveEmbedder } from '../dist/lib/engine/relevance/embedder.js';
import { nearest } from '../dist/lib/engine/relevance/vectors.js';
import { warmRelevanceOnTwoThreads } from '../dist/lib/server/warm-relevance.js';
import { startScanThread } from '../dist/lib/server/scan-thread.js';
import { currentRecords, setVectorScanEnabled, vectorScanAvailable } from '../dist/lib/engine/relevance/vector-scan.js';
import { TopK } from '../dist/lib/engine/relevance/top-k.js';
import { INDUSTRY_CLASSES } from '../dist/lib/engine/dataset/industries.js';
import { Random } from '../dist/lib/engine/random.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = arg('--sizes', '100000').split(',').map(Number);
const competitors = new Set(arg('--competitors', 'minisearch,orama').split(','));
const listedCounts = arg('--listed', '500,5000,50000').split(',').map(Number);
// nearest() does not read the mask when it is given the rows.
const EMPTY_MASK = new Uint8Array(0);
const scanThreads = args.includes('--scan-thread') && startScanThread() ? 2 : 1;
console.log(`vector scan on ${scanThreads} thread(s)`);


/**
 * 200 keyword queries of 1–3 single words, each taken from one record's summary_keywords (phrases split
 * into words), so the words of a query co-occur somewhere; and, per query, an English description built
 * from the same record's industry vocabulary (offering + audience) for semantic and hybrid.
 */
function buildQueries(records, count, seed) {
  const random = new Random(seed);
  const classes = new Map(INDUSTRY_CLASSES.map((c) => [c.code, c]));
  const queries = [];
  while (queries.length < count) {
    const record = random.pick(records);
    const words = [...new Set((record.summary_keywords ?? []).flatMap((k) => k.toLowerCase().split(/[^a-z0-9äöüß]+/)).filter((w) => w.length > 2))];
    const industry = classes.get(record.nace_code);
    if (words.length === 0 || !industry) continue;
    const n = Math.min(words.length, 1 + random.int(0, 2));
    const terms = [];
    while (terms.length < n) {
      const word = random.pick(words);
      if (!terms.includes(word)) terms.push(word);
    }
    queries.push({ terms, describe: `${random.pick(industry.offerings)} ${random.pick(industry.audiences)}` });
  }
  return queries;
}

const results = [];
for (const count of sizes) {
  console.log(`\n== ${count.toLocaleString('en')} organizations`);
  const records = timedDataset(generateDataset, count);
  let t;
  const queries = buildQueries(records, 200, 11);
  const phrases = queries.slice(0, 20).map((q) => q.describe);
  const random = new Random(13);
  const references = Array.from({ length: 10 }, () => random.pick(records).domain);
  const r = { count };

  // ── OrgIndex: store, then the relevance structures (lazy; timed one by one).
  gc();
  let before = memory();
  t = performance.now();
  const index = createEngine(records);
  r.storeBuild = performance.now() - t;
  gc();
  r.storeHeap = memory() - before;
  const { store } = index;

  before = memory();
  t = performance.now();
  const text = textIndexOf(store);
  r.textBuild = performance.now() - t;
  gc();
  r.textHeap = memory() - before;

  before = memory();
  t = performance.now();
  embeddingVocabulary();
  r.embeddingLoad = performance.now() - t;
  t = performance.now();
  vectorsOf(store);
  r.vectorBuild = performance.now() - t + r.embeddingLoad;
  gc();
  r.vectorHeap = memory() - before;
  warmRelevance(store); // both built: a no-op now

  // The server's start-up: both structures at once, the vectors on a worker thread, for a second store of
  // the same records (the vectors must come out identical).
  // Three times (the two threads compete for this machine's two cores, so it varies more): the median.
  {
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const twin = createEngine(records).store;
      gc();
      t = performance.now();
      if (warmRelevanceOnTwoThreads(twin) !== 2) throw new Error('the vectors were not built on a worker thread');
      runs.push(performance.now() - t);
      const a = currentRecords(vectorsOf(store).matrix.scan);
      const b = currentRecords(vectorsOf(twin).matrix.scan);
      if (a.length !== b.length || a.some((x, j) => x !== b[j])) throw new Error('vectors built on the worker thread differ');
    }
    runs.sort((x, y) => x - y);
    r.parallelBuild = runs[1];
    r.parallelBuildRange = `${runs[0].toFixed(0)}–${runs[2].toFixed(0)} ms`;
  }
  console.log(
    `build: store ${r.storeBuild.toFixed(0)} ms (${mb(r.storeHeap)}); text index ${r.textBuild.toFixed(0)} ms (${mb(r.textHeap)}); ` +
      `vectors ${r.vectorBuild.toFixed(0)} ms incl. embedding load ${r.embeddingLoad.toFixed(0)} ms (${mb(r.vectorHeap)})`,
  );

  // ── Competitors: name + summary, id = domain.
  if (competitors.has('minisearch')) {
    gc();
    before = memory();
    t = performance.now();
    const mini = new MiniSearch({ idField: 'domain', fields: ['name', 'summary'], storeFields: [] });
    mini.addAll(records.map((x) => ({ domain: x.domain, name: x.name ?? '', summary: x.summary ?? '' })));
    r.miniBuild = performance.now() - t;
    gc();
    r.miniHeap = memory() - before;
    r.mini = mini;
    console.log(`MiniSearch build: ${r.miniBuild.toFixed(0)} ms (${mb(r.miniHeap)})`);
  }
  if (competitors.has('orama')) {
    gc();
    before = memory();
    t = performance.now();
    const db = createOrama({ schema: { name: 'string', summary: 'string' } });
    await oramaInsertMultiple(db, records.map((x) => ({ id: x.domain, name: x.name ?? '', summary: x.summary ?? '' })), 1000);
    r.oramaBuild = performance.now() - t;
    gc();
    r.oramaHeap = memory() - before;
    r.orama = db;
    console.log(`Orama build: ${r.oramaBuild.toFixed(0)} ms (${mb(r.oramaHeap)})`);
  }

  // ── Keyword queries: 200 queries, one warm-up pass, three timed passes.
  const Q = queries.length;
  const runs = 3 * Q;
  const keywordBodies = queries.map((q) => ({ keywords: { must_all: q.terms }, size: 100, columns: ['name'] }));
  const hits = { org: 0, mini: 0, orama: 0 };
  queries.forEach((q, i) => {
    hits.org += index.search(keywordBodies[i]).metadata.total_hits ?? 0;
  });
  r.keyword = time((i) => index.search(keywordBodies[i % Q]), runs, Q);
  console.log(`OrgIndex fulltext search (must_all, 100 rows, name column): ${fmt(r.keyword)}; mean hits ${(hits.org / Q).toFixed(0)}`);
  const rawQueries = queries.map((q) => ({ must_all: q.terms }));
  r.keywordRaw = time((i) => text.top(rawQueries[i % Q], 100, undefined, store.domainRank), runs, Q);
  console.log(`OrgIndex TextIndex.top(query, 100) (engine only): ${fmt(r.keywordRaw)}`);
  if (r.mini) {
    const strings = queries.map((q) => q.terms.join(' '));
    queries.forEach((_, i) => {
      hits.mini += r.mini.search(strings[i], { combineWith: 'AND' }).length;
    });
    r.miniKeyword = time((i) => r.mini.search(strings[i % Q], { combineWith: 'AND' }).slice(0, 100), runs, Q);
    console.log(`MiniSearch search (AND, top 100): ${fmt(r.miniKeyword)}; mean hits ${(hits.mini / Q).toFixed(0)}`);
  }
  if (r.orama) {
    const params = queries.map((q) => ({ term: q.terms.join(' '), properties: ['name', 'summary'], limit: 100, threshold: 0 }));
    for (let i = 0; i < Q; i++) hits.orama += (await oramaSearch(r.orama, params[i])).count;
    r.oramaKeyword = await timeAsync((i) => oramaSearch(r.orama, params[i % Q]), runs, Q);
    console.log(`Orama search (threshold 0 = all terms, limit 100, awaited): ${fmt(r.oramaKeyword)}; mean hits ${(hits.orama / Q).toFixed(0)}`);
  }

  // ── Vector modes: each with the WebAssembly SIMD scan (the default where available) and with the
  // JavaScript scan (hosts without WebAssembly SIMD); the raw scans also against a plain f32 loop.
  const semanticBodies = phrases.map((describe) => ({ describe, size: 100, columns: ['name'] }));
  const similarBodies = references.map((domain) => ({ similar_to: [domain], size: 100, columns: ['name'] }));
  const hybridBodies = queries.slice(0, 20).map((q) => ({ keywords: { must_all: q.terms }, describe: q.describe, size: 100, columns: ['name'] }));
  r.wasmScan = vectorScanAvailable();
  for (const scan of ['js', 'wasm']) {
    if (scan === 'wasm' && !r.wasmScan) continue;
    setVectorScanEnabled(scan === 'wasm');
    r[`semantic_${scan}`] = time((i) => index.search(semanticBodies[i % 20]), 100, 20);
    r[`similar_${scan}`] = time((i) => index.search(similarBodies[i % 10]), 100, 20);
    r[`hybrid_${scan}`] = time((i) => index.search(hybridBodies[i % 20]), 100, 20);
    console.log(`OrgIndex top-100 (${scan} scan): semantic ${fmt(r[`semantic_${scan}`])}; vector_similarity ${fmt(r[`similar_${scan}`])}; hybrid ${fmt(r[`hybrid_${scan}`])}`);
  }
  setVectorScanEnabled(true);
  r.semantic = r.semantic_wasm ?? r.semantic_js;
  r.similar = r.similar_wasm ?? r.similar_js;
  r.hybrid = r.hybrid_wasm ?? r.hybrid_js;
  const { matrix, component } = vectorsOf(store);
  const embedder = sifGloveEmbedder();
  const allowAll = new Uint8Array(store.size).fill(1);
  const describeVectors = phrases.map((phrase) => applyComponentRemoval(embedder.embed(phrase), component));
  r.plainLoop = time((i) => plainScan(matrix, describeVectors[i % 20], 100, 0.35, store.domainRank), 100, 20);
  r.nearestJs = time((i) => nearest(matrix, describeVectors[i % 20], 100, allowAll, 0.35, store.domainRank, { wasm: false }), 100, 20);
  r.nearestWasm = r.wasmScan ? time((i) => nearest(matrix, describeVectors[i % 20], 100, allowAll, 0.35, store.domainRank), 100, 20) : undefined;
  console.log(`semantic scans only (top 100, min_score 0.35, counted): plain f32 loop ${fmt(r.plainLoop)}; JS nearest ${fmt(r.nearestJs)}; wasm nearest ${r.nearestWasm ? fmt(r.nearestWasm) : 'unavailable'}`);

  // A selective filter's rows (random rows, as one town's are over the index) given to nearest() as an
  // ascending list and as the mask of the same rows; the answers must be equal.
  r.listed = [];
  for (const n of listedCounts.filter((n) => n <= store.size)) {
    const list = randomRows(new Random(n), store.size, n);
    const mask = new Uint8Array(store.size);
    for (const row of list) mask[row] = 1;
    const entry = { n };
    for (const wasm of r.wasmScan ? [true, false] : [false]) {
      const viaList = (i) => nearest(matrix, describeVectors[i % 20], 100, EMPTY_MASK, 0.35, store.domainRank, { wasm, rows: list });
      const viaMask = (i) => nearest(matrix, describeVectors[i % 20], 100, mask, 0.35, store.domainRank, { wasm });
      for (let i = 0; i < 20; i++) {
        const a = viaList(i);
        const b = viaMask(i);
        if (a.total !== b.total || a.rows.join() !== b.rows.join() || a.scores.join() !== b.scores.join()) throw new Error(`a row list of ${n} answered otherwise than its mask`);
      }
      const scan = wasm ? 'wasm' : 'js';
      entry[`list_${scan}`] = time(viaList, 100, 20);
      entry[`mask_${scan}`] = time(viaMask, 100, 20);
    }
    r.listed.push(entry);
    console.log(
      `semantic nearest(), ${n.toLocaleString('en')} rows (top 100, min_score 0.35, counted): ` +
        (r.wasmScan ? `wasm list ${fmt(entry.list_wasm)}, mask ${fmt(entry.mask_wasm)}; ` : '') +
        `JS list ${fmt(entry.list_js)}, mask ${fmt(entry.mask_js)}`,
    );
  }

  delete r.mini;
  delete r.orama;
  results.push(r);
  gc();
}

/** n distinct rows of `size`, ascending. */
function randomRows(random, size, n) {
  const rows = new Set();
  while (rows.size < n) rows.add(random.int(0, size - 1));
  return Uint32Array.from(rows).sort();
}

/** The plainest scan: every dot product in one loop over the decoded f32 vectors, a heap for the top k, every row counted. */
function plainScan(matrix, query, k, minScore, tieKey) {
  const { dims, present } = matrix;
  const { data } = matrix.plain();
  const top = new TopK(k, tieKey);
  let total = 0;
  for (let row = 0; row < present.length; row++) {
    if (!present[row]) continue;
    let sum = 0;
    for (let d = 0, base = row * dims; d < dims; d++) sum += data[base + d] * query[d];
    if (sum < minScore) continue;
    total++;
    top.offer(row, sum);
  }
  return { ...top.sorted(), total };
}

const ms = (v, digits = 3) => (v === undefined ? '–' : `${v.toFixed(digits)} ms`);
const pp = (x) => (x ? `${x.p50.toFixed(3)} / ${x.p95.toFixed(3)} ms` : '–');
const check = (ok) => (ok ? '✅' : '❌');
for (const r of results) {
  const at100k = r.count === 100_000;
  const ratio = r.miniKeyword ? r.miniKeyword.p50 / r.keyword.p50 : undefined;
  const ratioRaw = r.miniKeyword ? r.miniKeyword.p50 / r.keywordRaw.p50 : undefined;
  const build = r.textBuild + r.vectorBuild;
  const heap = r.textHeap + r.vectorHeap;
  const target = (text, ok) => (at100k ? `${text} ${check(ok)}` : `(${text} at 100k)`);
  console.log(`\n### ${r.count.toLocaleString('en')} organizations (p50 / p95; heap = heapUsed + external, after gc)\n`);
  console.log('| measure | OrgIndex | MiniSearch | Orama | target |');
  console.log('|---|---|---|---|---|');
  console.log(`| build: text index | ${ms(r.textBuild, 0)} | ${ms(r.miniBuild, 0)} | ${ms(r.oramaBuild, 0)} | |`);
  console.log(`| build: vectors (incl. embedding load ${r.embeddingLoad.toFixed(0)} ms) | ${ms(r.vectorBuild, 0)} | – | – | |`);
  console.log(`| build: text + vectors, one after the other | ${ms(build, 0)} | | | |`);
  console.log(`| build: text + vectors on two threads (server start-up), median of 3 (${r.parallelBuildRange}) | ${ms(r.parallelBuild, 0)} | | | ${target('≤ 1.5 s', r.parallelBuild <= 1500)} |`);
  console.log(`| heap: text index | ${mb(r.textHeap)} | ${r.miniHeap === undefined ? '–' : mb(r.miniHeap)} | ${r.oramaHeap === undefined ? '–' : mb(r.oramaHeap)} | |`);
  console.log(`| heap: vectors | ${mb(r.vectorHeap)} | – | – | |`);
  console.log(`| heap: text + vectors | ${mb(heap)} | | | ${target('≤ 120 MB', heap <= 120 * 1048576)} |`);
  console.log(`| keyword, 200 queries: search() | ${pp(r.keyword)} | ${pp(r.miniKeyword)} | ${pp(r.oramaKeyword)} | ${target('p50 ≤ 0.3 ms', r.keyword.p50 <= 0.3)} |`);
  console.log(`| keyword: TextIndex.top (engine only) | ${pp(r.keywordRaw)} | | | |`);
  if (ratio !== undefined) {
    console.log(`| keyword speed-up vs MiniSearch (p50) | ${ratio.toFixed(1)}× (engine only ${ratioRaw.toFixed(1)}×) | 1× | | ${target('≥ 4×', ratio >= 4)} |`);
  }
  const scan = r.wasmScan ? 'wasm SIMD scan' : 'JS scan (no WebAssembly SIMD)';
  console.log(`| semantic top-100, 20 describes (${scan}) | ${pp(r.semantic)} | | | ${target('≤ 1.5 ms', r.semantic.p50 <= 1.5)} |`);
  console.log(`| vector_similarity top-100, 10 domains (${scan}) | ${pp(r.similar)} | | | ${target('≤ 1.5 ms', r.similar.p50 <= 1.5)} |`);
  console.log(`| hybrid top-100 (keywords + describe) (${scan}) | ${pp(r.hybrid)} | | | ${target('≤ 3 ms', r.hybrid.p50 <= 3)} |`);
  console.log(`| semantic / vector_similarity / hybrid, JS scan | ${pp(r.semantic_js)} · ${pp(r.similar_js)} · ${pp(r.hybrid_js)} | | | |`);
  console.log(`| semantic scan only: plain f32 loop | ${pp(r.plainLoop)} | | | |`);
  console.log(`| semantic scan only: JS nearest() | ${pp(r.nearestJs)} | | | |`);
  const share = r.nearestWasm ? r.nearestWasm.p50 / r.plainLoop.p50 : undefined;
  console.log(`| semantic scan only: wasm nearest() | ${pp(r.nearestWasm)}${share === undefined ? '' : ` (${share.toFixed(2)}× the plain loop)`} | | | ${target('≤ 0.15× plain loop', share !== undefined && share <= 0.15)} |`);
  for (const e of r.listed) {
    const rows = `${e.n.toLocaleString('en')} rows`;
    if (e.list_wasm) console.log(`| semantic scan only, ${rows}, wasm (${scanThreads} thread(s)) | list ${pp(e.list_wasm)} · mask ${pp(e.mask_wasm)} | | | |`);
    console.log(`| semantic scan only, ${rows}, JS | list ${pp(e.list_js)} · mask ${pp(e.mask_js)} | | | |`);
  }
}
