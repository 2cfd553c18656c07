/**
 * The plain-language box's mapping (src/ui/search-form.ts): what the engine's nlp_search makes of a
 * sentence becomes a search form, its parts become removable chips, and places go back to the place
 * picker. The sentences run through the real parser over a generated index.
 */
import { createEngine, generateDataset } from '../../src/engine/index.js';
import { chipsOf, EMPTY_FORM, formOfQuery, requestOf, splitPlaces, type SearchForm } from '../../src/ui/search-form.js';

const index = createEngine(generateDataset({ count: 3_000, seed: 11, asOf: '2026-11-01' }));
const understood = (sentence: string, base: SearchForm = EMPTY_FORM) => formOfQuery(index.nlpSearch({ user_query: sentence, search_id: 't' }).payload, base);

test('a sentence becomes words, a place and a register date; the base form keeps its columns and size', () => {
  const base: SearchForm = { ...EMPTY_FORM, columns: ['domain', 'name'], size: 40, mustAny: ['old'], filters: { state: ['Hessen'] } };
  const { form, ignored } = understood('bakeries in Munich without gluten, founded after 2015', base);
  expect(ignored).toEqual([]);
  expect(requestOf(form)).toEqual({
    columns: ['domain', 'name'],
    size: 40,
    min_score: EMPTY_FORM.minScore,
    search_balance: EMPTY_FORM.balance,
    dedup: false,
    keywords: { must_any: ['bakeries'], must_all: [], must_not: ['gluten'] },
    filters: { municipality: ['München'], register_date_from: '2016-01-01' },
  });
});

test('a description is used when it says more than the keywords (a service’s parser may write one)', () => {
  const payload = index.nlpSearch({ user_query: 'bakeries in Munich', search_id: 't' }).payload;
  // The built-in parser's description is the keywords again: no semantic pass that unknown words would fail.
  expect(payload.semantic_input).toBe('bakeries');
  expect(formOfQuery(payload, EMPTY_FORM).form.describe).toBe('');
  const richer = { ...payload, semantic_input: 'craft bakeries baking gluten-free bread' };
  expect(formOfQuery(richer, EMPTY_FORM).form.describe).toBe('craft bakeries baking gluten-free bread');
});

test('similar domains win over a description, excluded domains are left out, categories become filters', () => {
  const { form } = understood('startups similar to schulze-solar.de but not hartmann-solar.de in Bavaria');
  expect(form).toMatchObject({ similarTo: ['schulze-solar.de'], excludes: ['hartmann-solar.de'], describe: '', filters: { state: ['Bayern'], organization_type: ['Startup'] } });
  expect(requestOf(form).excludes).toEqual(['hartmann-solar.de']);
});

test('what the form cannot hold is named, not dropped silently', () => {
  const payload = index.nlpSearch({ user_query: 'solar', search_id: 't' }).payload;
  const { form, ignored } = formOfQuery({ ...payload, custom_filters: { ...payload.custom_filters, min_employees: 50 } }, EMPTY_FORM);
  expect(ignored).toEqual(['min_employees']);
  expect(form.mustAny).toEqual(['solar']);
});

test('every part is a chip; removing one removes that part only; places go back to the place picker', () => {
  const { form } = understood('bakeries in Munich without gluten, founded after 2015');
  const chips = chipsOf(form);
  expect(chips.map((chip) => `${chip.label}: ${chip.value}`)).toEqual(['Any word: bakeries', 'Not: gluten', 'Municipality: München', 'Registered from: 2016-01-01']);
  expect(chipsOf({ ...form, describe: 'craft bread', similarTo: [], excludes: ['a.com'] }).map((chip) => chip.label).slice(-2)).toEqual(['Described as', 'Leave out']);
  for (const chip of chips) {
    const rest = chipsOf(chip.without()).map((other) => other.id);
    expect(rest).toEqual(chips.filter((other) => other !== chip).map((other) => other.id));
  }
  expect(splitPlaces(form)).toEqual({ form: { ...form, filters: {} }, places: [{ level: 'municipality', name: 'München' }] });
});
