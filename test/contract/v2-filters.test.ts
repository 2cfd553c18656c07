/**
 * v2 filters object (spec "Filters object" table, one block per row) and keywords object (spec "Keywords
 * object" table, rule 3), checked through the search body so that every loc is the full path.
 */
import {
  FILTER_KEYS,
  FiltersSchema,
  KeywordsSchema,
  NACE_SECTIONS,
  ORGANIZATION_SIZES,
  ORGANIZATION_TYPES,
  SearchRequestSchema,
  hasKeywordTerms,
} from '../../src/contract/index.js';
import { invalid, valid } from './helpers.js';

const filtersOf = (filters: unknown) => valid(SearchRequestSchema, { filters }).filters;
const filterErrors = (filters: unknown) => invalid(SearchRequestSchema, { filters });

const RULE_3 = 'must_not is valid only together with must_all or must_any';
const SOURCE_MSG = "Input should be 'register', 'cache', 'request' or 'dataset_MM_YYYY' (for example 'dataset_03_2025')";
const SOURCE_PATTERN_TEXT = String.raw`^(register|cache|request|dataset_(0[1-9]|1[0-2])_\d{4})$`;
const TYPE_EXPECTED = "'Company', 'Startup', 'Public', 'Academic' or 'Other'";
const SIZE_EXPECTED = "'Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)' or 'Large enterprise (250+)'";

