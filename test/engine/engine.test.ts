/** The local engine over hand-made rows: every filter rule, fetch, filter-mode pages, stats families, options. */
import { createEngine, ValidationError, type SearchRequestInput } from '../../src/index.js';
import { LocationIndex } from '../../src/engine/locations/location-index.js';
import { hasVectors } from '../../src/engine/relevance/store-relevance.js';
import { FIXTURE } from './fixtures.js';

const index = createEngine(FIXTURE, { now: () => 0 });

function domains(filters: SearchRequestInput['filters']): string[] {
  return index
    .search({ filters, size: 500 })
    .data.map((r) => r.domain)
    .sort();
}

describe('filters: OR inside a key, AND across keys', () => {
  test.each([
    ['no constraint', {}, ['alpha-software-muenchen.de', 'alpha-software.de', 'beta-bau.de', 'delta-bank.at', 'epsilon.org', 'gamma-cloud.de']],
    ['country', { country: ['Deutschland'] }, ['alpha-software-muenchen.de', 'alpha-software.de', 'beta-bau.de', 'gamma-cloud.de']],
    ['state (OR)', { state: ['Berlin', 'Wien'] }, ['delta-bank.at', 'gamma-cloud.de']],
    ['region', { region: ['Oberbayern'] }, ['alpha-software-muenchen.de', 'alpha-software.de']],
    ['district', { district: ['Augsburg'] }, ['beta-bau.de']],
    ['municipality', { municipality: ['München'] }, ['alpha-software-muenchen.de', 'alpha-software.de']],
    ['other spellings and exonyms', { state: ['bavaria'] }, ['alpha-software-muenchen.de', 'alpha-software.de', 'beta-bau.de']],
    ['unknown values match nothing', { country: ['Atlantis'] }, []],
    ['organization_type, case-insensitive input', { organization_type: ['startup'] }, ['gamma-cloud.de']],
    ['organization_size by label', { organization_size: ['micro'] }, ['gamma-cloud.de']],
    ['AND across keys', { country: ['Deutschland'], organization_type: ['Company'] }, ['alpha-software-muenchen.de', 'alpha-software.de', 'beta-bau.de']],
    ['nace section letter', { nace_code: ['K'] }, ['alpha-software-muenchen.de', 'alpha-software.de', 'gamma-cloud.de']],
    ['nace section value', { nace_code: ['NACE F: Construction'] }, ['beta-bau.de']],
    ['nace section stored as a section value', { nace_code: ['L'] }, ['delta-bank.at']],
    ['nace division', { nace_code: ['62'] }, ['alpha-software-muenchen.de', 'alpha-software.de']],
    ['nace class, dotted', { nace_code: ['62.01'] }, ['alpha-software.de']],
    ['nace class, undotted', { nace_code: ['6202'] }, ['alpha-software-muenchen.de']],
    ['nace group prefix', { nace_code: ['63.1'] }, ['gamma-cloud.de']],
    ['source', { source: ['register', 'request'] }, ['alpha-software.de', 'delta-bank.at']],
    ['source snapshot', { source: ['dataset_03_2025'] }, ['gamma-cloud.de']],
    ['court: any registration', { company_register_court: ['Amtsgericht Augsburg'] }, ['alpha-software.de', 'beta-bau.de']],
    ['register dates: any registration within', { register_date_from: '2019-06-01', register_date_to: '2019-06-30' }, ['alpha-software.de', 'beta-bau.de']],
    ['register_date_from alone', { register_date_from: '2024-01-01' }, ['gamma-cloud.de']],
    ['register_date_to alone', { register_date_to: '2001-01-01' }, ['delta-bank.at']],
    [
      'court and dates hold on the same registration',
      { company_register_court: ['Amtsgericht Augsburg'], register_date_from: '2019-01-01' },
      ['beta-bau.de'],
    ],
    ['summary_keywords: one tag', { summary_keywords: ['software'] }, ['alpha-software-muenchen.de', 'alpha-software.de', 'gamma-cloud.de']],
    ['summary_keywords: containment of ALL tags', { summary_keywords: ['software', 'erp'] }, ['alpha-software.de']],
    ['summary_keywords: an unknown tag', { summary_keywords: ['software', 'nope'] }, []],
    ['text_keywords must_all', { text_keywords: { must_all: ['cloud'] } }, ['gamma-cloud.de']],
    ['text_keywords must_any', { text_keywords: { must_any: ['erp', 'banking'] } }, ['alpha-software.de', 'delta-bank.at']],
    [
      'text_keywords must_not',
      { text_keywords: { must_all: ['software'], must_not: ['cloud'] } },
      ['alpha-software-muenchen.de', 'alpha-software.de'],
    ],
    ['text_keywords phrase', { text_keywords: { must_all: ['data centre'] } }, ['gamma-cloud.de']],
    ['text_keywords in the name', { text_keywords: { must_all: ['bau'] } }, ['beta-bau.de']],
  ])('%s', (_, filters, expected) => {
    expect(domains(filters as SearchRequestInput['filters'])).toEqual(expected);
  });

  test('filters_applied echoes the normalised filters', () => {
    const result = index.search({ filters: { nace_code: ['k', '6201'], organization_type: ['company'], country: [] } });
    expect(result.metadata.filters_applied).toEqual({ nace_code: [expect.stringMatching(/^NACE K:/), '62.01'], organization_type: ['Company'] });
  });
});

