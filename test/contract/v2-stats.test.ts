/** v2 POST /stats request (spec table, allowed group_by table, Limits) and response. */
import {
  DATE_RANGE_FIELDS,
  DATE_TRUNC_UNITS,
  STATS_GROUP_BY,
  STATS_LIMITS,
  StatsRequestSchema,
  StatsResponseSchema,
  isDateGrouping,
} from '../../src/contract/index.js';
import { invalid, valid } from './helpers.js';

/** The spec's "Allowed group_by and group_by_secondary values" table, family by family. */
const SPEC_GROUP_BY = {
  Geographic: ['continent', 'country', 'country_code', 'state', 'state_code', 'region', 'region_code', 'district', 'district_code', 'municipality', 'municipality_code'],
  Classification: ['nace_code', 'organization_type', 'organization_size', 'employee_class', 'revenue_class'],
  Source: ['source'],
  Array: ['summary_keywords'],
  Registrations: ['company_register_court', 'company_register_date'],
  Date: ['company_register_date', 'created_at'],
};
const ALL_GROUP_BY = [...new Set(Object.values(SPEC_GROUP_BY).flat())];
const GROUP_EXPECTED =
  "'continent', 'country', 'country_code', 'state', 'state_code', 'region', 'region_code', 'district', " +
  "'district_code', 'municipality', 'municipality_code', 'nace_code', 'organization_type', 'organization_size', " +
  "'employee_class', 'revenue_class', 'source', 'summary_keywords', 'company_register_court', " +
  "'company_register_date' or 'created_at'";

