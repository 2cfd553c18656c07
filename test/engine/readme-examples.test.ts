/**
 * The examples README.md and docs/spreadsheets.md give, run on the embedded sample: plain words through
 * the built-in parser and the task pane's form (as the pane runs them), formulas through the formula
 * grammar. Each returns what the example says it finds.
 */
import type { SearchRequestInput } from '../../src/contract/index.js';
import { createDefaultEngine } from '../../src/engine/index.js';
import { searchCall, statsCall } from '../../src/sheet/formula-grammar.js';
import { chipsOf, EMPTY_FORM, formOfQuery, requestOf } from '../../src/ui/search-form.js';

const engine = createDefaultEngine();
const COLUMNS = ['name', 'nace_code', 'municipality', 'state', 'organization_size', 'company_register_date', 'summary', 'summary_keywords'] as const;

function topHits(body: SearchRequestInput) {
  const { data, metadata } = engine.search({ ...body, size: 10, columns: [...COLUMNS] });
  return { rows: data, total: metadata.total_hits };
}

/** A sentence as the task pane understands it: the parser's answer as a form, and the search the form runs. */
function plainWords(sentence: string) {
  const { form, ignored } = formOfQuery(engine.nlpSearch({ user_query: sentence, search_id: 'readme' }).payload, EMPTY_FORM);
  const { keywords, filters, describe } = requestOf(form);
  return { chips: chipsOf(form).map((chip) => `${chip.label}: ${chip.value}`), ignored, body: { keywords, filters, ...(describe ? { describe } : {}) } };
}

test('"bakeries in Munich without gluten, founded after 2015" finds bakeries in München registered since 2016', () => {
  const { chips, ignored, body } = plainWords('bakeries in Munich without gluten, founded after 2015');
  expect(ignored).toEqual([]);
  expect(chips).toEqual(['Any word: bakeries', 'Not: gluten', 'Municipality: München', 'Registered from: 2016-01-01']);
  const { rows } = topHits(body);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect([row.name, row.nace_code, row.municipality]).toEqual([row.name, '10.71', 'München']);
    expect(String(row.company_register_date) >= '2016-01-01').toBe(true);
    expect(`${String(row.summary)} ${String(row.summary_keywords)}`).not.toMatch(/gluten/i);
  }
});

test.each(['Bäckereien', 'backereien', 'Baeckerei'])('the keyword %s finds bakeries ("Bäckerei")', (word) => {
  const { rows } = topHits({ keywords: { must_any: [word] } });
  expect(rows).toHaveLength(10);
  for (const row of rows) {
    expect(row.nace_code).toBe('10.71');
    expect(row.summary_keywords).toContain('bäckerei');
  }
});

test('=ORG.SEARCH("software +cloud -hardware", "state=Bayern; organization_size=small, medium-sized", …) lists software and cloud firms in Bayern', () => {
  const { body } = searchCall([['software +cloud -hardware']], 'state=Bayern; organization_size=small, medium-sized', 'domain, name, nace_code', 'size=50');
  const { rows } = topHits(body);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect(row.state).toBe('Bayern');
    expect(['Small (10-49)', 'Medium-sized (50-249)']).toContain(row.organization_size);
    // Publishing, programming, IT services and hosting: the divisions that write software.
    expect(String(row.nace_code)).toMatch(/^(58\.2|6[23]\.)/);
  }
});

test('solar "heat pump" +battery -coal finds the trades that install them', () => {
  const { rows } = topHits(searchCall([['solar "heat pump" +battery -coal']], null, null, null).body);
  expect(rows).toHaveLength(10);
  for (const row of rows) expect(['35.12', '43.21', '43.22']).toContain(row.nace_code);
});

test.each([
  ['the breaker keeps tripping', '43.21'],
  ['Wasserhahn tropft', '43.22'],
])('a need in plain words, "%s", finds its trade (%s)', (need, code) => {
  const { rows } = topHits({ describe: need });
  expect(rows.map((row) => row.nace_code)).toEqual(Array(10).fill(code));
});

test('"Softwarefirmen" is split as a compound: software firms in Bayern', () => {
  const { chips, body } = plainWords('Softwarefirmen in Bayern');
  expect(chips).toEqual(['Any word: software', 'State: Bayern']);
  const { rows } = topHits(body);
  expect(rows).toHaveLength(10);
  for (const row of rows) expect(String(row.nace_code)).toMatch(/^(58\.2|6[23]\.)/);
});

test('head counts become the size classes the range overlaps', () => {
  expect(plainWords('bakeries with more than 50 employees').body.filters).toEqual({ organization_size: ['Medium-sized (50-249)', 'Large enterprise (250+)'] });
  expect(plainWords('Bäckereien mit über 250 Mitarbeitern').body.filters).toEqual({ organization_size: ['Large enterprise (250+)'] });
});

test('=ORG.STATS("state", "organization_size", "country=Deutschland") counts every German state by size', () => {
  const { data } = engine.stats(statsCall('state', 'organization_size', 'country=Deutschland', null).body);
  expect(new Set(data.map((cell) => cell.state)).size).toBe(16);
  expect(new Set(data.map((cell) => cell.organization_size)).size).toBe(4);
});

test.each([
  ['Munich', 'München'],
  ['Bavaria', 'Bayern'],
  ['DE-BY', 'Bayern'],
])('places take exonyms and codes: %s is %s', (query, name) => {
  expect(engine.locationSearch({ q: query }).items[0]?.name).toBe(name);
});