describe('fetch', () => {
  test('request order, normalised, duplicates collapsed, unknown → missing', () => {
    const result = index.fetch({ domains: ['https://www.Gamma-Cloud.de/x', 'nope.de', 'gamma-cloud.de', 'beta-bau.de'], columns: ['name', 'state'] });
    expect(result).toEqual({
      data: [
        { domain: 'gamma-cloud.de', name: 'Gamma Cloud GmbH', state: 'Berlin' },
        { domain: 'beta-bau.de', name: 'Beta Bau GmbH', state: 'Bayern' },
      ],
      metadata: { requested: 3, found: 2, missing: ['nope.de'] },
    });
  });

  test('every column type comes back in the API shape', () => {
    const [row] = index.fetch({
      domains: ['alpha-software.de'],
      columns: ['summary_keywords', 'lat', 'lon', 'new_register_entry', 'company_register_date', 'company_register_id', 'created_at', 'nace_code', 'region_code', 'address'],
    }).data;
    expect(row).toEqual({
      domain: 'alpha-software.de',
      summary_keywords: ['software', 'erp'],
      lat: 48.1,
      lon: 11.5,
      new_register_entry: null,
      company_register_date: null,
      company_register_id: null,
      created_at: '2021-03-15T10:00:00.000Z',
      nace_code: '62.01',
      region_code: '091',
      address: null,
    });
  });

  test('rows the key may not see are missing, like unknown ones', () => {
    const austria = createEngine(FIXTURE, { visibility: { country: ['Österreich'] } });
    expect(austria.fetch({ domains: ['alpha-software.de', 'delta-bank.at'] }).metadata).toEqual({ requested: 2, found: 1, missing: ['alpha-software.de'] });
    expect(austria.search({ filters: {} }).metadata.total_hits).toBe(1);
    expect(index.withVisibility({ country: ['Deutschland'] }).stats({}).data).toEqual([{ count: 4 }]);
  });

  test('visibility is a normalised filters object; an invalid one is a ValidationError at visibility', () => {
    expect(createEngine(FIXTURE, { visibility: { nace_code: ['K'], organization_type: ['company'] } }).search({ filters: {} }).metadata.total_hits).toBe(2);
    expect(() => createEngine(FIXTURE, { visibility: { nace_code: ['04'] } })).toThrow(ValidationError);
    let caught: unknown = null;
    try {
      createEngine(FIXTURE, { visibility: { country: 'Deutschland' } as never });
    } catch (error) {
      caught = error;
    }
    expect((caught as ValidationError).detail[0]?.loc).toEqual(['visibility', 'country']);
  });

  test('location doc counts of a scoped key count only what it may see', () => {
    const austria = index.withVisibility({ country: ['Österreich'] });
    // Places holding only hidden rows are not listed at all: a count of 0 would reveal that they exist.
    expect(austria.location('Europe/Deutschland')).toBeNull();
    expect(austria.location('Europe/Österreich')?.doc_count).toBe(1);
    expect(index.location('Europe/Deutschland')?.doc_count).toBe(4);
  });

  test('a bad body is the contract 422, raised as ValidationError', () => {
    expect(() => index.fetch({ domains: [] })).toThrow(ValidationError);
  });
});

