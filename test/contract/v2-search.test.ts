/**
 * v2 POST /search request (spec "POST /search" table, "Similar-to entry" table, rules 1 and 2, Limits).
 * Filters and keywords have their own file (v2-filters.test.ts); mode inference is in v2-modes.test.ts.
 */
import {
  DEFAULT_COLUMNS,
  SEARCH_LIMITS,
  SELECTABLE_COLUMNS,
  SIMILARITY_WEIGHTS,
  SearchRequestSchema,
} from '../../src/contract/index.js';
import { COLUMNS_EXPECTED, invalid, valid } from './helpers.js';

/** A body that passes rule 1 with no other input: an empty filters object. */
const base = { filters: {} };

const RULE_1 = 'At least one of filters, keywords, describe, similar_to must be supplied';
const RULE_2 = 'similar_to and describe cannot be combined';

const tooLong = (loc: (string | number)[], input: unknown[], max: number) => ({
  loc,
  msg: `List should have at most ${max} items after validation, not ${input.length}`,
  type: 'too_long',
  input,
  ctx: { field_type: 'List', max_length: max, actual_length: input.length },
});

describe('defaults of a minimal body', () => {
  it('fills every default from the spec table', () => {
    expect(valid(SearchRequestSchema, base)).toEqual({
      similar_to: null,
      describe: null,
      keywords: null,
      filters: {},
      excludes: [],
      columns: ['domain', 'name', 'country'],
      size: 100,
      min_score: 0.35,
      search_balance: 0.5,
      search_after: null,
      explain: false,
      dedup: false,
    });
  });

  it('the limits constants match the spec Limits table', () => {
    expect(SEARCH_LIMITS).toEqual({
      similarToEntries: 3,
      conceptTerms: 5,
      sizeMin: 1,
      sizeMax: 500,
      sizeDefault: 100,
      minScoreDefault: 0.35,
      searchBalanceDefault: 0.5,
      scoredDepthCap: 10_000,
    });
    expect(DEFAULT_COLUMNS).toEqual(['domain', 'name', 'country']);
  });
});

