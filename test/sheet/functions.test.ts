/**
 * SheetFunctions on the local engine with a backend that fails on purpose (a rate limit on the second
 * /fetch chunk; slow answers around a Refresh): what a workbook sees when part of a calculation fails.
 */
import { RateLimitError } from '../../src/contract/errors.js';
import { createEngine, generateDataset } from '../../src/engine/index.js';
import { localBackend, type SheetBackend } from '../../src/sheet/backend.js';
import { ResultCache } from '../../src/sheet/cache.js';
import { SheetFunctions } from '../../src/sheet/functions.js';

// 3,000 organizations hold the 500 companies the first test asks for.
const index = createEngine(generateDataset({ count: 3_000, seed: 3, asOf: '2026-11-01' }));
const local = localBackend(() => index);
const schedule = (run: () => void, ms: number): void => {
  setTimeout(run, ms);
};

function failing(failOnFetch: number): SheetBackend & { fetches: number } {
  const backend = {
    ...local,
    fetches: 0,
    fetch: (body: Parameters<SheetBackend['fetch']>[0]) => {
      backend.fetches++;
      return backend.fetches === failOnFetch ? Promise.reject(new RateLimitError('Rate limit exceeded', null)) : local.fetch(body);
    },
  };
  return backend;
}

test('one failed /fetch chunk: its rows say why, the other chunk shows its rows and is kept; asking again costs only the failed part', async () => {
  const backend = failing(2);
  const functions = new SheetFunctions({ backend: () => backend, cache: new ResultCache({ now: () => 0 }), schedule });
  const domains = index.search({ filters: { organization_type: ['Company'] }, columns: ['domain'], size: 500 }).data.map((row) => row.domain);
  const cells = Array.from({ length: 6_000 }, (_, i) => [i < 500 ? domains[i] : `unknown-${i}.example`]);
  const table = await functions.fetch(cells, 'domain', null);
  expect(table).toHaveLength(6_000);
  const errors = table.filter((row) => typeof row[0] === 'object' && row[0] !== null && (row[0] as { message: string }).message.startsWith('Rate limit reached'));
  expect(errors).toHaveLength(1_000);
  expect(table.filter((row) => typeof row[0] === 'string')).toHaveLength(500);
  const again = await functions.fetch(cells, 'domain', null);
  expect(backend.fetches).toBe(3);
  expect(again.filter((row) => typeof row[0] === 'string')).toHaveLength(500);
  // Two calculations of 6,000 cells: about a second alone, several on a loaded machine.
}, 30_000);

test('a whole failed calculation is one error cell', async () => {
  const functions = new SheetFunctions({ backend: () => failing(1), cache: new ResultCache({ now: () => 0 }), schedule });
  const table = await functions.fetch([['a.example'], ['b.example']], 'name', null);
  expect(table).toEqual([[{ error: '#N/A', message: expect.stringMatching(/^Rate limit reached/) as unknown }]]);
});

test('after a Refresh a cell does not join a request sent before it', async () => {
  let calls = 0;
  const slow: SheetBackend = { ...local, stats: async (body) => ((calls += 1), await new Promise((resolve) => setTimeout(resolve, 30)), local.stats(body)) };
  const functions = new SheetFunctions({ backend: () => slow, cache: new ResultCache({ now: () => 0 }), schedule });
  const before = functions.stats('country', null, null, null);
  await functions.clearCache();
  const after = functions.stats('country', null, null, null);
  await Promise.all([before, after]);
  expect(calls).toBe(2);
  // The answer asked after the Refresh is the one kept.
  await functions.stats('country', null, null, null);
  expect(calls).toBe(2);
});