describe('filter-mode search: keyset pages in domain order', () => {
  const order = ['alpha-software-muenchen.de', 'alpha-software.de', 'beta-bau.de', 'delta-bank.at', 'epsilon.org', 'gamma-cloud.de'];

  test('walks every page: no duplicate, no gap, rows sum to total_hits, last cursor null', () => {
    const seen: string[] = [];
    let cursor: unknown[] | null = null;
    let pages = 0;
    do {
      const page = index.search({ filters: {}, size: 4, search_after: cursor as never });
      expect(page.metadata).toMatchObject({ mode: 'filter', total_hits: 6, returned: page.data.length });
      seen.push(...page.data.map((r) => r.domain));
      cursor = page.metadata.search_after;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(2);
    expect(seen).toEqual(order);
  });

  test('the cursor is the last domain, so a page stays right when rows are added before it', () => {
    const first = index.search({ filters: {}, size: 2 });
    expect(first.metadata.search_after).toEqual(['alpha-software.de']);
    const grown = createEngine([...FIXTURE, { ...FIXTURE[5]!, domain: 'aardvark.de' }]);
    expect(grown.search({ filters: {}, size: 2, search_after: ['alpha-software.de'] }).data.map((r) => r.domain)).toEqual(['beta-bau.de', 'delta-bank.at']);
  });

  test('a page that ends exactly at the last match has a null cursor', () => {
    expect(index.search({ filters: {}, size: 6 }).metadata.search_after).toBeNull();
  });

  test('excludes never appear and are not counted', () => {
    const result = index.search({ filters: {}, excludes: ['https://beta-bau.de', 'unknown.de'], size: 10 });
    expect(result.data.map((r) => r.domain)).not.toContain('beta-bau.de');
    expect(result.metadata.total_hits).toBe(5);
  });

  test('dedup keeps the first of rows sharing a name (case and spacing ignored); total_hits counts before dedup', () => {
    const result = index.search({ filters: { municipality: ['München'] }, dedup: true });
    expect(result.data.map((r) => r.domain)).toEqual(['alpha-software-muenchen.de']);
    expect(result.metadata).toMatchObject({ total_hits: 2, returned: 1, search_after: null });
  });

  test('columns: domain always first, requested columns in order', () => {
    expect(index.search({ filters: { district: ['Augsburg'] }, columns: ['employee_class', 'name'] }).data).toEqual([
      { domain: 'beta-bau.de', employee_class: '50-99', name: 'Beta Bau GmbH' },
    ]);
  });

  test('explain gives plan lines; without it explain_plan is null', () => {
    expect(index.search({ filters: {}, explain: true }).metadata.explain_plan).toEqual(expect.arrayContaining([expect.stringMatching(/^mode: filter/)]));
    expect(index.search({ filters: {} }).metadata.explain_plan).toBeNull();
  });

  test('a cursor that is not a filter-mode cursor is a 422 pointing at search_after', () => {
    try {
      index.search({ filters: {}, search_after: [12, 'x'] });
      throw new Error('expected a ValidationError');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).detail[0]?.loc).toEqual(['body', 'search_after']);
    }
  });
});

