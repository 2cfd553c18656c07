/**
 * v2 stats against a brute-force reference over the records: every pair of grouping columns (so every
 * pair of families, both orders), with and without filters, date_range, a key's visibility and small
 * limits (ties and the top-`limit` cut), on a generated dataset with missing values mixed in.
 */
import { createEngine, DEFAULT_DATASET, generateDataset } from '../../src/engine/index.js';
import type { OrganizationRecord } from '../../src/engine/dataset/record.js';
import { NACE_SECTIONS, sectionOf } from '../../src/contract/nace.js';
import { STATS_GROUP_BY, type StatsGroupBy, type StatsRequestInput } from '../../src/contract/v2/stats.js';

const DAY = 86_400_000;

/** Generated records, some emptied so that every dimension has nulls (no tag, no registration, no date …). */
function dataset(): OrganizationRecord[] {
  return generateDataset({ ...DEFAULT_DATASET, count: 3000, seed: 7 }).map((record, i) => {
    if (i % 17 === 0) return { ...record, summary_keywords: [] };
    if (i % 19 === 0) return { ...record, created_at: null };
    if (i % 23 === 0) return { ...record, state: null, municipality_code: null, nace_code: null };
    if (i % 29 === 0) return { ...record, summary_keywords: [...record.summary_keywords, ...record.summary_keywords] };
    return record;
  });
}

const RECORDS = dataset();
const index = createEngine(RECORDS, { now: () => 0 });

type Trunc = 'year' | 'month' | 'week';
interface Registration {
  court: string;
  date: string;
}

/** Calendar truncation through Date, independent of the engine's day arithmetic. */
function truncate(isoDate: string, unit: Trunc): string {
  const date = new Date(`${isoDate.slice(0, 10)}T00:00:00Z`);
  if (unit === 'year') return `${isoDate.slice(0, 4)}-01-01`;
  if (unit === 'month') return `${isoDate.slice(0, 7)}-01`;
  const back = (date.getUTCDay() + 6) % 7; // Monday → 0
  return new Date(date.getTime() - back * DAY).toISOString().slice(0, 10);
}

interface Filters {
  country?: string[];
  organization_type?: string[];
  summary_keywords?: string[];
  company_register_court?: string[];
  register_date_from?: string;
  register_date_to?: string;
}

interface Request {
  group_by?: StatsGroupBy;
  group_by_secondary?: StatsGroupBy;
  date_trunc?: Trunc;
  filters?: Filters;
  date_range?: { field: 'company_register_date' | 'created_at' | 'updated_at'; from_date?: string; to_date?: string };
  limit?: number;
}

const REGISTRATION_COLUMNS: readonly StatsGroupBy[] = ['company_register_court', 'company_register_date'];

/** The value(s) of one dimension for one unit (a registration, or null when the organization is the unit). */
function values(record: OrganizationRecord, registration: Registration | null, column: StatsGroupBy, unit: Trunc): (string | null)[] {
  switch (column) {
    case 'summary_keywords':
      return record.summary_keywords.length === 0 ? [null] : [...new Set(record.summary_keywords)];
    case 'company_register_court':
      return [registration ? registration.court : null];
    case 'company_register_date':
      return [registration ? truncate(registration.date, unit) : null];
    case 'created_at':
      return [record.created_at ? truncate(new Date(Date.parse(record.created_at)).toISOString(), unit) : null];
    case 'nace_code': {
      const letter = record.nace_code === null ? null : sectionOf(record.nace_code);
      return [letter === null ? null : NACE_SECTIONS[letter]];
    }
    default:
      return [record[column]];
  }
}

function within(isoDate: string | null, from?: string, to?: string): boolean {
  if (isoDate === null) return false;
  const day = isoDate.slice(0, 10);
  return (from === undefined || day >= from) && (to === undefined || day <= to);
}

