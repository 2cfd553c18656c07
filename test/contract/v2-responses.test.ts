/** v2 response bodies: search (data + metadata table), organization rows, health, filter options. */
import {
  FilterOptionsResponseSchema,
  HealthResponseSchema,
  OrganizationRowSchema,
  SearchMetadataSchema,
  SearchResponseSchema,
} from '../../src/contract/index.js';
import { invalid, valid } from './helpers.js';

const MODES_EXPECTED = "'filter', 'fulltext', 'semantic', 'vector_similarity' or 'hybrid'";

const metadata = {
  total_hits: 1234,
  returned: 2,
  mode: 'hybrid',
  elapsed_ms: 37,
  search_after: [0.82, 'b.com'],
  filters_applied: { country: ['Deutschland'] },
  explain_plan: null,
};
const body = {
  data: [
    { domain: 'a.com', name: 'A GmbH', country: 'Deutschland' },
    { domain: 'b.com', name: null, country: 'Deutschland', lat: null, lon: 11.5, summary_keywords: ['erp'], new_register_entry: true },
  ],
  metadata,
};

describe('SearchResponseSchema', () => {
  it('parses a valid body', () => {
    expect(valid(SearchResponseSchema, body)).toEqual(body);
  });

  it.each(['filter', 'fulltext', 'semantic', 'vector_similarity', 'hybrid'])('mode %s is accepted', (mode) => {
    expect(valid(SearchMetadataSchema, { ...metadata, mode }).mode).toBe(mode);
  });

  it('accepts the nullable metadata fields as null (no cheap total, last page, no filters, no plan)', () => {
    const last = { ...metadata, total_hits: null, search_after: null, filters_applied: null, explain_plan: null };
    expect(valid(SearchMetadataSchema, last)).toEqual(last);
    expect(valid(SearchMetadataSchema, { ...metadata, explain_plan: ['Limit', '  -> Index Scan'] }).explain_plan).toEqual(['Limit', '  -> Index Scan']);
  });

  it('keeps unknown row columns of a newer server', () => {
    const row = { domain: 'a.com', rating: 5 };
    expect(valid(OrganizationRowSchema, row)).toEqual(row);
  });

  it('rejects an unknown mode', () => {
    expect(invalid(SearchResponseSchema, { ...body, metadata: { ...metadata, mode: 'magic' } })).toEqual([
      { loc: ['body', 'metadata', 'mode'], msg: `Input should be ${MODES_EXPECTED}`, type: 'literal_error', input: 'magic', ctx: { expected: MODES_EXPECTED } },
    ]);
  });

  it('rejects a row without domain', () => {
    expect(invalid(SearchResponseSchema, { ...body, data: [{ name: 'A' }] })).toEqual([
      { loc: ['body', 'data', 0, 'domain'], msg: 'Field required', type: 'missing', input: { name: 'A' } },
    ]);
  });

  it('rejects a typed column of the wrong type', () => {
    expect(invalid(SearchResponseSchema, { ...body, data: [{ domain: 'a.com', lat: '48.1' }] })).toEqual([
      { loc: ['body', 'data', 0, 'lat'], msg: 'Input should be a valid number', type: 'float_type', input: '48.1' },
    ]);
  });

  it('rejects a negative returned count and a fractional total_hits', () => {
    expect(invalid(SearchResponseSchema, { ...body, metadata: { ...metadata, returned: -1, total_hits: 1.5 } })).toEqual([
      { loc: ['body', 'metadata', 'total_hits'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: 1.5 },
      { loc: ['body', 'metadata', 'returned'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -1, ctx: { ge: 0 } },
    ]);
  });

  it('rejects metadata without search_after', () => {
    const { search_after: _omit, ...rest } = metadata;
    expect(invalid(SearchResponseSchema, { ...body, metadata: rest })).toEqual([
      { loc: ['body', 'metadata', 'search_after'], msg: 'Field required', type: 'missing', input: rest },
    ]);
  });
});

describe('HealthResponseSchema', () => {
  it('healthy true; healthy false with an error message', () => {
    expect(valid(HealthResponseSchema, { healthy: true })).toEqual({ healthy: true });
    expect(valid(HealthResponseSchema, { healthy: false, error: 'database unreachable' })).toEqual({ healthy: false, error: 'database unreachable' });
  });

  it('rejects a non-boolean healthy', () => {
    expect(invalid(HealthResponseSchema, { healthy: 'ok' })).toEqual([
      { loc: ['body', 'healthy'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'ok' },
    ]);
  });

  it('rejects a body without healthy', () => {
    expect(invalid(HealthResponseSchema, { error: 'x' })).toEqual([{ loc: ['body', 'healthy'], msg: 'Field required', type: 'missing', input: { error: 'x' } }]);
  });

  it('rejects a non-string error', () => {
    expect(invalid(HealthResponseSchema, { healthy: false, error: { code: 1 } })).toEqual([
      { loc: ['body', 'error'], msg: 'Input should be a valid string', type: 'string_type', input: { code: 1 } },
    ]);
  });
});

describe('FilterOptionsResponseSchema', () => {
  const options = { options: { organization_type: [{ value: 'Company', count: 10 }], country: [] }, metadata: { elapsed_ms: 2 } };

  it('parses a valid body (metadata optional)', () => {
    expect(valid(FilterOptionsResponseSchema, options)).toEqual(options);
    expect(valid(FilterOptionsResponseSchema, { options: {} })).toEqual({ options: {} });
  });

  it('rejects an option without count', () => {
    expect(invalid(FilterOptionsResponseSchema, { options: { country: [{ value: 'Deutschland' }] } })).toEqual([
      { loc: ['body', 'options', 'country', 0, 'count'], msg: 'Field required', type: 'missing', input: { value: 'Deutschland' } },
    ]);
  });
});
