/**
 * The host-neutral spreadsheet core (src/sheet/): argument parsing, error cells, ORG.FETCH planning and
 * shaping — against the real local engine where data is involved.
 */
import { AuthError, RateLimitError, ServerError, ValidationError } from '../../src/index.js';
import { SELECTABLE_COLUMNS } from '../../src/contract/common.js';
import { createEngine, generateDataset } from '../../src/engine/index.js';
import { parseFieldList, parseOptions, type OptionSpec } from '../../src/sheet/arguments.js';
import { ArgumentError, errorCell, errorCellOf } from '../../src/sheet/cells.js';
import { cellOf, fetchTable, planFetch } from '../../src/sheet/fetch-plan.js';
import { FetchBatcher } from '../../src/sheet/batcher.js';
import { fetchChunks } from '../../src/sheet/fetch-rows.js';
import { ResultCache } from '../../src/sheet/cache.js';
import { searchTable, statsTable } from '../../src/sheet/tables.js';

const SPEC: OptionSpec = {
  size: { kind: 'int', min: 1, max: 500 },
  min_score: { kind: 'number', min: 0, max: 1 },
  dedup: { kind: 'bool' },
  headers: { kind: 'bool' },
  layout: { kind: 'choice', values: ['crosstab', 'long'] },
  must_not: { kind: 'list' },
};

describe('arguments', () => {
  test('field lists: comma text or a range, case-insensitive, duplicates once, blank → default', () => {
    expect(parseFieldList('columns', 'Name, country; NACE_code', SELECTABLE_COLUMNS, ['domain'])).toEqual(['name', 'country', 'nace_code']);
    expect(parseFieldList('columns', [['name', 'country'], ['name', '']], SELECTABLE_COLUMNS, ['domain'])).toEqual(['name', 'country']);
    expect(parseFieldList('columns', '', SELECTABLE_COLUMNS, ['domain', 'name'])).toEqual(['domain', 'name']);
    expect(parseFieldList('columns', null, SELECTABLE_COLUMNS, ['domain'])).toEqual(['domain']);
    expect(() => parseFieldList('columns', 'name, contry', SELECTABLE_COLUMNS, [])).toThrow(new ArgumentError('columns', 'unknown field "contry" — did you mean "country"?'));
  });

  test('options: "key=value; …" text or a two-column range, typed, with errors naming the option', () => {
    expect(parseOptions('options', 'size=50; Min_Score=0,4; dedup=1; headers=FALSE; layout=Long; must_not=wind, hydro', SPEC)).toEqual({
      size: 50,
      min_score: 0.4,
      dedup: true,
      headers: false,
      layout: 'long',
      must_not: ['wind', 'hydro'],
    });
    expect(parseOptions('options', [['size', 20], ['', ''], ['dedup', true]], SPEC)).toEqual({ size: 20, dedup: true });
    expect(parseOptions('options', '', SPEC)).toEqual({});
    const cases: [string, string][] = [
      ['size=0', 'size must be a whole number from 1 to 500 (got "0")'],
      ['size=2.5', 'size must be a whole number from 1 to 500 (got "2.5")'],
      ['min_score=high', 'min_score must be a number from 0 to 1 (got "high")'],
      ['dedup=maybe', 'dedup must be 1 or 0 (TRUE or FALSE) (got "maybe")'],
      ['layout=wide', 'layout must be one of crosstab, long (got "wide")'],
      ['sise=10', 'unknown option "sise" — did you mean "size"?'],
      ['size 10', '"size 10" is not key=value'],
    ];
    for (const [text, message] of cases) expect(() => parseOptions('options', text, SPEC)).toThrow(new ArgumentError('options', message));
  });
});