/** The stats answer (data and total_buckets), counted record by record and sorted with one comparator. */
function reference(records: readonly OrganizationRecord[], request: Request): { data: Record<string, unknown>[]; total: number } {
  const unit = request.date_trunc ?? 'month';
  const dims = [request.group_by, request.group_by_secondary].filter((c): c is StatsGroupBy => c !== undefined);
  const byRegistration = dims.some((c) => REGISTRATION_COLUMNS.includes(c));
  const f = request.filters ?? {};
  const range = request.date_range;
  const counts = new Map<string | null, Map<string | null, number>>();
  const add = (a: string | null, b: string | null): void => {
    const inner = counts.get(a) ?? new Map<string | null, number>();
    inner.set(b, (inner.get(b) ?? 0) + 1);
    counts.set(a, inner);
  };
  for (const record of records) {
    if (f.country && !f.country.includes(record.country ?? '')) continue;
    if (f.organization_type && !f.organization_type.includes(record.organization_type ?? '')) continue;
    if (f.summary_keywords && !f.summary_keywords.every((tag) => record.summary_keywords.includes(tag))) continue;
    const registerFiltered = f.company_register_court !== undefined || f.register_date_from !== undefined || f.register_date_to !== undefined;
    const passesRegisterFilters = (r: Registration): boolean =>
      (!f.company_register_court || f.company_register_court.includes(r.court)) && within(r.date, f.register_date_from, f.register_date_to);
    if (registerFiltered && !record.registrations.some(passesRegisterFilters)) continue;
    let inRange = (_: Registration): boolean => true;
    if (range && range.field === 'company_register_date') {
      inRange = (r) => within(r.date, range.from_date, range.to_date);
      if (!record.registrations.some(inRange)) continue;
    } else if (range) {
      const stamp = range.field === 'created_at' ? record.created_at : record.updated_at;
      if (!within(stamp === null ? null : new Date(Date.parse(stamp)).toISOString(), range.from_date, range.to_date)) continue;
    }
    const units: (Registration | null)[] =
      byRegistration && record.registrations.length > 0
        ? record.registrations.filter((r) => inRange(r) && (!registerFiltered || passesRegisterFilters(r)))
        : [null];
    for (const registration of units) {
      const firsts = dims[0] ? values(record, registration, dims[0], unit) : [null];
      const seconds = dims[1] ? values(record, registration, dims[1], unit) : [null];
      for (const a of firsts) for (const b of seconds) add(a, b);
    }
  }
  if (dims.length === 0 && counts.size === 0) counts.set(null, new Map([[null, 0]]));
  const byLabel = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  const dateDim = dims.findIndex((c) => c === 'created_at' || c === 'company_register_date');
  const buckets = [...counts].flatMap(([first, inner]) => [...inner].map(([second, count]) => ({ first, second, count })));
  buckets.sort((x, y) => {
    const chronological = dateDim === 0 ? byLabel(x.first, y.first) : dateDim === 1 ? byLabel(x.second, y.second) : 0;
    return chronological || y.count - x.count || byLabel(x.first, y.first) || byLabel(x.second, y.second);
  });
  const data = buckets.slice(0, request.limit ?? 100).map((b) => {
    const bucket: Record<string, unknown> = {};
    if (dims[0]) bucket[dims[0]] = b.first;
    if (dims[1]) bucket[dims[1]] = b.second;
    bucket.count = b.count;
    return bucket;
  });
  return { data, total: buckets.length };
}

function expectSame(records: readonly OrganizationRecord[], engine: { stats(body: StatsRequestInput): { data: unknown[]; metadata: { total_buckets: number } } }, request: Request): void {
  const actual = engine.stats(request);
  const expected = reference(records, request);
  // Byte-identical, key order included.
  expect(JSON.stringify(actual.data)).toBe(JSON.stringify(expected.data));
  expect(actual.metadata.total_buckets).toBe(expected.total);
}

const UNITS: Trunc[] = ['year', 'month', 'week'];
const PAIRS = STATS_GROUP_BY.flatMap((first, i) => STATS_GROUP_BY.filter((second) => second !== first).map((second, j) => [first, second, UNITS[(i + j) % 3] ?? 'month'] as const));

// Values taken from the data so that the filters keep a real share of it.
const sample = RECORDS[5] as OrganizationRecord;
const withCourt = RECORDS.find((r) => r.registrations.length > 1) as OrganizationRecord;
const FILTERS: Filters = { country: [sample.country ?? ''] };
const REGISTER_FILTERS: Filters = { company_register_court: [withCourt.registrations[0]?.court ?? ''], register_date_from: '1990-01-01' };
const TAG_FILTERS: Filters = { summary_keywords: [sample.summary_keywords[0] ?? ''] };

describe('every pair of grouping columns matches the reference', () => {
  test.each(PAIRS)('%s × %s (%s)', (group_by, group_by_secondary, date_trunc) => {
    expectSame(RECORDS, index, { group_by, group_by_secondary, date_trunc, limit: 500 });
    expectSame(RECORDS, index, { group_by, group_by_secondary, date_trunc, limit: 7 });
    expectSame(RECORDS, index, { group_by, group_by_secondary, date_trunc, filters: FILTERS, limit: 50 });
  });
});

