// Benchmark of the local engine: build, fetch, stats, filter-mode pages (values as stored, as users spell
// them, unknown), location search, at 100,000 organizations and at 1,000,000. Runs the compiled library (npm run build).
// Usage: npm run bench [-- --sizes 100000,1000000]
import { performance } from 'node:perf_hooks';
import { createEngine, generateDataset } from '../dist/lib/index.js';
import { fmt, gc, mb, memory, time, timedDataset } from './timing.mjs';

const args = process.argv.slice(2);
const sizesArg = args.includes('--sizes') ? args[args.indexOf('--sizes') + 1] : '100000,1000000';
const sizes = sizesArg.split(',').map(Number);

const results = [];
for (const count of sizes) {
  console.log(`\n== ${count.toLocaleString('en')} organizations`);
  const records = timedDataset(generateDataset, count);
  let t;
  gc();
  // Heap and typed arrays: the store keeps its text outside the heap.
  const memoryBefore = memory();
  t = performance.now();
  const index = createEngine(records);
  const buildStore = performance.now() - t;
  t = performance.now();
  index.locationSearch({ q: 'x' }); // builds the location index
  const buildLocations = performance.now() - t;
  gc();
  const heapIndex = memory() - memoryBefore;
  console.log(`build: store ${buildStore.toFixed(0)} ms + locations ${buildLocations.toFixed(0)} ms = ${(buildStore + buildLocations).toFixed(0)} ms; index memory ≈ ${mb(heapIndex)}`);

  const domains = records.map((r) => r.domain);
  // Ten different sets of 5,000 domains spread over the dataset (fewer than 5,000 when it is smaller).
  const step = Math.max(1, Math.floor(count / 5000));
  const fetchBodies = Array.from({ length: 10 }, (_, k) => ({ domains: domains.filter((_, i) => i % step === k % step).slice(0, 5000) }));
  const fetch5000 = time((i) => index.fetch(fetchBodies[i % fetchBodies.length]), 50, 5);
  console.log(`fetch 5,000 domains: ${fmt(fetch5000)}`);

  const stats2d = time(() => index.stats({ group_by: 'state', group_by_secondary: 'organization_size', limit: 500 }), 30, 3);
  console.log(`stats 2-D (state × organization_size, all rows): ${fmt(stats2d)}`);
  const statsReg = time(() => index.stats({ group_by: 'company_register_court', group_by_secondary: 'company_register_date', date_trunc: 'year', limit: 500 }), 30, 3);
  console.log(`stats 2-D registrations (court × year): ${fmt(statsReg)}`);

  const cursors = [null, ...domains.slice(0, 50).map((d) => [d])];
  const page = time((i) => index.search({ filters: { country: ['Deutschland'] }, size: 100, search_after: cursors[i % cursors.length] }));
  console.log(`filter-mode page (country filter, 100 rows, total_hits exact): ${fmt(page)}`);
  const pageAll = time((i) => index.search({ filters: {}, size: 100, search_after: cursors[i % cursors.length] }));
  console.log(`filter-mode page (no filter): ${fmt(pageAll)}`);
  t = performance.now();
  index.search({ filters: { country: ['germany'], municipality: ['Munchn'] }, size: 1 }); // builds the spellings (serve does it at start)
  const buildSpellings = performance.now() - t;
  console.log(`filter spellings built on first use: ${buildSpellings.toFixed(0)} ms`);
  const spelled = time((i) => index.search({ filters: { country: ['germany'] }, size: 100, search_after: cursors[i % cursors.length] }));
  console.log(`filter-mode page, country spelled "germany" (→ Deutschland): ${fmt(spelled)}`);
  const misspelt = ['Munchn', 'Kolln', 'Berln', 'Hambrg', 'Stutgart'];
  const unknown = time((i) => index.search({ filters: { municipality: [misspelt[i % misspelt.length]] }, size: 100 }));
  console.log(`filter-mode page, unknown municipality (0 rows, warning with closest values): ${fmt(unknown)}`);

  const queries = ['München', 'Muenchen', 'Köln', 'Frankfurt', 'Bayern', 'Nordrhein', 'Regensburg', 'Wien', 'Zürich', 'Stutgart', 'Hamburg', 'Landkreis'];
  const locations = time((i) => index.locationSearch({ q: queries[i % queries.length] }), 600, 60);
  console.log(`location search: ${fmt(locations)}`);
  results.push({ count, build: buildStore + buildLocations, heap: heapIndex, fetch5000, stats2d, statsReg, page, spelled, unknown, locations });
}

console.log('\n| orgs | build | index memory | fetch 5,000 p50 | 2-D stats p50 | registration stats p50 | filter page p50 | … spelled "germany" | … unknown value | location search p50 |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.count.toLocaleString('en')} | ${r.build.toFixed(0)} ms | ${mb(r.heap)} | ${r.fetch5000.p50.toFixed(2)} ms | ${r.stats2d.p50.toFixed(2)} ms | ${r.statsReg.p50.toFixed(2)} ms | ${r.page.p50.toFixed(3)} ms | ${r.spelled.p50.toFixed(3)} ms | ${r.unknown.p50.toFixed(3)} ms | ${r.locations.p50.toFixed(3)} ms |`,
  );
}