describe('stats', () => {
  test('no grouping: one total', () => {
    const result = index.stats({});
    expect(result.data).toEqual([{ count: 6 }]);
    expect(result.metadata).toMatchObject({ group_by: null, group_by_secondary: null, total_buckets: 1 });
  });

  test('no grouping and no match: still one total, zero', () => {
    expect(index.stats({ filters: { country: ['Nowhere'] } }).data).toEqual([{ count: 0 }]);
  });

  test('register filters also choose which registrations are counted when registrations are the unit', () => {
    expect(index.stats({ group_by: 'company_register_court', filters: { company_register_court: ['Amtsgericht Augsburg'] } }).data).toEqual([
      { company_register_court: 'Amtsgericht Augsburg', count: 2 },
    ]);
    expect(index.stats({ group_by: 'company_register_date', date_trunc: 'year', filters: { register_date_from: '2019-01-01' } }).data).toEqual([
      { company_register_date: '2019-01-01', count: 2 },
      { company_register_date: '2024-01-01', count: 1 },
    ]);
  });

  test('geographic: count descending, nulls as null', () => {
    expect(index.stats({ group_by: 'country' }).data).toEqual([
      { country: 'Deutschland', count: 4 },
      { country: 'Österreich', count: 1 },
      { country: null, count: 1 },
    ]);
  });

  test('classification: nace_code groups by section value', () => {
    expect(index.stats({ group_by: 'nace_code' }).data).toEqual([
      { nace_code: expect.stringMatching(/^NACE K:/), count: 3 },
      { nace_code: 'NACE F: Construction', count: 1 },
      { nace_code: 'NACE L: Financial and insurance activities', count: 1 },
      { nace_code: null, count: 1 },
    ]);
  });

  test('source', () => {
    expect(index.stats({ group_by: 'source' }).data[0]).toEqual({ source: null, count: 2 });
  });

  test('summary_keywords: one bucket per tag', () => {
    const data = index.stats({ group_by: 'summary_keywords' }).data;
    expect(data[0]).toEqual({ summary_keywords: 'software', count: 3 });
    expect(data).toContainEqual({ summary_keywords: null, count: 1 });
    expect(data.reduce((n, b) => n + b.count, 0)).toBe(9);
  });

  test('registration columns: one row per registration (none → one null row)', () => {
    expect(index.stats({ group_by: 'company_register_court' }).data).toEqual([
      { company_register_court: 'Amtsgericht Augsburg', count: 2 },
      { company_register_court: null, count: 2 },
      { company_register_court: 'Amtsgericht Charlottenburg', count: 1 },
      { company_register_court: 'Amtsgericht München', count: 1 },
      { company_register_court: 'Handelsgericht Wien', count: 1 },
    ]);
  });

  test.each([
    ['year', ['2001-01-01', '2015-01-01', '2019-01-01', '2024-01-01', null], [1, 1, 2, 1, 2]],
    ['month', ['2001-01-01', '2015-02-01', '2019-06-01', '2024-12-01', null], [1, 1, 2, 1, 2]],
    ['week', ['2001-01-01', '2015-02-09', '2019-06-03', '2019-06-17', '2024-12-30', null], [1, 1, 1, 1, 1, 2]],
  ] as const)('registration dates by %s: chronological, weeks start on Monday', (unit, buckets, counts) => {
    const result = index.stats({ group_by: 'company_register_date', date_trunc: unit });
    expect(result.data).toEqual(buckets.map((b, i) => ({ company_register_date: b, count: counts[i] })));
    expect(result.metadata.date_trunc).toBe(unit);
  });

  test('created_at by year; date_trunc ignored (null in metadata) without a date dimension', () => {
    expect(index.stats({ group_by: 'created_at', date_trunc: 'year' }).data.map((b) => [b.created_at, b.count])).toEqual([
      ['2020-01-01', 1],
      ['2021-01-01', 2],
      ['2022-01-01', 1],
      ['2023-01-01', 1],
      ['2025-01-01', 1],
    ]);
    expect(index.stats({ group_by: 'country', date_trunc: 'week' }).metadata.date_trunc).toBeNull();
  });

  test('two dimensions', () => {
    expect(index.stats({ group_by: 'country', group_by_secondary: 'organization_type' }).data).toEqual([
      { country: 'Deutschland', organization_type: 'Company', count: 3 },
      { country: 'Deutschland', organization_type: 'Startup', count: 1 },
      { country: 'Österreich', organization_type: 'Company', count: 1 },
      { country: null, organization_type: 'Other', count: 1 },
    ]);
  });

  test('two registration dimensions pair values of the same registration', () => {
    expect(index.stats({ group_by: 'company_register_court', group_by_secondary: 'company_register_date', date_trunc: 'year' }).data).toEqual([
      { company_register_court: 'Handelsgericht Wien', company_register_date: '2001-01-01', count: 1 },
      { company_register_court: 'Amtsgericht Augsburg', company_register_date: '2015-01-01', count: 1 },
      { company_register_court: 'Amtsgericht Augsburg', company_register_date: '2019-01-01', count: 1 },
      { company_register_court: 'Amtsgericht München', company_register_date: '2019-01-01', count: 1 },
      { company_register_court: 'Amtsgericht Charlottenburg', company_register_date: '2024-01-01', count: 1 },
      { company_register_court: null, company_register_date: null, count: 2 },
    ]);
  });

  test('date_range on registration dates keeps the registrations inside it', () => {
    const result = index.stats({ group_by: 'company_register_court', date_range: { from_date: '2019-01-01', to_date: '2019-12-31' } });
    expect(result.data).toEqual([
      { company_register_court: 'Amtsgericht Augsburg', count: 1 },
      { company_register_court: 'Amtsgericht München', count: 1 },
    ]);
    expect(result.metadata.date_range_applied).toEqual({ field: 'company_register_date', from_date: '2019-01-01', to_date: '2019-12-31' });
  });

  test('date_range on created_at keeps organizations', () => {
    expect(index.stats({ date_range: { field: 'created_at', from_date: '2021-01-01', to_date: '2021-12-31' } }).data).toEqual([{ count: 2 }]);
  });

  test('filters narrow the population; limit cuts buckets, total_buckets counts them all', () => {
    expect(index.stats({ group_by: 'state', filters: { country: ['Deutschland'] } }).data).toEqual([
      { state: 'Bayern', count: 3 },
      { state: 'Berlin', count: 1 },
    ]);
    const limited = index.stats({ group_by: 'country', limit: 2 });
    expect(limited.data).toHaveLength(2);
    expect(limited.metadata.total_buckets).toBe(3);
  });

  test('explain returns plan lines', () => {
    expect(index.stats({ group_by: 'company_register_court', explain: true }).metadata.explain_plan).toEqual(
      expect.arrayContaining([expect.stringMatching(/^unit: registration/)]),
    );
  });
});

