/**
 * Response rows (fetch, filter-mode pages) against the records they come from, column by column and
 * byte for byte; the date formatters against Date; day columns; filter options answered again from the
 * first count.
 */
import { createEngine, DEFAULT_DATASET, generateDataset } from '../../src/engine/index.js';
import type { OrganizationRecord } from '../../src/engine/dataset/record.js';
import { Random } from '../../src/engine/random.js';
import { EXTENSION_COLUMNS, SELECTABLE_COLUMNS, type SelectableColumn } from '../../src/contract/common.js';

const ALL_COLUMNS: readonly SelectableColumn[] = [...SELECTABLE_COLUMNS, ...EXTENSION_COLUMNS];
import { formatDay, formatInstant, NO_DAY } from '../../src/engine/store/dates.js';
import { encodeDays } from '../../src/engine/store/store.js';

const EDGE_TIMES = ['1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2024-02-29T12:05:09.007Z', '1900-03-01T00:00:00.050Z'];
const EDGE_DAYS = ['1900-02-28', '2000-02-29', '1969-12-31', '0001-01-01', '9999-12-31'];

function dataset(): OrganizationRecord[] {
  return generateDataset({ ...DEFAULT_DATASET, count: 3000, seed: 5 }).map((record, i) => {
    if (i % 13 === 0) return { ...record, created_at: EDGE_TIMES[(i / 13) % EDGE_TIMES.length] ?? null, company_register_date: EDGE_DAYS[(i / 13) % EDGE_DAYS.length] ?? null };
    if (i % 17 === 0) return { ...record, created_at: null, lat: null, lon: null, new_register_entry: null, summary_keywords: [] };
    if (i % 19 === 0) return { ...record, summary_keywords: ['b', 'a', 'b'], address: 'Hauptstraße 1, 80331 München', lat: 48.1, lon: 11.5, new_register_entry: true };
    return record;
  });
}

const RECORDS = dataset();
const index = createEngine(RECORDS, { now: () => 0 });
const byDomain = new Map(RECORDS.map((record) => [record.domain, record]));

/** A row as the spec describes it, read straight from the record. */
function expectedRow(record: OrganizationRecord, columns: readonly SelectableColumn[]): Record<string, unknown> {
  const row: Record<string, unknown> = { domain: record.domain };
  for (const column of columns) {
    if (column === 'summary_keywords') row[column] = [...new Set(record.summary_keywords)];
    else if (column === 'created_at') row[column] = record.created_at === null ? null : new Date(Date.parse(record.created_at)).toISOString();
    else if (column === 'company_register_date') row[column] = record.company_register_date?.slice(0, 10) ?? null;
    else if (column === 'company_register_court') row[column] = courtOf(record);
    else row[column] = record[column];
  }
  return row;
}

