/**
 * The limits on text and lists (src/contract/limits.ts): a request over a limit is refused with a 422 item
 * naming it; a request at every limit is accepted and answered.
 */
import {
  countWords,
  KeywordRequestSchema,
  LocationPathParamsSchema,
  LocationSearchQuerySchema,
  QnaRequestSchema,
  QueryRequestSchema,
  SearchRequestSchema,
  StatsRequestSchema,
  TEXT_LIMITS,
  V1ClosePitRequestSchema,
  V1SearchRequestSchema,
  V1SublocationsRequestSchema,
  type ValidationErrorItem,
} from '../../src/contract/index.js';
import { ValidationError } from '../../src/contract/errors.js';
import { createEngine } from '../../src/engine/index.js';
import { LegacyService } from '../../src/engine/v1/v1-service.js';
import { FIXTURE } from '../engine/fixtures.js';
import { UUID, invalid, valid } from './helpers.js';

const HUGE = 'solar panel '.repeat(75_000); // 900 KB: one phrase of 150,000 words
const tooLong = (max: number) => ({ type: 'string_too_long', msg: `String should have at most ${max} characters`, ctx: { max_length: max } });
const tooMany = (max: number, actual: number) => ({
  type: 'too_long',
  msg: `List should have at most ${max} items after validation, not ${actual}`,
  ctx: { field_type: 'List', max_length: max, actual_length: actual },
});
const tooManyWords = (max: number, actual: number) => ({
  type: 'string_too_many_words',
  msg: `String should have at most ${max} words, not ${actual}`,
  ctx: { max_words: max, actual_words: actual },
});
/** The items without their (possibly huge) input. */
const withoutInput = (items: ValidationErrorItem[]) => items.map(({ input: _input, ...rest }) => rest);

/** A phrase of exactly `words` words and `length` characters. */
function phrase(words: number, length: number): string {
  const letters = length - (words - 1);
  const each = Math.floor(letters / words);
  const parts = Array.from({ length: words }, (_, i) => 'x'.repeat(i === words - 1 ? letters - each * (words - 1) : each));
  const text = parts.join(' ');
  expect([text.length, countWords(text)]).toEqual([length, words]);
  return text;
}

describe('the limits', () => {
  test('are generous and sit beside the spec limits', () => {
    expect(TEXT_LIMITS).toMatchObject({ termLength: 200, termWords: 16, termsPerList: 100, describeLength: 4_000, userQueryLength: 1_000, locationQueryLength: 200 });
  });

  test('words are runs of letters, digits and marks', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  solar   panels ')).toBe(2);
    expect(countWords('e-commerce 86.21 O’Reilly')).toBe(6);
    expect(countWords('Mu\u0308nchen Łódź 北京 😀 a😀b')).toBe(5);
  });
});