describe('filter options', () => {
  const { options } = index.filterOptions();
  test('values with counts, most frequent first', () => {
    expect(options.country).toEqual([
      { value: 'Deutschland', count: 4 },
      { value: 'Österreich', count: 1 },
    ]);
    expect(options.organization_type?.[0]).toEqual({ value: 'Company', count: 4 });
  });
  test('nace_code lists section values', () => {
    expect(options.nace_code?.map((o) => [o.value.slice(0, 6), o.count])).toEqual([
      ['NACE K', 3],
      ['NACE F', 1],
      ['NACE L', 1],
    ]);
  });
  test('courts and keyword tags count organizations', () => {
    expect(options.company_register_court?.[0]).toEqual({ value: 'Amtsgericht Augsburg', count: 2 });
    expect(options.summary_keywords?.[0]).toEqual({ value: 'software', count: 3 });
  });
  test('scoped to the key', () => {
    expect(index.withVisibility({ country: ['Österreich'] }).filterOptions().options.country).toEqual([{ value: 'Österreich', count: 1 }]);
  });
});

describe('locations from the data', () => {
  test('every level with doc counts; ids are name paths', () => {
    expect(index.location('Europe/Deutschland/Bayern')).toEqual({
      location_id: 'Europe/Deutschland/Bayern',
      name: 'Bayern',
      location_type: 'state',
      parent_id: 'Europe/Deutschland',
      path: 'Europe / Deutschland / Bayern',
      doc_count: 3,
    });
    expect(index.location('Europe/Deutschland/Berlin/Berlin')?.parent_id).toBe('Europe/Deutschland/Berlin');
  });

  test('listing the children of a parent', () => {
    expect(index.locationList({ parent_id: 'Europe/Deutschland' }).items.map((i) => [i.name, i.doc_count])).toEqual([
      ['Bayern', 3],
      ['Berlin', 1],
    ]);
  });

  test('search ranks the exact name first', () => {
    const result = index.locationSearch({ q: 'München' });
    expect(result.items[0]).toMatchObject({ name: 'München', location_type: 'municipality' });
    expect(result.items.map((i) => i.name)).toContain('München, Landeshauptstadt');
    expect(result.count).toBe(result.items.length);
  });
});

test('health', () => {
  expect(index.health()).toEqual({ healthy: true });
  expect(createEngine([]).health()).toEqual({ healthy: false, error: 'the index holds no organizations' });
});

test('warm builds the relevance structures and the location index: on one thread alone, on the threads a host hands in', () => {
  const alone = createEngine(FIXTURE);
  const built = LocationIndex.built;
  expect(alone.warm()).toEqual({ relevanceThreads: 1, scanThreads: 1 });
  expect(hasVectors(alone.store)).toBe(true);
  expect(LocationIndex.built).toBe(built + 1);

  const hosted = createEngine(FIXTURE);
  const calls: string[] = [];
  const threads = hosted.warm({
    startScanThread: () => {
      calls.push('scan thread');
      return true;
    },
    warmRelevance: (store) => {
      calls.push(store === hosted.store ? 'relevance of this store' : 'relevance of another store');
      return 2;
    },
  });
  // The scan thread first: the vectors then go into its shared memory.
  expect(calls).toEqual(['scan thread', 'relevance of this store']);
  expect(threads).toEqual({ relevanceThreads: 2, scanThreads: 2 });
  expect(LocationIndex.built).toBe(built + 2);
});