describe('error cells', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  test('bad arguments and 422s are #VALUE! pointing at the field; the rest #N/A with a message', () => {
    expect(errorCellOf(new ArgumentError('options', 'size must be …'), now)).toEqual(errorCell('#VALUE!', 'options: size must be …'));
    const validation = new ValidationError([{ type: 'greater_than_equal', loc: ['body', 'size'], msg: 'Input should be greater than or equal to 1', input: 0 }], 422);
    expect(errorCellOf(validation, now)).toEqual(errorCell('#VALUE!', 'size: Input should be greater than or equal to 1'));
    expect(errorCellOf(new AuthError('Invalid API key', 401), now)).toEqual(errorCell('#N/A', 'Not authorised (check the API key under OrgIndex → Connection): Invalid API key'));
    // Where there is no pane (orgindex refresh), the caller's own words say what to do.
    expect(errorCellOf(new AuthError('Invalid API key', 401), now, { apiKey: 'set ORGINDEX_API_KEY' })).toEqual(errorCell('#N/A', 'Not authorised (set ORGINDEX_API_KEY): Invalid API key'));
    expect(errorCellOf(new ServerError('boom', 500), now).error).toBe('#N/A');
    expect(errorCellOf(new Error('x'), now)).toEqual(errorCell('#N/A', 'Unexpected error: x'));
  });

  test('rate limits and exhausted quotas say when they lift', () => {
    expect(errorCellOf(new RateLimitError('Rate limit exceeded', '2026-11-21T10:00:02Z'), now).message).toMatch(/^Rate limit reached: try again at 10:00 UTC\./);
    const usedUp = { requestsLimit: 10_000, requestsRemaining: 0, resultsLimit: 100_000, resultsRemaining: 4_200, resetAt: '2026-12-01T00:00:00Z' };
    expect(errorCellOf(new RateLimitError('Monthly request quota exhausted', '2026-12-01T00:00:00Z', usedUp), now).message).toMatch(/^Monthly quota used up: try again on 1 Dec 2026, 00:00 UTC\./);
  });

  test('which limit a 429 reached comes from its quota (or the caller), not from the words of its message', () => {
    expect(errorCellOf(new RateLimitError('Rate limit or quota exceeded', null), now).message).toMatch(/^Rate limit reached: try again later\./);
    expect(errorCellOf(new RateLimitError('Too many requests', null, null, 'quota'), now).message).toMatch(/^Monthly quota used up/);
  });
});

describe('ORG.FETCH planning and shaping', () => {
  test('10,000 input cells with repeats, URLs and e-mails: two requests of distinct domains', () => {
    const cells = Array.from({ length: 10_000 }, (_, i) => (i % 4 === 0 ? `https://www.firm-${i % 6001}.de/impressum` : i % 4 === 1 ? `info@firm-${i % 6001}.de` : `firm-${i % 6001}.de`));
    const plan = planFetch(cells);
    const chunks = fetchChunks(plan.domains);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]).toHaveLength(5_000);
    expect(new Set(chunks.flat()).size).toBe(chunks.flat().length);
    expect(plan.keys[0]).toBe('firm-0.de');
    expect(plan.keys[1]).toBe('firm-1.de');
  });

  test('one row per input cell, in input order: blanks stay blank, misses are #N/A in their row only, bad text #VALUE!', () => {
    const index = createEngine(generateDataset({ count: 300, seed: 5, asOf: '2026-11-01' }));
    const known = index.search({ filters: { country: ['Deutschland'] }, size: 2, columns: ['domain'] }).data.map((row) => row.domain);
    const cells = [known[1], '', `https://www.${known[0]!}/about`, 'missing.example', 'not a domain', known[1]];
    const plan = planFetch(cells);
    expect(plan.domains).toEqual([known[1], known[0], 'missing.example']);
    const columns = ['domain', 'name', 'summary_keywords'] as const;
    const response = index.fetch({ domains: plan.domains, columns: [...columns] });
    const found = new Map(response.data.map((row) => [row.domain, row as Record<string, unknown>]));
    const table = fetchTable(plan, found, columns, true);
    expect(table[0]).toEqual(['domain', 'name', 'summary_keywords']);
    const rowOf = (domain: string) => [domain, cellOf(found.get(domain)!.name), cellOf(found.get(domain)!.summary_keywords)];
    expect(table.slice(1)).toEqual([
      rowOf(known[1]!),
      ['', '', ''],
      rowOf(known[0]!),
      [errorCell('#N/A', 'missing.example is not in the index'), '', ''],
      [expect.objectContaining({ error: '#VALUE!' }), '', ''],
      rowOf(known[1]!),
    ]);
    expect(typeof table[1]![2]).toBe('string'); // a list becomes "a; b"
  });
});