describe('body shape', () => {
  it('an unknown top-level key is extra_forbidden', () => {
    expect(invalid(SearchRequestSchema, { ...base, query: 'x' })).toEqual([
      { loc: ['body', 'query'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'x' },
    ]);
  });

  it('the mode is never sent: metadata.mode as a request key is extra_forbidden', () => {
    expect(invalid(SearchRequestSchema, { ...base, mode: 'hybrid' })).toEqual([
      { loc: ['body', 'mode'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'hybrid' },
    ]);
  });

  it('a body that is not an object is dict_type', () => {
    expect(invalid(SearchRequestSchema, 'filters')).toEqual([
      { loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: 'filters' },
    ]);
  });

  it('no body at all is missing', () => {
    expect(invalid(SearchRequestSchema, undefined)).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
  });
});

describe('similar_to', () => {
  it('accepts domain strings and normalises them to the object form with weight 1.0', () => {
    expect(valid(SearchRequestSchema, { similar_to: ['https://www.Example.com/about', 'b.de'] }).similar_to).toEqual([
      { domain: 'example.com', boost: [], penalize: [], repel_domains: [], weight: 1 },
      { domain: 'b.de', boost: [], penalize: [], repel_domains: [], weight: 1 },
    ]);
  });

  it('accepts objects: domain required, the rest defaulted; terms trimmed, repel domains normalised', () => {
    const body = {
      similar_to: [
        { domain: 'WWW.A.com', boost: [' cloud '], penalize: ['hardware'], repel_domains: ['https://c.com/x'], weight: 0.8 },
        { domain: 'b.com' },
      ],
    };
    expect(valid(SearchRequestSchema, body).similar_to).toEqual([
      { domain: 'a.com', boost: ['cloud'], penalize: ['hardware'], repel_domains: ['c.com'], weight: 0.8 },
      { domain: 'b.com', boost: [], penalize: [], repel_domains: [], weight: 1 },
    ]);
  });

  it('accepts strings and objects mixed', () => {
    expect(valid(SearchRequestSchema, { similar_to: ['a.com', { domain: 'b.com', weight: 'strong' }] }).similar_to).toEqual([
      { domain: 'a.com', boost: [], penalize: [], repel_domains: [], weight: 1 },
      { domain: 'b.com', boost: [], penalize: [], repel_domains: [], weight: 1.5 },
    ]);
  });

  it('accepts exactly 3 entries (the maximum)', () => {
    expect(valid(SearchRequestSchema, { similar_to: ['a.com', 'b.com', 'c.com'] }).similar_to).toHaveLength(3);
  });

  it('rejects 4 entries', () => {
    const list = ['a.com', 'b.com', 'c.com', 'd.com'];
    expect(invalid(SearchRequestSchema, { similar_to: list })).toEqual([tooLong(['body', 'similar_to'], list, 3)]);
  });

  it('null and an empty list mean "not supplied"', () => {
    expect(valid(SearchRequestSchema, { ...base, similar_to: null }).similar_to).toBeNull();
    expect(valid(SearchRequestSchema, { ...base, similar_to: [] }).similar_to).toBeNull();
  });

  it('a bare string instead of a list is list_type', () => {
    expect(invalid(SearchRequestSchema, { similar_to: 'a.com' })).toEqual([
      { loc: ['body', 'similar_to'], msg: 'Input should be a valid list', type: 'list_type', input: 'a.com' },
    ]);
  });

  it('an entry that is neither a string nor an object is union_type at its index', () => {
    expect(invalid(SearchRequestSchema, { similar_to: ['a.com', 42] })).toEqual([
      {
        loc: ['body', 'similar_to', 1],
        msg: 'Input should be a domain string or a similar-to object {domain, boost, penalize, repel_domains, weight}',
        type: 'union_type',
        input: 42,
      },
    ]);
  });

  it('an invalid domain string is domain_parsing at its index', () => {
    const reason = '"localhost" has no top-level domain; expected a domain such as example.com';
    expect(invalid(SearchRequestSchema, { similar_to: ['a.com', 'localhost'] })).toEqual([
      { loc: ['body', 'similar_to', 1], msg: reason, type: 'domain_parsing', input: 'localhost', ctx: { reason } },
    ]);
  });

  it('an object without domain is missing, with the object as input', () => {
    expect(invalid(SearchRequestSchema, { similar_to: [{ boost: ['x'] }] })).toEqual([
      { loc: ['body', 'similar_to', 0, 'domain'], msg: 'Field required', type: 'missing', input: { boost: ['x'] } },
    ]);
  });

  it('an invalid anchor domain in an object is domain_parsing', () => {
    const reason = '"1.2.3.4" is an IP address; an organization is identified by its domain name';
    expect(invalid(SearchRequestSchema, { similar_to: [{ domain: '1.2.3.4' }] })).toEqual([
      { loc: ['body', 'similar_to', 0, 'domain'], msg: reason, type: 'domain_parsing', input: '1.2.3.4', ctx: { reason } },
    ]);
  });

  it('an unknown key in an object is extra_forbidden, naming the close key (a branch of a union)', () => {
    expect(invalid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', boosts: ['x'] }] })).toEqual([
      { loc: ['body', 'similar_to', 0, 'boosts'], msg: 'Extra inputs are not permitted; did you mean "boost"?', type: 'extra_forbidden', input: ['x'], ctx: { did_you_mean: 'boost' } },
    ]);
  });

  describe.each(['boost', 'penalize'])('%s (concept terms, max 5)', (key) => {
    it('accepts 5 terms', () => {
      const terms = ['a', 'b', 'c', 'd', 'e'];
      expect(valid(SearchRequestSchema, { similar_to: [{ domain: 'x.com', [key]: terms }] }).similar_to![0]![key as 'boost']).toEqual(terms);
    });

    it('rejects 6 terms at ["body","similar_to",i,key]', () => {
      const terms = ['a', 'b', 'c', 'd', 'e', 'f'];
      expect(invalid(SearchRequestSchema, { similar_to: ['x.com', { domain: 'y.com', [key]: terms }] })).toEqual([
        tooLong(['body', 'similar_to', 1, key], terms, 5),
      ]);
    });

    it('rejects a blank term', () => {
      expect(invalid(SearchRequestSchema, { similar_to: [{ domain: 'y.com', [key]: ['ok', '  '] }] })).toEqual([
        {
          loc: ['body', 'similar_to', 0, key, 1],
          msg: 'String should have at least 1 character',
          type: 'string_too_short',
          input: '  ',
          ctx: { min_length: 1 },
        },
      ]);
    });
  });

  describe('repel_domains (max 5, never the anchor)', () => {
    it('accepts 5 domains, normalised', () => {
      const list = ['B.com', 'c.com', 'd.com', 'e.com', 'http://f.com/'];
      expect(valid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', repel_domains: list }] }).similar_to![0]!.repel_domains).toEqual([
        'b.com', 'c.com', 'd.com', 'e.com', 'f.com',
      ]);
    });

    it('rejects 6 domains', () => {
      const list = ['b.com', 'c.com', 'd.com', 'e.com', 'f.com', 'g.com'];
      expect(invalid(SearchRequestSchema, { similar_to: ['x.com', { domain: 'a.com', repel_domains: list }] })).toEqual([
        tooLong(['body', 'similar_to', 1, 'repel_domains'], list, 5),
      ]);
    });

    it('rejects an invalid domain at its index', () => {
      const reason = '"nope" has no top-level domain; expected a domain such as example.com';
      expect(invalid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', repel_domains: ['b.com', 'nope'] }] })).toEqual([
        { loc: ['body', 'similar_to', 0, 'repel_domains', 1], msg: reason, type: 'domain_parsing', input: 'nope', ctx: { reason } },
      ]);
    });

    it('rejects the anchor domain (compared after normalisation) at its index', () => {
      const error = 'repel_domains may not contain the anchor domain a.com';
      expect(invalid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', repel_domains: ['b.com', 'https://WWW.A.com/'] }] })).toEqual([
        {
          loc: ['body', 'similar_to', 0, 'repel_domains', 1],
          msg: `Value error, ${error}`,
          type: 'value_error',
          input: 'https://WWW.A.com/',
          ctx: { error },
        },
      ]);
    });

    it("accepts another entry's anchor", () => {
      expect(valid(SearchRequestSchema, { similar_to: ['b.com', { domain: 'a.com', repel_domains: ['b.com'] }] }).similar_to).toHaveLength(2);
    });
  });

  describe('weight (0.0 to 2.0, or weak / normal / strong; default 1.0)', () => {
    it.each([
      ['weak', 0.5],
      ['normal', 1.0],
      ['strong', 1.5],
      [0, 0],
      [0.25, 0.25],
      [2, 2],
    ])('%j → %d', (weight, expected) => {
      expect(valid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', weight }] }).similar_to![0]!.weight).toBe(expected);
    });

    it('the named weights are pinned', () => {
      expect(SIMILARITY_WEIGHTS).toEqual({ weak: 0.5, normal: 1.0, strong: 1.5 });
    });

    it('omitted → 1.0', () => {
      expect(valid(SearchRequestSchema, { similar_to: [{ domain: 'a.com' }] }).similar_to![0]!.weight).toBe(1);
    });

    it('above 2 → less_than_equal', () => {
      expect(invalid(SearchRequestSchema, { similar_to: ['x.com', { domain: 'a.com', weight: 2.01 }] })).toEqual([
        { loc: ['body', 'similar_to', 1, 'weight'], msg: 'Input should be less than or equal to 2', type: 'less_than_equal', input: 2.01, ctx: { le: 2 } },
      ]);
    });

    it('below 0 → greater_than_equal', () => {
      expect(invalid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', weight: -0.1 }] })).toEqual([
        {
          loc: ['body', 'similar_to', 0, 'weight'],
          msg: 'Input should be greater than or equal to 0',
          type: 'greater_than_equal',
          input: -0.1,
          ctx: { ge: 0 },
        },
      ]);
    });

    it.each(['heavy', 'Strong', null, true])('%j → weight_type', (weight) => {
      expect(invalid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', weight }] })).toEqual([
        {
          loc: ['body', 'similar_to', 0, 'weight'],
          msg: "Input should be a number from 0.0 to 2.0, or 'weak', 'normal' or 'strong'",
          type: 'weight_type',
          input: weight,
          ctx: { expected: "0.0 to 2.0, 'weak', 'normal' or 'strong'" },
        },
      ]);
    });
  });
});

