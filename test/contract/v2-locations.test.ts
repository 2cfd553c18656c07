/**
 * v2 location endpoints: query schemas (ours; values arrive as strings and are coerced), the spec's
 * "Location item" table and the list response (items + count).
 */
import {
  LOCATION_LIMITS,
  LOCATION_TYPES,
  LocationItemSchema,
  LocationListQuerySchema,
  LocationListResponseSchema,
  LocationPathParamsSchema,
  LocationSearchQuerySchema,
} from '../../src/contract/index.js';
import { invalid, valid } from './helpers.js';

const TYPES_EXPECTED = "'continent', 'country', 'state', 'region', 'district' or 'municipality'";

describe('LocationSearchQuerySchema (q, location_type, parent_id, limit)', () => {
  it('defaults: limit 10, no type, no parent', () => {
    expect(LOCATION_LIMITS).toEqual({ searchLimitDefault: 10, searchLimitMax: 100, listLimitDefault: 100, listLimitMax: 1_000 });
    expect(valid(LocationSearchQuerySchema, { q: 'Mün' }, 'query')).toEqual({ q: 'Mün', location_type: null, parent_id: null, limit: 10 });
  });

  it('trims q and parent_id; a blank parent_id is no parent', () => {
    expect(valid(LocationSearchQuerySchema, { q: '  Berlin ', parent_id: '  ' }, 'query')).toEqual({
      q: 'Berlin',
      location_type: null,
      parent_id: null,
      limit: 10,
    });
    expect(valid(LocationSearchQuerySchema, { q: 'x', parent_id: ' de-by ' }, 'query').parent_id).toBe('de-by');
  });

  it('coerces string numbers: limit "1" and "100" (bounds)', () => {
    expect(valid(LocationSearchQuerySchema, { q: 'x', limit: '1' }, 'query').limit).toBe(1);
    expect(valid(LocationSearchQuerySchema, { q: 'x', limit: '100' }, 'query').limit).toBe(100);
    expect(valid(LocationSearchQuerySchema, { q: 'x', limit: 25 }, 'query').limit).toBe(25);
  });

  it.each(LOCATION_TYPES)('location_type %s is accepted', (location_type) => {
    expect(valid(LocationSearchQuerySchema, { q: 'x', location_type }, 'query').location_type).toBe(location_type);
  });

  it('q missing → missing', () => {
    expect(invalid(LocationSearchQuerySchema, { limit: '5' }, 'query')).toEqual([
      { loc: ['query', 'q'], msg: 'Field required', type: 'missing', input: { limit: '5' } },
    ]);
  });

  it('q blank → string_too_short', () => {
    expect(invalid(LocationSearchQuerySchema, { q: '   ' }, 'query')).toEqual([
      { loc: ['query', 'q'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '   ', ctx: { min_length: 1 } },
    ]);
  });

  it('limit "0" → greater_than_equal; "101" → less_than_equal (input kept as sent)', () => {
    expect(invalid(LocationSearchQuerySchema, { q: 'x', limit: '0' }, 'query')).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: '0', ctx: { ge: 1 } },
    ]);
    expect(invalid(LocationSearchQuerySchema, { q: 'x', limit: '101' }, 'query')).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal', input: '101', ctx: { le: 100 } },
    ]);
  });

  it.each(['2.5', '', 'abc', '0x10', '1e2'])('limit %j → int_parsing', (limit) => {
    expect(invalid(LocationSearchQuerySchema, { q: 'x', limit }, 'query')).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing', input: limit },
    ]);
  });

  it('limit as a number (from code) is accepted too; a fraction → int_from_float', () => {
    expect(valid(LocationSearchQuerySchema, { q: 'x', limit: 7 }, 'query').limit).toBe(7);
    expect(invalid(LocationSearchQuerySchema, { q: 'x', limit: 7.5 }, 'query')).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: 7.5 },
    ]);
  });

  it('an unknown location_type → literal_error', () => {
    expect(invalid(LocationSearchQuerySchema, { q: 'x', location_type: 'city' }, 'query')).toEqual([
      { loc: ['query', 'location_type'], msg: `Input should be ${TYPES_EXPECTED}`, type: 'literal_error', input: 'city', ctx: { expected: TYPES_EXPECTED } },
    ]);
  });

  it('an unknown parameter is ignored, as FastAPI ignores it (a cache-buster must not fail the request)', () => {
    expect(valid(LocationSearchQuerySchema, { q: 'x', _: '1732190000' }, 'query')).toEqual({ q: 'x', location_type: null, parent_id: null, limit: 10 });
  });
});