describe('tables', () => {
  const index = createEngine(generateDataset({ count: 300, seed: 5, asOf: '2026-11-01' }));

  test('ORG.SEARCH: header row, then rows in the columns asked for', () => {
    const response = index.search({ filters: { country: ['Österreich'] }, size: 3, columns: ['domain', 'name', 'summary_keywords'] });
    const table = searchTable(response.data, ['domain', 'name', 'summary_keywords'], true);
    expect(table[0]).toEqual(['domain', 'name', 'summary_keywords']);
    expect(table.slice(1)).toEqual(response.data.map((row) => [row.domain, row.name ?? '', (row.summary_keywords ?? []).join('; ')]));
    expect(searchTable(response.data, ['domain'], false)).toHaveLength(3);
  });

  test('ORG.STATS: value/count, crosstab (primary down, secondary across, 0 for empty pairs) or long format', () => {
    const one = index.stats({ group_by: 'country' });
    expect(statsTable(one, 'crosstab', true)).toEqual([['country', 'count'], ...one.data.map((b) => [b.country, b.count])]);
    const two = index.stats({ group_by: 'country', group_by_secondary: 'organization_size' });
    const cross = statsTable(two, 'crosstab', true);
    const header = cross[0] as string[];
    expect(header[0]).toBe('country \\ organization_size');
    for (const bucket of two.data) {
      const row = cross.find((r) => r[0] === bucket.country)!;
      expect(row[header.indexOf(String(bucket.organization_size))]).toBe(bucket.count);
    }
    const total = cross.slice(1).reduce((sum, row) => sum + (row.slice(1) as number[]).reduce((a, b) => a + b, 0), 0);
    expect(total).toBe(two.data.reduce((sum, b) => sum + b.count, 0));
    expect(cross.slice(1).some((row) => row.includes(0))).toBe(true);
    const long = statsTable(two, 'long', false);
    expect(long).toEqual(two.data.map((b) => [b.country, b.organization_size, b.count]));
  });
});

describe('FetchBatcher: single-cell calls merged into one request', () => {
  const index = createEngine(generateDataset({ count: 300, seed: 5, asOf: '2026-11-01' }));
  const domains = index.search({ filters: { country: ['Deutschland'] }, size: 20, columns: ['domain'] }).data.map((row) => row.domain);
  /** A manual timer: the test decides when the window closes. */
  const manual = () => {
    const pending: (() => void)[] = [];
    return { schedule: (run: () => void) => void pending.push(run), fire: () => { pending.splice(0).forEach((run) => { run(); }); } };
  };

  test('20 cells (with repeats) within one window → one request; each cell gets its row or null', async () => {
    const timer = manual();
    const requested: string[][] = [];
    const batcher = new FetchBatcher({
      schedule: timer.schedule,
      fetch: (chunk) => {
        requested.push(chunk);
        const response = index.fetch({ domains: chunk, columns: ['domain', 'name'] });
        return Promise.resolve(new Map(response.data.map((row) => [row.domain, row])));
      },
    });
    const cells = [...domains, domains[0]!, 'missing.example'].map((domain) => batcher.request(domain));
    timer.fire();
    const rows = await Promise.all(cells);
    expect(requested).toHaveLength(1);
    expect(requested[0]).toHaveLength(21); // 20 distinct + the missing one
    expect(rows.slice(0, 20).map((row) => row?.domain)).toEqual(domains);
    expect(rows[20]?.domain).toBe(domains[0]);
    expect(rows[21]).toBeNull();
  });

  test('a failing request rejects every cell that waited for it (none left busy)', async () => {
    const timer = manual();
    const batcher = new FetchBatcher({ schedule: timer.schedule, fetch: () => Promise.reject(new ServerError('down', 503)) });
    const cells = domains.slice(0, 5).map((domain) => batcher.request(domain).then(() => 'resolved', (error: unknown) => errorCellOf(error).message));
    timer.fire();
    expect(await Promise.all(cells)).toEqual(Array(5).fill('The OrgIndex service failed: down'));
  });

  test('12,000 distinct cells → 3 requests of at most 5,000', async () => {
    const timer = manual();
    const sizes: number[] = [];
    const batcher = new FetchBatcher({ schedule: timer.schedule, fetch: (chunk) => { sizes.push(chunk.length); return Promise.resolve(new Map()); } });
    const cells = Array.from({ length: 12_000 }, (_, i) => batcher.request(`firm-${i}.de`));
    timer.fire();
    await Promise.all(cells);
    expect(sizes).toEqual([5000, 5000, 2000]);
  });
});