describe('describe', () => {
  it('is trimmed', () => {
    expect(valid(SearchRequestSchema, { describe: '  software for dentists ' }).describe).toBe('software for dentists');
  });

  it('null and blank mean "not supplied"', () => {
    expect(valid(SearchRequestSchema, { ...base, describe: null }).describe).toBeNull();
    expect(valid(SearchRequestSchema, { ...base, describe: '   ' }).describe).toBeNull();
  });

  it('a non-string is string_type', () => {
    expect(invalid(SearchRequestSchema, { describe: 5 })).toEqual([
      { loc: ['body', 'describe'], msg: 'Input should be a valid string', type: 'string_type', input: 5 },
    ]);
  });
});

describe('rule 1: at least one of filters, keywords, describe, similar_to', () => {
  it.each([
    ['filters', { filters: {} }],
    ['keywords', { keywords: { must_any: ['x'] } }],
    ['describe', { describe: 'x' }],
    ['similar_to', { similar_to: ['a.com'] }],
  ])('%s alone is enough', (_name, body) => {
    expect(valid(SearchRequestSchema, body)).toBeTruthy();
  });

  it.each([
    ['an empty body', {}],
    ['only options', { size: 10, columns: ['name'], excludes: ['a.com'] }],
    ['every input null', { filters: null, keywords: null, describe: null, similar_to: null }],
    ['an empty similar_to and a blank describe', { similar_to: [], describe: ' ' }],
    ['a keywords object without terms', { keywords: { must_all: [], must_any: null } }],
  ])('%s → value_error at ["body"] with the whole body as input', (_name, body) => {
    expect(invalid(SearchRequestSchema, body)).toEqual([
      { loc: ['body'], msg: `Value error, ${RULE_1}`, type: 'value_error', input: body, ctx: { error: RULE_1, rule: 1 } },
    ]);
  });
});