describe('LocationListQuerySchema (parent_id, location_type, limit, offset)', () => {
  it('defaults: limit 100, offset 0', () => {
    expect(valid(LocationListQuerySchema, {}, 'query')).toEqual({ parent_id: null, location_type: null, limit: 100, offset: 0 });
  });

  it('coerces limit and offset; bounds 1..1000 and ≥ 0', () => {
    expect(valid(LocationListQuerySchema, { parent_id: 'de', location_type: 'state', limit: '1000', offset: '0' }, 'query')).toEqual({
      parent_id: 'de',
      location_type: 'state',
      limit: 1000,
      offset: 0,
    });
    expect(valid(LocationListQuerySchema, { limit: '1', offset: '250' }, 'query')).toEqual({ parent_id: null, location_type: null, limit: 1, offset: 250 });
  });

  it('limit "1001" → less_than_equal', () => {
    expect(invalid(LocationListQuerySchema, { limit: '1001' }, 'query')).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', type: 'less_than_equal', input: '1001', ctx: { le: 1000 } },
    ]);
  });

  it('limit "0" → greater_than_equal', () => {
    expect(invalid(LocationListQuerySchema, { limit: '0' }, 'query')).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: '0', ctx: { ge: 1 } },
    ]);
  });

  it('offset "-1" → greater_than_equal', () => {
    expect(invalid(LocationListQuerySchema, { offset: '-1' }, 'query')).toEqual([
      { loc: ['query', 'offset'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: '-1', ctx: { ge: 0 } },
    ]);
  });

  it('an unknown location_type → literal_error', () => {
    expect(invalid(LocationListQuerySchema, { location_type: 'planet' }, 'query')).toEqual([
      { loc: ['query', 'location_type'], msg: `Input should be ${TYPES_EXPECTED}`, type: 'literal_error', input: 'planet', ctx: { expected: TYPES_EXPECTED } },
    ]);
  });
});

describe('LocationPathParamsSchema', () => {
  it('accepts a location id', () => {
    expect(valid(LocationPathParamsSchema, { location_id: 'de-by' }, 'path')).toEqual({ location_id: 'de-by' });
  });

  it('rejects an empty id', () => {
    expect(invalid(LocationPathParamsSchema, { location_id: '' }, 'path')).toEqual([
      { loc: ['path', 'location_id'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
  });
});

describe('LocationItemSchema (spec "Location item" table)', () => {
  const item = { location_id: 'de-by', name: 'Bayern', location_type: 'state', parent_id: 'de', path: 'Europa/Deutschland/Bayern', doc_count: 812_345 };

  it('parses an item with every field of the table', () => {
    expect(valid(LocationItemSchema, item)).toEqual(item);
  });

  it('accepts a null parent_id (top of the hierarchy)', () => {
    expect(valid(LocationItemSchema, { ...item, parent_id: null }).parent_id).toBeNull();
  });

  it.each(['location_id', 'name', 'location_type', 'parent_id', 'path', 'doc_count'])('rejects an item without %s', (key) => {
    const partial = Object.fromEntries(Object.entries(item).filter(([k]) => k !== key));
    expect(invalid(LocationItemSchema, partial)).toEqual([{ loc: ['body', key], msg: 'Field required', type: 'missing', input: partial }]);
  });

  it('rejects a fractional or negative doc_count', () => {
    expect(invalid(LocationItemSchema, { ...item, doc_count: 1.5 })).toEqual([
      { loc: ['body', 'doc_count'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: 1.5 },
    ]);
    expect(invalid(LocationItemSchema, { ...item, doc_count: -1 })).toEqual([
      { loc: ['body', 'doc_count'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -1, ctx: { ge: 0 } },
    ]);
  });
});

describe('LocationListResponseSchema (items, count)', () => {
  const item = { location_id: 'de-by', name: 'Bayern', location_type: 'state', parent_id: 'de', path: 'Deutschland/Bayern', doc_count: 5 };

  it('parses a valid body, and an empty one', () => {
    expect(valid(LocationListResponseSchema, { items: [item], count: 1 })).toEqual({ items: [item], count: 1 });
    expect(valid(LocationListResponseSchema, { items: [], count: 0 })).toEqual({ items: [], count: 0 });
  });

  it('rejects a missing count', () => {
    expect(invalid(LocationListResponseSchema, { items: [] })).toEqual([{ loc: ['body', 'count'], msg: 'Field required', type: 'missing', input: { items: [] } }]);
  });

  it('rejects an item with a wrong field type', () => {
    expect(invalid(LocationListResponseSchema, { items: [{ ...item, name: 7 }], count: 1 })).toEqual([
      { loc: ['body', 'items', 0, 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 7 },
    ]);
  });
});
