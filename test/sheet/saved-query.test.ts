/**
 * Saved queries: the one JSON shape every host stores, and their tables from the same steps as the
 * functions — run by both drivers on the local engine.
 */
import { ValidationError } from '../../src/contract/errors.js';
import { SavedQuerySchema, type SavedQueryInput } from '../../src/contract/saved-query.js';
import { createEngine, generateDataset } from '../../src/engine/index.js';
import { localBackend, localSyncBackend } from '../../src/sheet/backend.js';
import { ResultCache } from '../../src/sheet/cache.js';
import { SheetFunctions } from '../../src/sheet/functions.js';
import { SyncResultCache } from '../../src/sheet/sync-cache.js';
import { StandInCache } from '../support/cache-service-stand-in.js';
import { SyncSheetFunctions } from '../../src/sheet/sync-functions.js';

const index = createEngine(generateDataset({ count: 6_000, seed: 11, asOf: '2026-11-01' }));

const sync = () => new SyncSheetFunctions({ backend: () => localSyncBackend(() => index), cache: new SyncResultCache(new StandInCache()) });
const async = () => new SheetFunctions({ backend: () => localBackend(() => index), cache: new ResultCache({ now: () => 0 }), schedule: (run, ms) => void setTimeout(run, ms) });

const saved = (input: Partial<SavedQueryInput> & Pick<SavedQueryInput, 'request'>) => SavedQuerySchema.parse({ id: 'q1', sheet: 'Leads', cell: 'B2', ...input });

test('the stored shape: defaults filled, a bad cell or route refused with the field named', () => {
  const query = saved({ request: { interface: 'v2', route: 'stats', body: { group_by: 'country' } } });
  expect(query).toMatchObject({ output: { headers: true, layout: 'crosstab' }, extent: null, last_refreshed: null, status: null });
  const bad = SavedQuerySchema.safeParse({ id: 'q', sheet: 'S', cell: 'b2', request: { interface: 'v2', route: 'delete', body: {} } });
  expect(bad.success).toBe(false);
  expect(bad.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['cell', 'request.route']);
});

test('search (walking pages past 500 rows), stats and fetch tables; both drivers agree', async () => {
  const search = saved({ request: { interface: 'v2', route: 'search', body: { filters: { organization_type: ['Company'] }, columns: ['domain', 'name'] }, rows: 700 } });
  const stats = saved({ request: { interface: 'v2', route: 'stats', body: { group_by: 'organization_type', group_by_secondary: 'organization_size' } }, output: { layout: 'long', headers: false } });
  const domains = index.search({ filters: { organization_type: ['Startup'] }, columns: ['domain'], size: 5 }).data.map((row) => row.domain);
  const fetch = saved({ request: { interface: 'v2', route: 'fetch', body: { domains: [...domains, 'nobody.example'], columns: ['domain', 'country'] } } });

  const searched = sync().savedQuery(search);
  expect(searched).toHaveLength(701);
  expect(searched[0]).toEqual(['domain', 'name']);
  expect(new Set(searched.slice(1).map((row) => row[0])).size).toBe(700);
  const counted = sync().savedQuery(stats);
  expect(counted[0]).toHaveLength(3);
  expect(counted.reduce((sum, row) => sum + Number(row[2]), 0)).toBe(index.stats({ group_by: 'organization_type' }).data.reduce((sum, bucket) => sum + bucket.count, 0));
  const fetched = sync().savedQuery(fetch);
  expect(fetched.slice(1, 6).map((row) => row[0])).toEqual(domains);
  expect(fetched[6]?.[0]).toEqual({ error: '#N/A', message: 'nobody.example is not in the index' });

  for (const query of [search, stats, fetch]) expect(await async().savedQuery(query)).toEqual(sync().savedQuery(query));
});

test('an invalid request fails that query with the contract error (the refresher reports it and goes on)', () => {
  const query = saved({ request: { interface: 'v2', route: 'stats', body: { group_by: 'colour' } } });
  expect(() => sync().savedQuery(query)).toThrow(ValidationError);
});