describe('rule 2: similar_to and describe cannot be combined', () => {
  it('similar_to with keywords and filters is fine', () => {
    expect(valid(SearchRequestSchema, { similar_to: ['a.com'], keywords: { must_all: ['x'] }, filters: {} }).similar_to).toHaveLength(1);
  });

  it('similar_to with describe → value_error at ["body","describe"]', () => {
    expect(invalid(SearchRequestSchema, { similar_to: ['a.com'], describe: 'cloud software' })).toEqual([
      { loc: ['body', 'describe'], msg: `Value error, ${RULE_2}`, type: 'value_error', input: 'cloud software', ctx: { error: RULE_2, rule: 2 } },
    ]);
  });

  it('a blank describe does not count', () => {
    expect(valid(SearchRequestSchema, { similar_to: ['a.com'], describe: '  ' }).describe).toBeNull();
  });

  it('rules are checked on valid fields only: a field error is reported alone', () => {
    expect(invalid(SearchRequestSchema, { similar_to: ['a.com'], describe: 'x', size: 0 })).toEqual([
      { loc: ['body', 'size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
  });
});

describe('excludes', () => {
  it('defaults to []', () => {
    expect(valid(SearchRequestSchema, base).excludes).toEqual([]);
  });

  it('normalises and de-duplicates domains, in first-seen order', () => {
    expect(valid(SearchRequestSchema, { ...base, excludes: ['WWW.B.com', 'a.com', 'https://b.com/x', 'info@a.com'] }).excludes).toEqual(['b.com', 'a.com']);
  });

  it('rejects an invalid domain at its index', () => {
    const reason = '"1.2.3.4" is an IP address; an organization is identified by its domain name';
    expect(invalid(SearchRequestSchema, { ...base, excludes: ['ok.com', '1.2.3.4'] })).toEqual([
      { loc: ['body', 'excludes', 1], msg: reason, type: 'domain_parsing', input: '1.2.3.4', ctx: { reason } },
    ]);
  });

  it('rejects a non-list', () => {
    expect(invalid(SearchRequestSchema, { ...base, excludes: 'a.com' })).toEqual([
      { loc: ['body', 'excludes'], msg: 'Input should be a valid list', type: 'list_type', input: 'a.com' },
    ]);
  });
});

describe('columns', () => {
  it('default [domain, name, country]', () => {
    expect(valid(SearchRequestSchema, base).columns).toEqual(['domain', 'name', 'country']);
  });

  it('domain is always returned, first', () => {
    expect(valid(SearchRequestSchema, { ...base, columns: ['name', 'summary'] }).columns).toEqual(['domain', 'name', 'summary']);
    expect(valid(SearchRequestSchema, { ...base, columns: ['lat', 'domain', 'lon'] }).columns).toEqual(['domain', 'lat', 'lon']);
    expect(valid(SearchRequestSchema, { ...base, columns: [] }).columns).toEqual(['domain']);
  });

  it('repeated names collapse', () => {
    expect(valid(SearchRequestSchema, { ...base, columns: ['name', 'name', 'domain'] }).columns).toEqual(['domain', 'name']);
  });

  it.each(SELECTABLE_COLUMNS)('selectable column %s is accepted', (column) => {
    expect(valid(SearchRequestSchema, { ...base, columns: [column] }).columns).toContain(column);
  });

  it('the selectable columns are those of the spec table', () => {
    expect([...SELECTABLE_COLUMNS].sort()).toEqual(
      [
        'domain', 'name', 'summary', 'summary_keywords', 'address', 'organization_type', 'organization_size',
        'employee_class', 'revenue_class', 'nace_code', 'continent', 'country', 'country_code', 'state', 'state_code',
        'region', 'region_code', 'district', 'district_code', 'municipality', 'municipality_code', 'lat', 'lon',
        'new_register_entry', 'company_register_date', 'company_register_id', 'created_at',
      ].sort(),
    );
  });

  it.each(['embedding', 'has_embedding', 'text'])('never-returned / unknown column %s → literal_error at its index', (column) => {
    expect(invalid(SearchRequestSchema, { ...base, columns: ['name', column] })).toEqual([
      { loc: ['body', 'columns', 1], msg: `Input should be ${COLUMNS_EXPECTED}`, type: 'literal_error', input: column, ctx: { expected: COLUMNS_EXPECTED } },
    ]);
  });
});

describe('size (1 to 500, default 100)', () => {
  it.each([1, 250, 500])('%i is accepted', (size) => {
    expect(valid(SearchRequestSchema, { ...base, size }).size).toBe(size);
  });

  it('0 → greater_than_equal', () => {
    expect(invalid(SearchRequestSchema, { ...base, size: 0 })).toEqual([
      { loc: ['body', 'size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
  });

  it('501 → less_than_equal', () => {
    expect(invalid(SearchRequestSchema, { ...base, size: 501 })).toEqual([
      { loc: ['body', 'size'], msg: 'Input should be less than or equal to 500', type: 'less_than_equal', input: 501, ctx: { le: 500 } },
    ]);
  });

  it('10.5 → int_from_float', () => {
    expect(invalid(SearchRequestSchema, { ...base, size: 10.5 })).toEqual([
      {
        loc: ['body', 'size'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        type: 'int_from_float',
        input: 10.5,
      },
    ]);
  });

  it('1e20 → one less_than_equal naming the field bound, not also the safe-integer limit', () => {
    expect(invalid(SearchRequestSchema, { ...base, size: 1e20 })).toEqual([
      { loc: ['body', 'size'], msg: 'Input should be less than or equal to 500', type: 'less_than_equal', input: 1e20, ctx: { le: 500 } },
    ]);
  });

  it('a string → int_type', () => {
    expect(invalid(SearchRequestSchema, { ...base, size: '100' })).toEqual([
      { loc: ['body', 'size'], msg: 'Input should be a valid integer', type: 'int_type', input: '100' },
    ]);
  });
});

describe('min_score (0 to 1, default 0.35, null accepted)', () => {
  it('omitted → 0.35; null → 0.35', () => {
    expect(valid(SearchRequestSchema, base).min_score).toBe(0.35);
    expect(valid(SearchRequestSchema, { ...base, min_score: null }).min_score).toBe(0.35);
  });

  it.each([0, 0.5, 1])('%d is accepted', (min_score) => {
    expect(valid(SearchRequestSchema, { ...base, min_score }).min_score).toBe(min_score);
  });

  it('1.1 → less_than_equal', () => {
    expect(invalid(SearchRequestSchema, { ...base, min_score: 1.1 })).toEqual([
      { loc: ['body', 'min_score'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal', input: 1.1, ctx: { le: 1 } },
    ]);
  });

  it('-0.1 → greater_than_equal', () => {
    expect(invalid(SearchRequestSchema, { ...base, min_score: -0.1 })).toEqual([
      { loc: ['body', 'min_score'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -0.1, ctx: { ge: 0 } },
    ]);
  });

  it('a string → float_type', () => {
    expect(invalid(SearchRequestSchema, { ...base, min_score: 'high' })).toEqual([
      { loc: ['body', 'min_score'], msg: 'Input should be a valid number', type: 'float_type', input: 'high' },
    ]);
  });
});

describe('search_balance (0 to 1, default 0.5)', () => {
  it('omitted → 0.5', () => {
    expect(valid(SearchRequestSchema, base).search_balance).toBe(0.5);
  });

  it.each([0, 0.3, 1])('%d is accepted', (search_balance) => {
    expect(valid(SearchRequestSchema, { ...base, search_balance }).search_balance).toBe(search_balance);
  });

  it('1.5 → less_than_equal', () => {
    expect(invalid(SearchRequestSchema, { ...base, search_balance: 1.5 })).toEqual([
      { loc: ['body', 'search_balance'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal', input: 1.5, ctx: { le: 1 } },
    ]);
  });

  it('-1 → greater_than_equal', () => {
    expect(invalid(SearchRequestSchema, { ...base, search_balance: -1 })).toEqual([
      { loc: ['body', 'search_balance'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -1, ctx: { ge: 0 } },
    ]);
  });

  it('null → float_type (only min_score accepts null)', () => {
    expect(invalid(SearchRequestSchema, { ...base, search_balance: null })).toEqual([
      { loc: ['body', 'search_balance'], msg: 'Input should be a valid number', type: 'float_type', input: null },
    ]);
  });
});

describe('search_after (array or null)', () => {
  it('omitted or null → null (first page)', () => {
    expect(valid(SearchRequestSchema, base).search_after).toBeNull();
    expect(valid(SearchRequestSchema, { ...base, search_after: null }).search_after).toBeNull();
  });

  it('a cursor copied from a response passes unchanged', () => {
    const cursor = ['acme.com', 0.87, 100, true, null];
    expect(valid(SearchRequestSchema, { ...base, search_after: cursor }).search_after).toEqual(cursor);
  });

  it('a non-array → list_type', () => {
    expect(invalid(SearchRequestSchema, { ...base, search_after: 'acme.com' })).toEqual([
      { loc: ['body', 'search_after'], msg: 'Input should be a valid list', type: 'list_type', input: 'acme.com' },
    ]);
  });

  it('the cursor is opaque: any JSON values are passed back as they came', () => {
    expect(valid(SearchRequestSchema, { ...base, search_after: ['a', { offset: 1 }, [2]] }).search_after).toEqual(['a', { offset: 1 }, [2]]);
  });

  it('a cursor that is not a list → list_type', () => {
    expect(invalid(SearchRequestSchema, { ...base, search_after: 'abc' })).toEqual([
      { loc: ['body', 'search_after'], msg: 'Input should be a valid list', type: 'list_type', input: 'abc' },
    ]);
  });
});

describe.each(['explain', 'dedup'] as const)('%s (boolean, default false)', (key) => {
  it('omitted → false', () => {
    expect(valid(SearchRequestSchema, base)[key]).toBe(false);
  });

  it('true is accepted', () => {
    expect(valid(SearchRequestSchema, { ...base, [key]: true })[key]).toBe(true);
  });

  it('a string → bool_type', () => {
    expect(invalid(SearchRequestSchema, { ...base, [key]: 'true' })).toEqual([
      { loc: ['body', key], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'true' },
    ]);
  });
});

describe('several errors at once', () => {
  it('are all reported, in field order, unknown keys last', () => {
    expect(invalid(SearchRequestSchema, { similar_to: [{ domain: 'a.com', weight: 3 }], size: 0, explain: 1, extra: true })).toEqual([
      { loc: ['body', 'similar_to', 0, 'weight'], msg: 'Input should be less than or equal to 2', type: 'less_than_equal', input: 3, ctx: { le: 2 } },
      { loc: ['body', 'size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
      { loc: ['body', 'explain'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 1 },
      { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: true },
    ]);
  });
});
