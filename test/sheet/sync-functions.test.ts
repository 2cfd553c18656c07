/**
 * The synchronous driver (the Apps Script host's) runs the same steps as Excel's async one: same tables
 * for the same arguments, cached per request in a CacheService-shaped store (here a Map-backed STAND-IN
 * for CacheService, which exists only inside Google's servers), values over 100 KB split into parts,
 * ORG.FETCH chunks handed over together (UrlFetchApp.fetchAll), Refresh by generation.
 */
import { RateLimitError } from '../../src/contract/errors.js';
import { createEngine, generateDataset, warmRelevance } from '../../src/engine/index.js';
import { localBackend, localSyncBackend } from '../../src/sheet/backend.js';
import { ResultCache } from '../../src/sheet/cache.js';
import { SheetFunctions } from '../../src/sheet/functions.js';
import { SyncResultCache } from '../../src/sheet/sync-cache.js';
import { StandInCache } from '../support/cache-service-stand-in.js';
import { SyncSheetFunctions, type FetchMany } from '../../src/sheet/sync-functions.js';

// 3,000 organizations hold the 500 companies the tests below ask for; every thousand more costs about a
// second of building (the keyword index and the vectors), none of it tested here.
const index = createEngine(generateDataset({ count: 3_000, seed: 5, asOf: '2026-11-01' }));
// Built once before the tests (scored searches would build them in the first one).
beforeAll(() => {
  warmRelevance(index.store);
}, 60_000);

function syncFunctions(options: { fetchMany?: FetchMany; store?: StandInCache } = {}) {
  const store = options.store ?? new StandInCache();
  const functions = new SyncSheetFunctions({ backend: () => localSyncBackend(() => index), cache: new SyncResultCache(store), now: () => 0, ...(options.fetchMany ? { fetchMany: options.fetchMany } : {}) });
  return { functions, store };
}

const asyncFunctions = () =>
  new SheetFunctions({ backend: () => localBackend(() => index), cache: new ResultCache({ now: () => 0 }), now: () => 0, schedule: (run, ms) => void setTimeout(run, ms) });

const domains = index.search({ filters: { organization_type: ['Company'] }, columns: ['domain'], size: 500 }).data.map((row) => row.domain);

test('the same arguments give the same tables as the async driver (search, fetch, stats, errors)', async () => {
  const { functions } = syncFunctions();
  const excel = asyncFunctions();
  const column = [...domains.slice(0, 20).map((domain) => [domain]), [''], ['not a domain'], ['nobody.example']];
  const cases: [string, unknown[]][] = [
    ['search', ['software +gmbh', 'country=Deutschland', 'domain, name, nace_code', 'size=30']],
    ['search', ['describe: bakery with organic bread', null, null, 'size=5; headers=0']],
    ['search', ['', 'organization_type=Startup', 'domain', 'size=700']],
    ['fetch', [column, 'name, country', null]],
    ['stats', ['organization_type', 'organization_size', null, null]],
    ['stats', ['contry', null, null, null]],
    ['search', ['solar', 'contry=X', null, null]],
  ];
  for (const [name, args] of cases) {
    const run = (target: SyncSheetFunctions | SheetFunctions) => (target[name as 'search'] as (...a: unknown[]) => unknown).apply(target, args);
    expect(run(functions)).toEqual(await run(excel));
  }
}, 30_000);

test('ORGFETCH(…, "as=card") in Sheets (no data types) gives the columns asked for as values, the register court among them', () => {
  const { functions } = syncFunctions();
  const withCourt = index.search({ filters: { company_register_court: ['Amtsgericht München'] }, columns: ['domain', 'name', 'company_register_court'], size: 2 }).data;
  expect(withCourt).toHaveLength(2);
  const table = functions.fetch(withCourt.map((row) => [row.domain]), 'name, company_register_court', 'as=card');
  // The filter matches any registration; the column is the court of the newest one.
  expect(table).toEqual(withCourt.map((row) => [row.name, row.company_register_court]));
  expect(table.every((row) => typeof row[1] === 'string' && row[1].startsWith('Amtsgericht'))).toBe(true);
});

test('a filter value spelled as users spell it finds rows; one that matches nothing gives #N/A naming the closest value, not a blank', async () => {
  const { functions } = syncFunctions();
  const excel = asyncFunctions();
  expect(functions.search('', 'country=germany; state=Bavaria', 'domain', 'size=5')).toEqual(functions.search('', 'country=Deutschland; state=Bayern', 'domain', 'size=5'));
  const unknown = { error: '#N/A', message: 'No organization has country "Germny"; closest known values: "Deutschland".' };
  expect(functions.search('', 'country=Germny', 'domain', null)).toEqual([[unknown]]);
  expect(await excel.search('', 'country=Germny', 'domain', 'size=700')).toEqual([[unknown]]);
  expect(functions.stats('state', null, 'country=Germny', null)).toEqual([[unknown]]);
  // An empty answer without unknown values stays an empty table.
  expect(functions.search('', 'country=Österreich; state=Bayern', 'domain', 'headers=0')).toEqual([['']]);
});

test('a second evaluation is answered from the cache; Refresh asks again', () => {
  const { functions } = syncFunctions();
  const first = functions.search('software', 'country=Deutschland', null, 'size=50');
  expect(functions.requests).toBe(1);
  expect(functions.search('software', 'country=Deutschland', null, 'SIZE=50')).toEqual(first);
  functions.fetch(domains.slice(0, 10).map((domain) => [domain]), 'name', null);
  functions.fetch(domains.slice(0, 12).map((domain) => [domain]), 'name', null);
  expect(functions.requests).toBe(3);
  functions.clearCache();
  functions.search('software', 'country=Deutschland', null, 'size=50');
  expect(functions.requests).toBe(4);
});

test('answers over 100 KB are stored in parts and read back whole; a lost part is a miss, not a wrong answer', () => {
  const { functions, store } = syncFunctions();
  const big = functions.search('', 'organization_type=Company', 'domain, name, summary, address', 'size=500');
  const parts = [...store.values.keys()].filter((key) => /:\d+$/.test(key));
  expect(parts.length).toBeGreaterThan(1);
  const again = syncFunctions({ store });
  expect(again.functions.search('', 'organization_type=Company', 'domain, name, summary, address', 'size=500')).toEqual(big);
  expect(again.functions.requests).toBe(0);
  store.values.delete(parts[0] ?? '');
  expect(again.functions.search('', 'organization_type=Company', 'domain, name, summary, address', 'size=500')).toEqual(big);
  expect(again.functions.requests).toBe(1);
});

test('ORG.FETCH over 10,000 cells hands 2 chunks over together; a failed chunk marks its rows, the other shows', () => {
  const calls: number[][] = [];
  const fetchMany: FetchMany = (bodies) => {
    calls.push(bodies.map((body) => body.domains.length));
    return bodies.map((body, i) => (i === 1 ? new RateLimitError('Rate limit exceeded', null) : index.fetch(body)));
  };
  const { functions } = syncFunctions({ fetchMany });
  const cells = Array.from({ length: 10_000 }, (_, i) => [i < 500 ? domains[i] : `unknown-${i}.example`]);
  const table = functions.fetch(cells, 'domain', null);
  expect(calls).toEqual([[5_000, 5_000]]);
  expect(table).toHaveLength(10_000);
  expect(table.slice(0, 500).every((row) => typeof row[0] === 'string')).toBe(true);
  expect(table[9_999]?.[0]).toMatchObject({ error: '#N/A', message: expect.stringMatching(/^Rate limit reached/) as unknown });
}, 30_000);