/** The court of the registration the register date names, else of the newest registration. */
function courtOf(record: OrganizationRecord): string | null {
  const named = record.registrations.find((registration) => registration.date.slice(0, 10) === record.company_register_date?.slice(0, 10));
  if (named) return named.court;
  const newest = [...record.registrations].sort((a, b) => b.date.localeCompare(a.date))[0];
  return newest?.court ?? null;
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('fetch rows are the records, in request order, key order included', () => {
  const random = new Random(9);
  const subsets: SelectableColumn[][] = [
    [...ALL_COLUMNS],
    shuffled(ALL_COLUMNS, random),
    ['created_at', 'company_register_date', 'lat'],
    ['summary_keywords'],
    ['domain'],
    shuffled(ALL_COLUMNS, random).slice(0, 9),
  ];
  test.each(subsets.map((columns) => [columns.join(','), columns] as const))('columns %s', (_, columns) => {
    // Random existing domains (some twice, some in upper case) and unknown ones.
    const domains = Array.from({ length: 1500 }, (_, i) => {
      const record = RECORDS[Math.floor(random.next() * RECORDS.length)] as OrganizationRecord;
      if (i % 50 === 0) return `unknown-${i}.example`;
      return i % 7 === 0 ? record.domain.toUpperCase() : record.domain;
    });
    const result = index.fetch({ domains, columns });
    const wanted = [...new Set(['domain', ...columns])] as SelectableColumn[];
    const seen = new Set<string>();
    const expected: Record<string, unknown>[] = [];
    const missing: string[] = [];
    for (const domain of domains.map((d) => d.toLowerCase())) {
      if (seen.has(domain)) continue;
      seen.add(domain);
      const record = byDomain.get(domain);
      if (record) expected.push(expectedRow(record, wanted));
      else missing.push(domain);
    }
    expect(JSON.stringify(result.data)).toBe(JSON.stringify(expected));
    expect(result.metadata).toEqual({ requested: seen.size, found: expected.length, missing });
  });

  test('rows in ascending, descending and request order agree', () => {
    const domains = RECORDS.slice(0, 400).map((r) => r.domain);
    const forward = index.fetch({ domains, columns: [...ALL_COLUMNS] }).data;
    const backward = index.fetch({ domains: [...domains].reverse(), columns: [...ALL_COLUMNS] }).data;
    expect(JSON.stringify([...backward].reverse())).toBe(JSON.stringify(forward));
    expect(forward.map((row) => row.domain)).toEqual(domains);
  });

  test("a key's visibility turns invisible rows into missing ones", () => {
    const country = RECORDS[0]?.country ?? '';
    const view = index.withVisibility({ country: [country] });
    const domains = RECORDS.slice(0, 300).map((r) => r.domain);
    const result = view.fetch({ domains, columns: ['country', 'created_at'] });
    const visible = RECORDS.slice(0, 300).filter((r) => r.country === country);
    expect(JSON.stringify(result.data)).toBe(JSON.stringify(visible.map((r) => expectedRow(r, ['domain', 'country', 'created_at']))));
    expect(result.metadata.missing).toEqual(RECORDS.slice(0, 300).filter((r) => r.country !== country).map((r) => r.domain));
  });
});

test('a filter-mode page holds the same rows as the records, in domain order', () => {
  const country = RECORDS[1]?.country ?? '';
  const page = index.search({ filters: { country: [country] }, size: 500, columns: [...ALL_COLUMNS] });
  const expected = RECORDS.filter((r) => r.country === country)
    .sort((a, b) => (a.domain < b.domain ? -1 : 1))
    .slice(0, 500)
    .map((r) => expectedRow(r, ALL_COLUMNS));
  expect(JSON.stringify(page.data)).toBe(JSON.stringify(expected));
});

describe('date formatting agrees with Date', () => {
  test('formatDay for every day of 1890–2110 and around the four-digit years', () => {
    const wrong: number[] = [];
    const check = (day: number): void => {
      if (formatDay(day) !== new Date(day * 86_400_000).toISOString().slice(0, 10)) wrong.push(day);
    };
    for (let day = -29_220; day <= 51_500; day++) check(day);
    for (let day = -719_540; day <= -719_510; day++) check(day); // year 0000 and the year before
    for (let day = 2_932_880; day <= 2_932_910; day++) check(day); // 9999 and 10000
    expect(wrong).toEqual([]);
  });

  test('formatInstant for random instants and the edges', () => {
    const random = new Random(4);
    const instants = [0, -1, 1, 999, -86_400_000, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_000, -62_167_219_200_001, ...EDGE_TIMES.map((t) => Date.parse(t))];
    for (let i = 0; i < 20_000; i++) instants.push(Math.floor((random.next() - 0.3) * 4_000_000_000_000));
    expect(instants.filter((ms) => formatInstant(ms) !== new Date(ms).toISOString())).toEqual([]);
  });
});

describe('day columns', () => {
  test.each([
    ['a calendar span', [20_000, NO_DAY, 19_000, 20_000, -5, 19_000]],
    ['a span of millions of days', [2_900_000, NO_DAY, -700_000, 5, 2_900_000, -700_000]],
    ['no day at all', [NO_DAY, NO_DAY]],
  ])('%s: distinct days ascending, each unit coded by its day', (_, values) => {
    const { days, codes } = encodeDays(Int32Array.from(values));
    const distinct = [...new Set(values.filter((day) => day !== NO_DAY))].sort((a, b) => a - b);
    expect([...days]).toEqual([NO_DAY, ...distinct]);
    expect([...codes].map((code) => days[code])).toEqual(values);
  });
});

describe('filter options', () => {
  test('answers again what the first answer counted, in fresh objects', () => {
    const first = index.filterOptions();
    const firstCopy = JSON.parse(JSON.stringify(first)) as typeof first;
    (first.options.country ?? []).splice(0, 1);
    const again = index.filterOptions();
    expect(again).toEqual(firstCopy);
    const countries = new Map<string, number>();
    for (const r of RECORDS) if (r.country !== null) countries.set(r.country, (countries.get(r.country) ?? 0) + 1);
    expect(again.options.country).toEqual([...countries].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)));
  });

  test("a key's view counts only its rows", () => {
    const country = RECORDS[0]?.country ?? '';
    const view = index.withVisibility({ country: [country] });
    expect(view.filterOptions().options.country).toEqual([{ value: country, count: RECORDS.filter((r) => r.country === country).length }]);
    expect(index.filterOptions().options.country?.length).toBeGreaterThan(1);
  });
});

test('many domains at once (rowsOf) find the rows one at a time does: unknown ones, and ones of the same hash (a middle character changed), are −1', () => {
  const { store } = index;
  const known = RECORDS.map((record) => record.domain);
  // The hash reads the length, the first 8 and the last 8 characters: a changed middle character keeps it.
  const sameHash = known.filter((domain) => domain.length > 17).map((domain) => `${domain.slice(0, 8)}${domain[8] === 'q' ? 'z' : 'q'}${domain.slice(9)}`);
  const domains = [...known, ...sameHash, 'unknown.example', '', 'ä.de', known[0]!.toUpperCase()];
  expect(sameHash.length).toBeGreaterThan(100);
  const rows = store.rowsOf(domains);
  expect(Array.from(rows)).toEqual(domains.map((domain) => store.rowOf(domain) ?? -1));
  expect(Array.from(rows.subarray(0, known.length)).every((row, i) => store.domain(row) === known[i])).toBe(true);
  expect(Array.from(rows.subarray(known.length)).every((row) => row === -1)).toBe(true);
});