describe('one column or none, filters and date_range', () => {
  const requests: Request[] = [{}, { filters: FILTERS }, { filters: { country: ['Atlantis'] } }, { date_range: { field: 'created_at', from_date: '2024-01-01' } }];
  for (const group_by of STATS_GROUP_BY) {
    for (const date_trunc of UNITS) requests.push({ group_by, date_trunc, limit: 500 }, { group_by, date_trunc, limit: 3 });
    requests.push(
      { group_by, filters: REGISTER_FILTERS, limit: 500 },
      { group_by, filters: TAG_FILTERS, limit: 500 },
      { group_by, filters: { ...FILTERS, organization_type: ['Company'] }, limit: 20 },
      { group_by, date_range: { field: 'company_register_date', from_date: '2000-01-01', to_date: '2015-12-31' }, limit: 500 },
      { group_by, date_range: { field: 'created_at', to_date: '2023-06-30' }, limit: 500 },
      { group_by, date_range: { field: 'updated_at', from_date: '2025-01-01' }, limit: 500 },
    );
  }
  test.each(requests.map((request) => [JSON.stringify(request), request] as const))('%s', (_, request) => {
    expectSame(RECORDS, index, request);
  });
});

describe('registration units with register filters and a date range together', () => {
  const cases: Request[] = [];
  for (const [group_by, group_by_secondary] of [
    ['company_register_court', 'company_register_date'],
    ['company_register_date', 'summary_keywords'],
    ['summary_keywords', 'company_register_court'],
    ['municipality_code', 'company_register_court'],
    ['company_register_court', 'created_at'],
  ] as const) {
    for (const date_trunc of UNITS) {
      cases.push(
        { group_by, group_by_secondary, date_trunc, filters: REGISTER_FILTERS, date_range: { field: 'company_register_date', to_date: '2012-12-31' }, limit: 40 },
        { group_by, group_by_secondary, date_trunc, filters: { register_date_to: '2005-01-01' }, limit: 500 },
        { group_by, group_by_secondary, date_trunc, date_range: { field: 'company_register_date', from_date: '2010-01-01' }, limit: 9 },
      );
    }
  }
  test.each(cases.map((request) => [JSON.stringify(request), request] as const))('%s', (_, request) => {
    expectSame(RECORDS, index, request);
  });
});

describe("a key's visibility", () => {
  const country = sample.country ?? '';
  const view = index.withVisibility({ country: [country] });
  const visible = RECORDS.filter((r) => r.country === country);
  test.each(PAIRS.filter((_, i) => i % 7 === 0))('%s × %s (%s)', (group_by, group_by_secondary, date_trunc) => {
    expectSame(visible, view, { group_by, group_by_secondary, date_trunc, limit: 30 });
  });
});

describe('skewed data: a tenth of the organizations hold every tag and registration', () => {
  // Units far above the per-organization average, over a product of ids too large for a table.
  const records = generateDataset({ ...DEFAULT_DATASET, count: 3000, seed: 11 }).map((record, i) =>
    i % 10 === 0
      ? {
          ...record,
          summary_keywords: Array.from({ length: 8 }, (_, k) => `tag ${i} ${k}`),
          registrations: Array.from({ length: 6 }, (_, k) => ({ court: `Court ${(i + k) % 400}`, date: `20${10 + k}-0${1 + (i % 9)}-1${k}`, id: `HRB ${i}-${k}` })),
        }
      : { ...record, summary_keywords: [], registrations: [] },
  );
  const skewed = createEngine(records, { now: () => 0 });
  test.each([
    ['summary_keywords', 'company_register_court'],
    ['company_register_court', 'summary_keywords'],
    ['summary_keywords', 'company_register_date'],
    ['company_register_date', 'municipality_code'],
  ] as const)('%s × %s', (group_by, group_by_secondary) => {
    for (const date_trunc of UNITS) {
      expectSame(records, skewed, { group_by, group_by_secondary, date_trunc, limit: 500 });
      expectSame(records, skewed, { group_by, group_by_secondary, date_trunc, limit: 11 });
    }
  });
});

test('the explain plan counts the buckets', () => {
  const result = index.stats({ group_by: 'summary_keywords', group_by_secondary: 'company_register_court', limit: 5, explain: true });
  expect(result.metadata.explain_plan).toContain(`buckets: ${result.metadata.total_buckets}, returned 5 (limit 5), ordered by count descending`);
});

test('dates beyond four-digit years sort as their labels do', () => {
  const [first, second, third] = RECORDS;
  const records = [
    { ...(first as OrganizationRecord), created_at: '+010001-03-01T00:00:00.000Z' },
    { ...(second as OrganizationRecord), created_at: '-000001-06-01T00:00:00.000Z' },
    { ...(third as OrganizationRecord), created_at: '1999-12-31T23:00:00.000Z' },
  ];
  const result = createEngine(records).stats({ group_by: 'created_at', date_trunc: 'year' });
  // toISOString's expanded years: '+' and '-' sort before digits.
  expect(result.data).toEqual([
    { created_at: '+010001-01', count: 1 },
    { created_at: '-000001-01', count: 1 },
    { created_at: '1999-01-01', count: 1 },
  ]);
});