describe('filters object as a whole', () => {
  it('has exactly the keys of the spec table', () => {
    expect([...FILTER_KEYS].sort()).toEqual(
      [
        'country', 'state', 'region', 'district', 'municipality', 'organization_type', 'organization_size', 'nace_code',
        'source', 'company_register_court', 'register_date_from', 'register_date_to', 'summary_keywords', 'text_keywords',
      ].sort(),
    );
  });

  it('all keys are optional; null filters mean "not supplied"', () => {
    expect(filtersOf({})).toEqual({});
    expect(valid(SearchRequestSchema, { filters: null, describe: 'x' }).filters).toBeNull();
  });

  it('null values and empty lists are dropped; lists are de-duplicated in first-seen order', () => {
    expect(filtersOf({ country: ['Deutschland', 'Österreich', 'Deutschland'], state: null, region: [], source: ['cache'] })).toEqual({
      country: ['Deutschland', 'Österreich'],
      source: ['cache'],
    });
  });

  it('an unknown key is extra_forbidden', () => {
    expect(filterErrors({ city: ['Berlin'] })).toEqual([
      { loc: ['body', 'filters', 'city'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: ['Berlin'] },
    ]);
  });

  it('a non-object is dict_type', () => {
    expect(invalid(SearchRequestSchema, { filters: ['country'] })).toEqual([
      { loc: ['body', 'filters'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: ['country'] },
    ]);
  });

  it('FiltersSchema alone gives the same normalised object', () => {
    expect(valid(FiltersSchema, { organization_size: ['micro'], nace_code: ['6201'] })).toEqual({
      organization_size: ['Micro (0-9)'],
      nace_code: ['62.01'],
    });
  });
});

describe.each(['country', 'state', 'region', 'district', 'municipality', 'company_register_court', 'summary_keywords'])(
  '%s (array of string or null)',
  (key) => {
    it('accepts a list of strings, kept as given (exact native spelling)', () => {
      expect(filtersOf({ [key]: ['Bayern', 'Baden-Württemberg'] })).toEqual({ [key]: ['Bayern', 'Baden-Württemberg'] });
    });

    it('accepts null', () => {
      expect(filtersOf({ [key]: null })).toEqual({});
    });

    it('rejects a bare string (list_type)', () => {
      expect(filterErrors({ [key]: 'Bayern' })).toEqual([
        { loc: ['body', 'filters', key], msg: 'Input should be a valid list', type: 'list_type', input: 'Bayern' },
      ]);
    });

    it('rejects a non-string item at its index (string_type)', () => {
      expect(filterErrors({ [key]: ['Bayern', 7] })).toEqual([
        { loc: ['body', 'filters', key, 1], msg: 'Input should be a valid string', type: 'string_type', input: 7 },
      ]);
    });
  },
);

describe('organization_type (Company, Startup, Public, Academic, Other)', () => {
  it.each(ORGANIZATION_TYPES)('%s is accepted', (value) => {
    expect(filtersOf({ organization_type: [value] })).toEqual({ organization_type: [value] });
  });

  it('the allowed values are those of the spec', () => {
    expect(ORGANIZATION_TYPES).toEqual(['Company', 'Startup', 'Public', 'Academic', 'Other']);
  });

  it('matches case-insensitively, echoes the spec spelling, de-duplicates after canonicalisation', () => {
    expect(filtersOf({ organization_type: ['company', ' STARTUP ', 'Company', 'academic'] })).toEqual({
      organization_type: ['Company', 'Startup', 'Academic'],
    });
  });

  it('rejects an unknown value at its index (literal_error)', () => {
    expect(filterErrors({ organization_type: ['Company', 'Corporation'] })).toEqual([
      {
        loc: ['body', 'filters', 'organization_type', 1],
        msg: `Input should be ${TYPE_EXPECTED}`,
        type: 'literal_error',
        input: 'Corporation',
        ctx: { expected: TYPE_EXPECTED },
      },
    ]);
  });
});

describe('organization_size (the four size bands)', () => {
  it.each(ORGANIZATION_SIZES)('%s is accepted', (value) => {
    expect(filtersOf({ organization_size: [value] })).toEqual({ organization_size: [value] });
  });

  it('the allowed values are those of the spec', () => {
    expect(ORGANIZATION_SIZES).toEqual(['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)', 'Large enterprise (250+)']);
  });

  it.each([
    ['micro', 'Micro (0-9)'],
    ['MICRO (0-9)', 'Micro (0-9)'],
    ['small', 'Small (10-49)'],
    ['Medium-Sized', 'Medium-sized (50-249)'],
    ['large enterprise', 'Large enterprise (250+)'],
  ])('%j → %j', (raw, canonical) => {
    expect(filtersOf({ organization_size: [raw] })).toEqual({ organization_size: [canonical] });
  });

  it.each(['large', 'Micro (0-10)', 'tiny'])('rejects %j (literal_error)', (raw) => {
    expect(filterErrors({ organization_size: [raw] })).toEqual([
      {
        loc: ['body', 'filters', 'organization_size', 0],
        msg: `Input should be ${SIZE_EXPECTED}`,
        type: 'literal_error',
        input: raw,
        ctx: { expected: SIZE_EXPECTED },
      },
    ]);
  });
});

describe('nace_code (section value, section letter or detailed code)', () => {
  it('the section value, the bare letter and its lower case all normalise to the section value', () => {
    expect(filtersOf({ nace_code: [NACE_SECTIONS.K] })).toEqual({ nace_code: [NACE_SECTIONS.K] });
    expect(filtersOf({ nace_code: ['K'] })).toEqual({ nace_code: [NACE_SECTIONS.K] });
    expect(filtersOf({ nace_code: ['k', 'K', NACE_SECTIONS.K] })).toEqual({ nace_code: [NACE_SECTIONS.K] });
  });

  it("'6201' and '62.01' both normalise to '62.01'", () => {
    expect(filtersOf({ nace_code: ['6201'] })).toEqual({ nace_code: ['62.01'] });
    expect(filtersOf({ nace_code: ['62.01', '6201'] })).toEqual({ nace_code: ['62.01'] });
  });

  it('a detailed code keeps its precision next to its section', () => {
    expect(filtersOf({ nace_code: ['62', 'K', '62.01'] })).toEqual({ nace_code: ['62', NACE_SECTIONS.K, '62.01'] });
  });

  it('a division that does not exist → nace_code item with the reason', () => {
    const reason = '"04.10": NACE division 04 does not exist';
    expect(filterErrors({ nace_code: ['62.01', '04.10'] })).toEqual([
      { loc: ['body', 'filters', 'nace_code', 1], msg: reason, type: 'nace_code', input: '04.10', ctx: { reason } },
    ]);
  });

  it('a letter outside A–V → nace_code item', () => {
    const reason = '"Z" is not a NACE section; sections run from A to V';
    expect(filterErrors({ nace_code: ['Z'] })).toEqual([
      { loc: ['body', 'filters', 'nace_code', 0], msg: reason, type: 'nace_code', input: 'Z', ctx: { reason } },
    ]);
  });

  it('free text → nace_code item', () => {
    const reason = `"software" is not a NACE code; use a section value such as "${NACE_SECTIONS.K}", a section letter such as "K" or a detailed code such as "62.01"`;
    expect(filterErrors({ nace_code: ['software'] })).toEqual([
      { loc: ['body', 'filters', 'nace_code', 0], msg: reason, type: 'nace_code', input: 'software', ctx: { reason } },
    ]);
  });
});

describe('source (register, cache, request, dataset_MM_YYYY)', () => {
  it.each(['register', 'cache', 'request', 'dataset_01_2024', 'dataset_03_2025', 'dataset_12_1999'])('%s is accepted', (value) => {
    expect(filtersOf({ source: [value] })).toEqual({ source: [value] });
  });

  it.each(['dataset_13_2025', 'dataset_00_2025', 'dataset_3_2025', 'dataset_03_25', 'Register', 'web'])(
    'rejects %j (string_pattern_mismatch)',
    (value) => {
      expect(filterErrors({ source: ['cache', value] })).toEqual([
        {
          loc: ['body', 'filters', 'source', 1],
          msg: SOURCE_MSG,
          type: 'string_pattern_mismatch',
          input: value,
          ctx: { pattern: SOURCE_PATTERN_TEXT },
        },
      ]);
    },
  );
});

describe('register_date_from / register_date_to (YYYY-MM-DD or null, inclusive)', () => {
  it('accepts dates, a single bound, and equal bounds', () => {
    expect(filtersOf({ register_date_from: '2020-01-01' })).toEqual({ register_date_from: '2020-01-01' });
    expect(filtersOf({ register_date_to: '2024-02-29' })).toEqual({ register_date_to: '2024-02-29' });
    expect(filtersOf({ register_date_from: '2024-05-01', register_date_to: '2024-05-01' })).toEqual({
      register_date_from: '2024-05-01',
      register_date_to: '2024-05-01',
    });
  });

  it('accepts null', () => {
    expect(filtersOf({ register_date_from: null, register_date_to: null })).toEqual({});
  });

  it('combines with company_register_court', () => {
    expect(filtersOf({ company_register_court: ['Amtsgericht München'], register_date_from: '2023-01-01' })).toEqual({
      company_register_court: ['Amtsgericht München'],
      register_date_from: '2023-01-01',
    });
  });

  it.each([
    ['register_date_from', '2023-02-29'],
    ['register_date_from', '01.02.2024'],
    ['register_date_to', '2024-13-01'],
    ['register_date_to', '2024-01-01T00:00:00Z'],
  ])('%s %j → date_parsing', (key, value) => {
    expect(filterErrors({ [key]: value })).toEqual([
      { loc: ['body', 'filters', key], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing', input: value },
    ]);
  });

  it('a number → string_type', () => {
    expect(filterErrors({ register_date_from: 20240101 })).toEqual([
      { loc: ['body', 'filters', 'register_date_from'], msg: 'Input should be a valid string', type: 'string_type', input: 20240101 },
    ]);
  });

  it('from after to → value_error at register_date_to', () => {
    const error = 'register_date_from must be on or before register_date_to';
    expect(filterErrors({ register_date_from: '2024-03-01', register_date_to: '2024-02-29' })).toEqual([
      { loc: ['body', 'filters', 'register_date_to'], msg: `Value error, ${error}`, type: 'value_error', input: '2024-02-29', ctx: { error } },
    ]);
  });
});

describe('summary_keywords (exact containment list)', () => {
  it('keeps every value (ALL must be contained)', () => {
    expect(filtersOf({ summary_keywords: ['saas', 'b2b'] })).toEqual({ summary_keywords: ['saas', 'b2b'] });
  });
});

describe('keywords object (must_all, must_any, must_not)', () => {
  const kwOf = (keywords: unknown) => valid(SearchRequestSchema, { keywords }).keywords;

  it('must_all alone, must_any alone', () => {
    expect(kwOf({ must_all: ['cloud', 'erp'] })).toEqual({ must_all: ['cloud', 'erp'], must_any: [], must_not: [] });
    expect(kwOf({ must_any: ['cloud', 'erp'] })).toEqual({ must_all: [], must_any: ['cloud', 'erp'], must_not: [] });
  });

  it('terms are trimmed', () => {
    expect(kwOf({ must_all: ['  cloud '] })).toEqual({ must_all: ['cloud'], must_any: [], must_not: [] });
  });

  it('must_not together with must_all or must_any (rule 3 satisfied)', () => {
    expect(kwOf({ must_all: ['cloud'], must_not: ['gaming'] })).toEqual({ must_all: ['cloud'], must_any: [], must_not: ['gaming'] });
    expect(kwOf({ must_any: ['cloud'], must_not: ['gaming'] })).toEqual({ must_all: [], must_any: ['cloud'], must_not: ['gaming'] });
  });

  it('null lists count as empty', () => {
    expect(kwOf({ must_all: null, must_any: ['x'], must_not: null })).toEqual({ must_all: [], must_any: ['x'], must_not: [] });
  });

  it('an object without terms is treated as not supplied', () => {
    expect(valid(SearchRequestSchema, { keywords: {}, filters: {} }).keywords).toBeNull();
    expect(valid(KeywordsSchema, { must_all: [], must_any: [] })).toBeNull();
  });

  it('rule 3: must_not alone → value_error at keywords.must_not', () => {
    expect(invalid(SearchRequestSchema, { keywords: { must_not: ['gaming'] } })).toEqual([
      { loc: ['body', 'keywords', 'must_not'], msg: `Value error, ${RULE_3}`, type: 'value_error', input: ['gaming'], ctx: { error: RULE_3, rule: 3 } },
    ]);
  });

  it('rule 3: must_not with empty positive lists → value_error', () => {
    const keywords = { must_all: [], must_any: null, must_not: ['gaming'] };
    expect(invalid(SearchRequestSchema, { keywords, filters: {} })).toEqual([
      { loc: ['body', 'keywords', 'must_not'], msg: `Value error, ${RULE_3}`, type: 'value_error', input: ['gaming'], ctx: { error: RULE_3, rule: 3 } },
    ]);
  });

  it('a blank term → string_too_short at its index', () => {
    expect(invalid(SearchRequestSchema, { keywords: { must_all: ['cloud', '   '] } })).toEqual([
      {
        loc: ['body', 'keywords', 'must_all', 1],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
        input: '   ',
        ctx: { min_length: 1 },
      },
    ]);
  });

  it("v1's must_one is an unknown key here (extra_forbidden), naming v2's must_any", () => {
    expect(invalid(SearchRequestSchema, { keywords: { must_one: ['x'] } })).toEqual([
      { loc: ['body', 'keywords', 'must_one'], msg: 'Extra inputs are not permitted; did you mean "must_any"?', type: 'extra_forbidden', input: ['x'], ctx: { did_you_mean: 'must_any' } },
    ]);
  });

  it('a bare string list is dict_type', () => {
    expect(invalid(SearchRequestSchema, { keywords: ['cloud'] })).toEqual([
      { loc: ['body', 'keywords'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: ['cloud'] },
    ]);
  });

  it('hasKeywordTerms counts positive terms only', () => {
    expect(hasKeywordTerms(null)).toBe(false);
    expect(hasKeywordTerms(undefined)).toBe(false);
    expect(hasKeywordTerms({ must_all: [], must_any: [], must_not: ['x'] })).toBe(false);
    expect(hasKeywordTerms({ must_all: ['x'], must_any: [], must_not: [] })).toBe(true);
    expect(hasKeywordTerms({ must_all: [], must_any: ['x'], must_not: [] })).toBe(true);
  });
});

describe('text_keywords (same shape and logic as keywords)', () => {
  it('is normalised like keywords', () => {
    expect(filtersOf({ text_keywords: { must_any: [' erp '], must_not: ['games'] } })).toEqual({
      text_keywords: { must_all: [], must_any: ['erp'], must_not: ['games'] },
    });
  });

  it('null or an object without terms is dropped', () => {
    expect(filtersOf({ text_keywords: null })).toEqual({});
    expect(filtersOf({ text_keywords: {} })).toEqual({});
  });

  it('rule 3 inside text_keywords → value_error at filters.text_keywords.must_not', () => {
    expect(filterErrors({ text_keywords: { must_not: ['games'] } })).toEqual([
      {
        loc: ['body', 'filters', 'text_keywords', 'must_not'],
        msg: `Value error, ${RULE_3}`,
        type: 'value_error',
        input: ['games'],
        ctx: { error: RULE_3, rule: 3 },
      },
    ]);
  });

  it('an unknown key → extra_forbidden', () => {
    expect(filterErrors({ text_keywords: { should: ['x'] } })).toEqual([
      { loc: ['body', 'filters', 'text_keywords', 'should'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: ['x'] },
    ]);
  });
});