describe('ResultCache', () => {
  /** A Map standing in for OfficeRuntime.storage (which exists only inside Office). */
  const mapStorage = () => {
    const map = new Map<string, string>();
    return {
      map,
      getItem: (key: string) => Promise.resolve(map.get(key) ?? null),
      setItem: (key: string, value: string) => Promise.resolve(void map.set(key, value)),
      removeItem: (key: string) => Promise.resolve(void map.delete(key)),
    };
  };

  test('the same request however written is one key; hits survive a reopen through storage; entries expire', async () => {
    let now = 0;
    const storage = mapStorage();
    const cache = new ResultCache({ storage, now: () => now, ttlMs: 1_000 });
    const key = cache.key('search', { size: 10, filters: { country: ['Deutschland'], state: ['Bayern'] } });
    expect(cache.key('search', { filters: { state: ['Bayern'], country: ['Deutschland'] }, size: 10, columns: undefined })).toEqual(key);
    expect(cache.key('search', { size: 11, filters: { country: ['Deutschland'], state: ['Bayern'] } }).id).not.toBe(key.id);
    expect(await cache.get(key)).toBeUndefined();
    cache.set(key, { data: [1, 2] });
    expect(await cache.get(key)).toEqual({ data: [1, 2] });
    await cache.flush();
    // A reopened workbook: a new cache over the same storage.
    const reopened = new ResultCache({ storage, now: () => now, ttlMs: 1_000 });
    expect(await reopened.get(key)).toEqual({ data: [1, 2] });
    now = 1_001;
    expect(await reopened.get(key)).toBeUndefined();
  });

  test('an entry answers only its own request: two requests at one address do not see each other', async () => {
    const storage = mapStorage();
    const cache = new ResultCache({ storage, now: () => 0 });
    const key = cache.key('fetch', { domain: 'a.de' });
    cache.set(key, 'row of a.de');
    await cache.flush();
    // Another request text under the same id (what a hash collision would be).
    const impostor = { id: key.id, text: 'fetch:{"domain":"b.de"}' };
    expect(await cache.get(impostor)).toBeUndefined();
    expect(await new ResultCache({ storage, now: () => 0 }).get(impostor)).toBeUndefined();
  });

  test('Refresh clears memory and every stored entry of this cache (and nothing else); answers asked before it are not kept after', async () => {
    const storage = mapStorage();
    await storage.setItem('someone-else', 'x');
    const cache = new ResultCache({ storage, now: () => 0 });
    const a = cache.key('fetch', ['a.de']);
    const b = cache.key('fetch', ['b.de']);
    cache.set(a, 1);
    cache.set(b, 2);
    const before = cache.generation;
    await cache.clear();
    expect(await cache.get(a)).toBeUndefined();
    // What remains: the other key, and the Refresh token that retires anything written before it.
    expect([...storage.map.keys()].sort()).toEqual(['orgindex:cache:epoch', 'someone-else']);
    cache.set(a, 'late answer', before);
    expect(await cache.get(a)).toBeUndefined();
  });

  test('a Refresh in one workbook retires what every runtime stored, even entries no index lists', async () => {
    const storage = mapStorage();
    const first = new ResultCache({ storage, now: () => 0 });
    const second = new ResultCache({ storage, now: () => 0 });
    const key = first.key('stats', { group_by: 'country' });
    first.set(key, 'before');
    await first.flush();
    // An entry written behind the index's back (what a lost index update between two runtimes leaves).
    storage.map.set('orgindex:cache:stats:orphan', storage.map.get(key.id) ?? '');
    await second.clear();
    expect(await new ResultCache({ storage, now: () => 0 }).get(key)).toBeUndefined();
    // The first runtime's memory still holds its answer until its own Refresh; its storage no longer does.
    expect(await first.get(key)).toBe('before');
    await first.clear();
    expect(await first.get(key)).toBeUndefined();
  });

  test('a storage read that overlaps a Refresh brings nothing old back', async () => {
    const storage = mapStorage();
    const writer = new ResultCache({ storage, now: () => 0 });
    const key = writer.key('stats', {});
    writer.set(key, 'OLD');
    await writer.flush();
    const reader = new ResultCache({ storage, now: () => 0 });
    const reading = reader.get(key);
    const clearing = reader.clear();
    expect(await reading).toBeUndefined();
    await clearing;
    expect(await reader.get(key)).toBeUndefined();
  });

  test('a failed index read aborts the write instead of writing an index without the earlier entries', async () => {
    const storage = mapStorage();
    const cache = new ResultCache({ storage, now: () => 0, onStorageError: () => undefined });
    const a = cache.key('fetch', { domain: 'a.de' });
    cache.set(a, 'A');
    await cache.flush();
    const index = storage.map.get('orgindex:cache:index');
    let failNext = true;
    const flaky = { ...storage, getItem: (key: string) => (failNext && key === 'orgindex:cache:index' ? ((failNext = false), Promise.reject(new Error('busy'))) : storage.getItem(key)) };
    const second = new ResultCache({ storage: flaky, now: () => 0, onStorageError: () => undefined });
    second.set(second.key('fetch', { domain: 'b.de' }), 'B');
    await second.flush();
    expect(storage.map.get('orgindex:cache:index')).toBe(index);
    await second.clear();
    expect(await new ResultCache({ storage, now: () => 0 }).get(a)).toBeUndefined();
  });

  test('the host storage stays within its budget (soonest to expire evicted) and a failing storage fails nothing', async () => {
    let now = 0;
    const storage = mapStorage();
    const cache = new ResultCache({ storage, now: () => now, maxStorageBytes: 2_000 });
    for (let i = 0; i < 40; i++) {
      now = i;
      cache.set(cache.key('fetch', { domain: `d${i}.de` }), 'x'.repeat(100));
    }
    await cache.flush();
    const stored = [...storage.map.entries()].filter(([key]) => key !== 'orgindex:cache:index').reduce((sum, [, value]) => sum + value.length, 0);
    expect(stored).toBeLessThanOrEqual(2_000);
    expect(await new ResultCache({ storage, now: () => now }).get(cache.key('fetch', { domain: 'd39.de' }))).toBe('x'.repeat(100));

    const errors: unknown[] = [];
    const broken = new ResultCache({
      storage: { getItem: () => Promise.reject(new Error('full')), setItem: () => Promise.reject(new Error('full')), removeItem: () => Promise.reject(new Error('full')) },
      now: () => 0,
      onStorageError: (error) => errors.push(error),
    });
    const key = broken.key('stats', {});
    broken.set(key, 42);
    expect(await broken.get(key)).toBe(42);
    await broken.flush();
    expect(errors.length).toBeGreaterThan(0);
  });

  test('many single answers are written in few storage writes, not one index rewrite each', async () => {
    const storage = mapStorage();
    let writes = 0;
    const counting = { ...storage, setItem: (key: string, value: string) => ((writes += key === 'orgindex:cache:index' ? 1 : 0), storage.setItem(key, value)) };
    const cache = new ResultCache({ storage: counting, now: () => 0 });
    for (let i = 0; i < 1_000; i++) cache.set(cache.key('fetch', { domain: `d${i}.de` }), i);
    await cache.flush();
    expect(writes).toBeLessThanOrEqual(2);
    expect(await new ResultCache({ storage, now: () => 0 }).get(cache.key('fetch', { domain: 'd999.de' }))).toBe(999);
  });

  test('a second evaluation of the same call makes no request', async () => {
    const cache = new ResultCache({ now: () => 0 });
    let requests = 0;
    const evaluate = async () => {
      const key = cache.key('stats', { group_by: 'country' });
      const cached = await cache.get<number>(key);
      if (cached !== undefined) return cached;
      requests++;
      cache.set(key, 42);
      return 42;
    };
    expect([await evaluate(), await evaluate()]).toEqual([42, 42]);
    expect(requests).toBe(1);
  });
});