describe('defaults', () => {
  it('an empty body is a single total count with the spec defaults', () => {
    expect(valid(StatsRequestSchema, {})).toEqual({
      group_by: null,
      group_by_secondary: null,
      date_trunc: 'month',
      filters: null,
      date_range: null,
      limit: 100,
      explain: false,
    });
  });

  it('limits match the spec', () => {
    expect(STATS_LIMITS).toEqual({ limitMin: 1, limitMax: 500, limitDefault: 100 });
  });

  it('an unknown key → extra_forbidden', () => {
    expect(invalid(StatsRequestSchema, { group: 'country' })).toEqual([
      { loc: ['body', 'group'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'country' },
    ]);
  });
});

describe('group_by (allowed set)', () => {
  it('the allowed set is exactly the spec table', () => {
    expect([...STATS_GROUP_BY].sort()).toEqual([...ALL_GROUP_BY].sort());
  });

  describe.each(Object.entries(SPEC_GROUP_BY))('family %s', (_family, values) => {
    it.each(values)('group_by %s is accepted', (group_by) => {
      expect(valid(StatsRequestSchema, { group_by }).group_by).toBe(group_by);
    });
  });

  it('null → null', () => {
    expect(valid(StatsRequestSchema, { group_by: null }).group_by).toBeNull();
  });

  it.each(['name', 'domain', 'lat', 'updated_at'])('%s is not groupable → literal_error', (group_by) => {
    expect(invalid(StatsRequestSchema, { group_by })).toEqual([
      { loc: ['body', 'group_by'], msg: `Input should be ${GROUP_EXPECTED}`, type: 'literal_error', input: group_by, ctx: { expected: GROUP_EXPECTED } },
    ]);
  });
});

describe('group_by_secondary (allowed set, requires group_by, must differ)', () => {
  it.each(ALL_GROUP_BY.filter((g) => g !== 'country'))('%s as secondary of country is accepted', (secondary) => {
    const parsed = valid(StatsRequestSchema, { group_by: 'country', group_by_secondary: secondary });
    expect([parsed.group_by, parsed.group_by_secondary]).toEqual(['country', secondary]);
  });

  it('an unknown value → literal_error', () => {
    expect(invalid(StatsRequestSchema, { group_by: 'country', group_by_secondary: 'city' })).toEqual([
      { loc: ['body', 'group_by_secondary'], msg: `Input should be ${GROUP_EXPECTED}`, type: 'literal_error', input: 'city', ctx: { expected: GROUP_EXPECTED } },
    ]);
  });

  it('without group_by → value_error', () => {
    const error = 'group_by_secondary requires group_by';
    expect(invalid(StatsRequestSchema, { group_by_secondary: 'state' })).toEqual([
      { loc: ['body', 'group_by_secondary'], msg: `Value error, ${error}`, type: 'value_error', input: 'state', ctx: { error } },
    ]);
    expect(invalid(StatsRequestSchema, { group_by: null, group_by_secondary: 'state' })).toEqual([
      { loc: ['body', 'group_by_secondary'], msg: `Value error, ${error}`, type: 'value_error', input: 'state', ctx: { error } },
    ]);
  });

  it('equal to group_by → value_error', () => {
    const error = 'group_by_secondary must differ from group_by';
    expect(invalid(StatsRequestSchema, { group_by: 'state', group_by_secondary: 'state' })).toEqual([
      { loc: ['body', 'group_by_secondary'], msg: `Value error, ${error}`, type: 'value_error', input: 'state', ctx: { error } },
    ]);
  });
});

describe('date_trunc (year, month, week; default month)', () => {
  it('the units are those of the spec', () => {
    expect(DATE_TRUNC_UNITS).toEqual(['year', 'month', 'week']);
  });

  it.each(DATE_TRUNC_UNITS)('%s is accepted', (date_trunc) => {
    expect(valid(StatsRequestSchema, { group_by: 'created_at', date_trunc }).date_trunc).toBe(date_trunc);
  });

  it('omitted → month (also for a non-date grouping, where it is ignored)', () => {
    expect(valid(StatsRequestSchema, { group_by: 'created_at' }).date_trunc).toBe('month');
    expect(valid(StatsRequestSchema, { group_by: 'country' }).date_trunc).toBe('month');
  });

  it.each(['day', 'Month', null])('%j → literal_error', (date_trunc) => {
    expect(invalid(StatsRequestSchema, { date_trunc })).toEqual([
      { loc: ['body', 'date_trunc'], msg: "Input should be 'year', 'month' or 'week'", type: 'literal_error', input: date_trunc, ctx: { expected: "'year', 'month' or 'week'" } },
    ]);
  });

  it('isDateGrouping is true for the date columns only', () => {
    expect(isDateGrouping('company_register_date')).toBe(true);
    expect(isDateGrouping('created_at')).toBe(true);
    expect(isDateGrouping('country')).toBe(false);
    expect(isDateGrouping(null)).toBe(false);
  });
});

describe('filters (same as search, without text_keywords)', () => {
  it('accepts the search filter keys, normalised the same way', () => {
    expect(valid(StatsRequestSchema, { filters: { organization_size: ['micro'], nace_code: ['K'], country: ['Deutschland'] } }).filters).toEqual({
      organization_size: ['Micro (0-9)'],
      nace_code: ['NACE K: Telecommunication, computer programming, consulting, computing infrastructure and other information service activities'],
      country: ['Deutschland'],
    });
  });

  it('text_keywords null or without terms is accepted (nothing to evaluate)', () => {
    expect(valid(StatsRequestSchema, { filters: { text_keywords: null } }).filters).toEqual({});
    expect(valid(StatsRequestSchema, { filters: { text_keywords: {} } }).filters).toEqual({});
  });

  it('text_keywords with terms → value_error at filters.text_keywords', () => {
    const error = 'text_keywords is not supported in /stats (stats count by plain grouping, without text scoring)';
    expect(invalid(StatsRequestSchema, { filters: { text_keywords: { must_all: ['erp'] } } })).toEqual([
      { loc: ['body', 'filters', 'text_keywords'], msg: `Value error, ${error}`, type: 'value_error', input: { must_all: ['erp'] }, ctx: { error } },
    ]);
  });

  it('register_date_from after register_date_to → value_error', () => {
    const error = 'register_date_from must be on or before register_date_to';
    expect(invalid(StatsRequestSchema, { filters: { register_date_from: '2024-02-01', register_date_to: '2024-01-01' } })).toEqual([
      { loc: ['body', 'filters', 'register_date_to'], msg: `Value error, ${error}`, type: 'value_error', input: '2024-01-01', ctx: { error } },
    ]);
  });

  it('an unknown filter key → extra_forbidden', () => {
    expect(invalid(StatsRequestSchema, { filters: { keywords: ['x'] } })).toEqual([
      { loc: ['body', 'filters', 'keywords'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: ['x'] },
    ]);
  });
});

describe('date_range (field, from_date, to_date)', () => {
  it('the fields are those of the spec', () => {
    expect(DATE_RANGE_FIELDS).toEqual(['company_register_date', 'created_at', 'updated_at']);
  });

  it.each(DATE_RANGE_FIELDS)('field %s with both bounds is kept', (field) => {
    expect(valid(StatsRequestSchema, { date_range: { field, from_date: '2024-01-01', to_date: '2024-12-31' } }).date_range).toEqual({
      field,
      from_date: '2024-01-01',
      to_date: '2024-12-31',
    });
  });

  it('equal bounds are accepted; one bound alone is accepted', () => {
    expect(valid(StatsRequestSchema, { date_range: { from_date: '2024-01-01', to_date: '2024-01-01' } }).date_range).toEqual({
      field: 'company_register_date',
      from_date: '2024-01-01',
      to_date: '2024-01-01',
    });
    expect(valid(StatsRequestSchema, { date_range: { to_date: '2024-01-01' } }).date_range).toEqual({
      field: 'company_register_date',
      from_date: null,
      to_date: '2024-01-01',
    });
  });

  it('default field: the active date grouping column (primary or secondary), else company_register_date', () => {
    const range = { from_date: '2024-01-01' };
    expect(valid(StatsRequestSchema, { group_by: 'created_at', date_range: range }).date_range?.field).toBe('created_at');
    expect(valid(StatsRequestSchema, { group_by: 'country', group_by_secondary: 'created_at', date_range: range }).date_range?.field).toBe('created_at');
    expect(valid(StatsRequestSchema, { group_by: 'country', date_range: range }).date_range?.field).toBe('company_register_date');
    expect(valid(StatsRequestSchema, { date_range: range }).date_range?.field).toBe('company_register_date');
    expect(valid(StatsRequestSchema, { group_by: 'created_at', date_range: { ...range, field: 'updated_at' } }).date_range?.field).toBe('updated_at');
  });

  it('a range without bounds, or null, applies nothing', () => {
    expect(valid(StatsRequestSchema, { date_range: { field: 'created_at' } }).date_range).toBeNull();
    expect(valid(StatsRequestSchema, { date_range: null }).date_range).toBeNull();
  });

  it('combines with filters and a date grouping', () => {
    const parsed = valid(StatsRequestSchema, {
      group_by: 'company_register_date',
      date_trunc: 'year',
      filters: { country: ['Deutschland'] },
      date_range: { from_date: '2020-01-01', to_date: '2024-12-31' },
    });
    expect(parsed).toEqual({
      group_by: 'company_register_date',
      group_by_secondary: null,
      date_trunc: 'year',
      filters: { country: ['Deutschland'] },
      date_range: { field: 'company_register_date', from_date: '2020-01-01', to_date: '2024-12-31' },
      limit: 100,
      explain: false,
    });
  });

  it('an unknown field → literal_error', () => {
    const expected = "'company_register_date', 'created_at' or 'updated_at'";
    expect(invalid(StatsRequestSchema, { date_range: { field: 'register_date', from_date: '2024-01-01' } })).toEqual([
      { loc: ['body', 'date_range', 'field'], msg: `Input should be ${expected}`, type: 'literal_error', input: 'register_date', ctx: { expected } },
    ]);
  });

  it('an invalid date → date_parsing', () => {
    expect(invalid(StatsRequestSchema, { date_range: { to_date: '2024-04-31' } })).toEqual([
      { loc: ['body', 'date_range', 'to_date'], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing', input: '2024-04-31' },
    ]);
  });

  it('from_date after to_date → value_error at to_date', () => {
    const error = 'from_date must be on or before to_date';
    expect(invalid(StatsRequestSchema, { date_range: { from_date: '2024-06-01', to_date: '2024-05-31' } })).toEqual([
      { loc: ['body', 'date_range', 'to_date'], msg: `Value error, ${error}`, type: 'value_error', input: '2024-05-31', ctx: { error } },
    ]);
  });

  it('an unknown key → extra_forbidden', () => {
    expect(invalid(StatsRequestSchema, { date_range: { from: '2024-01-01' } })).toEqual([
      { loc: ['body', 'date_range', 'from'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: '2024-01-01' },
    ]);
  });
});

describe('limit (1 to 500, default 100)', () => {
  it.each([1, 100, 500])('%i is accepted', (limit) => {
    expect(valid(StatsRequestSchema, { limit }).limit).toBe(limit);
  });

  it('0 → greater_than_equal', () => {
    expect(invalid(StatsRequestSchema, { limit: 0 })).toEqual([
      { loc: ['body', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
  });

  it('501 → less_than_equal', () => {
    expect(invalid(StatsRequestSchema, { limit: 501 })).toEqual([
      { loc: ['body', 'limit'], msg: 'Input should be less than or equal to 500', type: 'less_than_equal', input: 501, ctx: { le: 500 } },
    ]);
  });

  it('2.5 → int_from_float', () => {
    expect(invalid(StatsRequestSchema, { limit: 2.5 })).toEqual([
      { loc: ['body', 'limit'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: 2.5 },
    ]);
  });
});

describe('explain (boolean, default false)', () => {
  it('true is accepted; omitted → false', () => {
    expect(valid(StatsRequestSchema, { explain: true }).explain).toBe(true);
    expect(valid(StatsRequestSchema, {}).explain).toBe(false);
  });

  it('a string → bool_type', () => {
    expect(invalid(StatsRequestSchema, { explain: 'yes' })).toEqual([
      { loc: ['body', 'explain'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'yes' },
    ]);
  });
});

describe('StatsResponseSchema', () => {
  const body = {
    data: [
      { country: 'Deutschland', organization_type: 'Company', count: 120 },
      { country: null, organization_type: 'Startup', count: 3 },
    ],
    elapsed_ms: 12,
    metadata: {
      group_by: 'country',
      group_by_secondary: 'organization_type',
      date_trunc: 'month',
      filters_applied: { nace_code: ['62.01'] },
      date_range_applied: null,
      total_buckets: 2,
      elapsed_ms: 12,
      explain_plan: null,
    },
  };

  it('parses a valid body, with null grouping values', () => {
    expect(valid(StatsResponseSchema, body)).toEqual(body);
  });

  it('parses a single-total body', () => {
    const total = {
      data: [{ count: 20_000_000 }],
      elapsed_ms: 3,
      metadata: { ...body.metadata, group_by: null, group_by_secondary: null, filters_applied: null, total_buckets: 1, explain_plan: ['Seq Scan'] },
    };
    expect(valid(StatsResponseSchema, total)).toEqual(total);
  });

  it('rejects a bucket without count', () => {
    expect(invalid(StatsResponseSchema, { ...body, data: [{ country: 'Deutschland' }] })).toEqual([
      { loc: ['body', 'data', 0, 'count'], msg: 'Field required', type: 'missing', input: { country: 'Deutschland' } },
    ]);
  });

  it('rejects a fractional count', () => {
    expect(invalid(StatsResponseSchema, { ...body, data: [{ count: 1.5 }] })).toEqual([
      { loc: ['body', 'data', 0, 'count'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: 1.5 },
    ]);
  });

  it('rejects metadata without total_buckets', () => {
    const { total_buckets: _omit, ...metadata } = body.metadata;
    expect(invalid(StatsResponseSchema, { ...body, metadata })).toEqual([
      { loc: ['body', 'metadata', 'total_buckets'], msg: 'Field required', type: 'missing', input: metadata },
    ]);
  });
});