describe('keyword terms', () => {
  test.each(['must_all', 'must_any', 'must_not'])('a 900 KB term in keywords.%s is refused for its length, once', (list) => {
    const keywords = list === 'must_not' ? { must_any: ['solar'], must_not: [HUGE] } : { [list]: [HUGE] };
    const items = invalid(SearchRequestSchema, { keywords });
    expect(withoutInput(items)).toEqual([{ ...tooLong(200), loc: ['body', 'keywords', list, 0] }]);
  });

  test('a term at the length and word limits is accepted; one more word is refused, naming the limit', () => {
    const atLimit = phrase(16, 200);
    expect(valid(SearchRequestSchema, { keywords: { must_all: [` ${atLimit} `] } }).keywords?.must_all).toEqual([atLimit]);
    expect(withoutInput(invalid(SearchRequestSchema, { keywords: { must_any: ['solar', phrase(17, 150)] } }))).toEqual([
      { ...tooManyWords(16, 17), loc: ['body', 'keywords', 'must_any', 1] },
    ]);
    // Punctuation separates words: a compound counts as its parts.
    expect(withoutInput(invalid(SearchRequestSchema, { keywords: { must_all: ['e-commerce '.repeat(9)] } }))).toEqual([
      { ...tooManyWords(16, 18), loc: ['body', 'keywords', 'must_all', 0] },
    ]);
  });

  test('at most 100 terms a list', () => {
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `term${i}`);
    expect(valid(SearchRequestSchema, { keywords: { must_any: terms(100), must_not: terms(100) } }).keywords?.must_any).toHaveLength(100);
    expect(withoutInput(invalid(SearchRequestSchema, { keywords: { must_any: terms(101) } }))).toEqual([{ ...tooMany(100, 101), loc: ['body', 'keywords', 'must_any'] }]);
  });

  test('filters.text_keywords has the same limits', () => {
    const items = invalid(SearchRequestSchema, { filters: { text_keywords: { must_all: ['ok', HUGE] } } });
    expect(withoutInput(items)).toEqual([{ ...tooLong(200), loc: ['body', 'filters', 'text_keywords', 'must_all', 1] }]);
  });

  test('similar_to boost and penalize terms too', () => {
    const items = invalid(SearchRequestSchema, { similar_to: [{ domain: 'a.de', boost: [phrase(17, 100)], penalize: ['x'.repeat(201)] }] });
    expect(withoutInput(items)).toEqual([
      { ...tooManyWords(16, 17), loc: ['body', 'similar_to', 0, 'boost', 0] },
      { ...tooLong(200), loc: ['body', 'similar_to', 0, 'penalize', 0] },
    ]);
  });

  test('the engine refuses the same term as a 422 naming the limit', () => {
    const index = createEngine(FIXTURE);
    let thrown: unknown = null;
    try {
      index.search({ keywords: { must_all: [HUGE] } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(withoutInput((thrown as ValidationError).detail)).toEqual([{ ...tooLong(200), loc: ['body', 'keywords', 'must_all', 0] }]);
    // At the limits, every term a phrase of the longest kind: answered.
    const terms = Array.from({ length: 100 }, () => phrase(16, 200));
    expect(index.search({ keywords: { must_any: ['software', ...terms.slice(1)], must_not: terms } }).metadata.mode).toBe('fulltext');
  });

  test('v1: keywords.must_one is refused by the legacy route with a message naming the limit', async () => {
    expect(withoutInput(invalid(V1SearchRequestSchema, { search_id: UUID, keywords: { must_one: [HUGE] } }))).toEqual([
      { ...tooLong(200), loc: ['body', 'keywords', 'must_one', 0] },
    ]);
    const legacy = new LegacyService({ now: () => 0, newId: () => 'pit' });
    const caller = { id: 'caller', index: createEngine(FIXTURE) };
    await expect(legacy.search({ search_id: UUID, keywords: { must_one: [phrase(20, 120)] } }, caller)).rejects.toThrow('keywords.must_one.0: String should have at most 16 words, not 20');
  });
});

describe('free text', () => {
  test('describe and v1 semantic_input: 4,000 characters after trimming', () => {
    const text = 'solar '.repeat(1_000).trim().slice(0, 4_000);
    expect(valid(SearchRequestSchema, { describe: `  ${text}  ` }).describe).toBe(text);
    expect(withoutInput(invalid(SearchRequestSchema, { describe: `${text}x` }))).toEqual([{ ...tooLong(4_000), loc: ['body', 'describe'] }]);
    expect(withoutInput(invalid(V1SearchRequestSchema, { search_id: UUID, semantic_input: HUGE }))).toEqual([{ ...tooLong(4_000), loc: ['body', 'semantic_input'] }]);
    expect(valid(SearchRequestSchema, { describe: '   ', filters: {} }).describe).toBeNull();
  });

  test('nlp_search: user_query of at most 1,000 characters and 250 words; search_id of at most 256', () => {
    expect(valid(QueryRequestSchema, { user_query: 'a '.repeat(250), search_id: 's' }).user_query).toBe('a '.repeat(250).trim());
    expect(withoutInput(invalid(QueryRequestSchema, { user_query: HUGE, search_id: 's' }))).toEqual([{ ...tooLong(1_000), loc: ['body', 'user_query'] }]);
    expect(withoutInput(invalid(QueryRequestSchema, { user_query: 'a '.repeat(251), search_id: 's' }))).toEqual([{ ...tooManyWords(250, 251), loc: ['body', 'user_query'] }]);
    expect(withoutInput(invalid(QueryRequestSchema, { user_query: 'bakeries', search_id: 'x'.repeat(257) }))).toEqual([{ ...tooLong(256), loc: ['body', 'search_id'] }]);
  });

  test('qna question and generate-keywords keywords', () => {
    expect(withoutInput(invalid(QnaRequestSchema, { question: 'x'.repeat(1_001), domain: 'a.de' }))).toEqual([{ ...tooLong(1_000), loc: ['body', 'question'] }]);
    expect(withoutInput(invalid(KeywordRequestSchema, { keywords: ['x'.repeat(101)] }))).toEqual([{ ...tooLong(100), loc: ['body', 'keywords', 0] }]);
    expect(withoutInput(invalid(KeywordRequestSchema, { keywords: Array.from({ length: 51 }, () => 'solar') }))).toEqual([{ ...tooMany(50, 51), loc: ['body', 'keywords'] }]);
  });

  test('locations: q of at most 200 characters, ids of at most 256', () => {
    expect(valid(LocationSearchQuerySchema, { q: ` ${'m'.repeat(200)} ` }, 'query').q).toHaveLength(200);
    expect(withoutInput(invalid(LocationSearchQuerySchema, { q: 'm'.repeat(201) }, 'query'))).toEqual([{ ...tooLong(200), loc: ['query', 'q'] }]);
    expect(withoutInput(invalid(LocationSearchQuerySchema, { q: 'm', parent_id: 'x'.repeat(257) }, 'query'))).toEqual([{ ...tooLong(256), loc: ['query', 'parent_id'] }]);
    expect(withoutInput(invalid(LocationPathParamsSchema, { location_id: 'x'.repeat(257) }, 'path'))).toEqual([{ ...tooLong(256), loc: ['path', 'location_id'] }]);
    expect(withoutInput(invalid(V1SublocationsRequestSchema, { parent_level: 'state', parent_value: 'x'.repeat(201) }))).toEqual([{ ...tooLong(200), loc: ['body', 'parent_value'] }]);
    expect(withoutInput(invalid(V1ClosePitRequestSchema, { pit_id: 'x'.repeat(257) }))).toEqual([{ ...tooLong(256), loc: ['body', 'pit_id'] }]);
  });
});

describe('lists', () => {
  test('filter lists: at most 5,000 values of at most 200 characters, in search, stats and v1 locations', () => {
    const many = Array.from({ length: 5_001 }, (_, i) => `Place ${i}`);
    expect(withoutInput(invalid(SearchRequestSchema, { filters: { municipality: many } }))).toEqual([{ ...tooMany(5_000, 5_001), loc: ['body', 'filters', 'municipality'] }]);
    expect(valid(SearchRequestSchema, { filters: { municipality: many.slice(1) } }).filters?.municipality).toHaveLength(5_000);
    expect(withoutInput(invalid(StatsRequestSchema, { filters: { company_register_court: ['x'.repeat(201)] } }))).toEqual([
      { ...tooLong(200), loc: ['body', 'filters', 'company_register_court', 0] },
    ]);
    for (const key of ['organization_type', 'organization_size', 'nace_code', 'source', 'summary_keywords', 'country']) {
      expect(withoutInput(invalid(SearchRequestSchema, { filters: { [key]: [HUGE] } }))).toEqual([{ ...tooLong(200), loc: ['body', 'filters', key, 0] }]);
    }
    expect(withoutInput(invalid(V1SearchRequestSchema, { search_id: UUID, locations: { state: many } }))).toEqual([{ ...tooMany(5_000, 5_001), loc: ['body', 'locations', 'state'] }]);
  });

  test('domains: at most 2,048 characters each; 5,000 excludes; 1,000 v1 reference domains', () => {
    const url = `https://example.com/${'p'.repeat(2_028)}`;
    expect(url).toHaveLength(2_048);
    expect(valid(SearchRequestSchema, { filters: {}, excludes: [url] }).excludes).toEqual(['example.com']);
    expect(withoutInput(invalid(SearchRequestSchema, { filters: {}, excludes: [`${url}p`] }))).toEqual([{ ...tooLong(2_048), loc: ['body', 'excludes', 0] }]);
    const excludes = Array.from({ length: 5_001 }, (_, i) => `d${i}.de`);
    expect(withoutInput(invalid(SearchRequestSchema, { filters: {}, excludes }))).toEqual([{ ...tooMany(5_000, 5_001), loc: ['body', 'excludes'] }]);
    expect(valid(SearchRequestSchema, { filters: {}, excludes: excludes.slice(1) }).excludes).toHaveLength(5_000);
    expect(withoutInput(invalid(V1SearchRequestSchema, { search_id: UUID, domains: excludes.slice(0, 1_001) }))).toEqual([{ ...tooMany(1_000, 1_001), loc: ['body', 'domains'] }]);
  });

  test('search_after: at most 16 values, nested at most 8 levels; deeper is a 422, not an overflow', () => {
    const nested = (depth: number): unknown => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    expect(valid(SearchRequestSchema, { filters: {}, search_after: [nested(8), 'a.de'] }).search_after).toEqual([nested(8), 'a.de']);
    expect(withoutInput(invalid(SearchRequestSchema, { filters: {}, search_after: Array.from({ length: 17 }, () => 0) }))).toEqual([
      { ...tooMany(16, 17), loc: ['body', 'search_after'] },
    ]);
    const message = 'search_after values may nest at most 8 levels: send metadata.search_after of the previous page unchanged';
    for (const depth of [9, 100_000]) {
      expect(withoutInput(invalid(SearchRequestSchema, { filters: {}, search_after: [nested(depth)] }))).toEqual([
        { type: 'value_error', loc: ['body', 'search_after', 0], msg: `Value error, ${message}`, ctx: { error: message, max_depth: 8 } },
      ]);
    }
  });
});
