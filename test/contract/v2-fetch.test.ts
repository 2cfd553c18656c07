/** v2 POST /fetch request (spec table: domains 1–5,000, columns) and response. */
import { FETCH_MAX_DOMAINS, FetchRequestSchema, FetchResponseSchema } from '../../src/contract/index.js';
import { COLUMNS_EXPECTED, invalid, valid } from './helpers.js';

const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.com`);

describe('domains (required, 1 to 5,000)', () => {
  it('the limit is 5,000', () => {
    expect(FETCH_MAX_DOMAINS).toBe(5_000);
  });

  it('accepts 1 domain', () => {
    expect(valid(FetchRequestSchema, { domains: ['a.com'] })).toEqual({ domains: ['a.com'], columns: ['domain', 'name', 'country'] });
  });

  it('accepts 5,000 domains', () => {
    expect(valid(FetchRequestSchema, { domains: domains(5_000) }).domains).toHaveLength(5_000);
  });

  it('rejects 0 domains (too_short)', () => {
    expect(invalid(FetchRequestSchema, { domains: [] })).toEqual([
      {
        loc: ['body', 'domains'],
        msg: 'List should have at least 1 item after validation, not 0',
        type: 'too_short',
        input: [],
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ]);
  });

  it('rejects 5,001 domains (too_long)', () => {
    const list = domains(5_001);
    expect(invalid(FetchRequestSchema, { domains: list })).toEqual([
      {
        loc: ['body', 'domains'],
        msg: 'List should have at most 5000 items after validation, not 5001',
        type: 'too_long',
        input: list,
        ctx: { field_type: 'List', max_length: 5_000, actual_length: 5_001 },
      },
    ]);
  });

  it('a missing domains field → missing', () => {
    expect(invalid(FetchRequestSchema, { columns: ['name'] })).toEqual([
      { loc: ['body', 'domains'], msg: 'Field required', type: 'missing', input: { columns: ['name'] } },
    ]);
  });

  it('a bare string → list_type', () => {
    expect(invalid(FetchRequestSchema, { domains: 'a.com' })).toEqual([
      { loc: ['body', 'domains'], msg: 'Input should be a valid list', type: 'list_type', input: 'a.com' },
    ]);
  });

  it('normalises URLs, e-mail addresses and case', () => {
    expect(valid(FetchRequestSchema, { domains: ['HTTPS://WWW.Example.com/x', 'mailto:info@firma.de', 'münchen.de'] }).domains).toEqual([
      'example.com',
      'firma.de',
      'xn--mnchen-3ya.de',
    ]);
  });

  it('an invalid domain → domain_parsing at its index', () => {
    const reason = '"not a domain" contains whitespace; expected a domain such as example.com';
    expect(invalid(FetchRequestSchema, { domains: ['a.com', 'not a domain'] })).toEqual([
      { loc: ['body', 'domains', 1], msg: reason, type: 'domain_parsing', input: 'not a domain', ctx: { reason } },
    ]);
  });
});

describe('columns (same rules as search)', () => {
  it('default [domain, name, country]', () => {
    expect(valid(FetchRequestSchema, { domains: ['a.com'] }).columns).toEqual(['domain', 'name', 'country']);
  });

  it('domain always first', () => {
    expect(valid(FetchRequestSchema, { domains: ['a.com'], columns: ['summary', 'nace_code'] }).columns).toEqual(['domain', 'summary', 'nace_code']);
  });

  it('an unknown column → literal_error at its index', () => {
    expect(invalid(FetchRequestSchema, { domains: ['a.com'], columns: ['name', 'revenue'] })).toEqual([
      { loc: ['body', 'columns', 1], msg: `Input should be ${COLUMNS_EXPECTED}`, type: 'literal_error', input: 'revenue', ctx: { expected: COLUMNS_EXPECTED } },
    ]);
  });

  it('the extension column company_register_court is accepted, while errors keep naming the interface columns only', () => {
    expect(valid(FetchRequestSchema, { domains: ['a.com'], columns: ['company_register_court'] }).columns).toEqual(['domain', 'company_register_court']);
    expect(COLUMNS_EXPECTED).not.toContain('company_register_court');
    expect(invalid(FetchRequestSchema, { domains: ['a.com'], columns: [7] })).toEqual([
      { loc: ['body', 'columns', 0], msg: `Input should be ${COLUMNS_EXPECTED}`, type: 'literal_error', input: 7, ctx: { expected: COLUMNS_EXPECTED } },
    ]);
  });
});

describe('body shape', () => {
  it('an unknown key → extra_forbidden', () => {
    expect(invalid(FetchRequestSchema, { domains: ['a.com'], size: 10 })).toEqual([
      { loc: ['body', 'size'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 10 },
    ]);
  });
});

describe('FetchResponseSchema', () => {
  const body = {
    data: [{ domain: 'a.com', name: 'A GmbH', country: 'Deutschland' }],
    metadata: { requested: 2, found: 1, missing: ['b.com'] },
  };

  it('parses a valid body', () => {
    expect(valid(FetchResponseSchema, body)).toEqual(body);
  });

  it('rejects a row without domain', () => {
    expect(invalid(FetchResponseSchema, { ...body, data: [{ name: 'A' }] })).toEqual([
      { loc: ['body', 'data', 0, 'domain'], msg: 'Field required', type: 'missing', input: { name: 'A' } },
    ]);
  });

  it('rejects a negative count', () => {
    expect(invalid(FetchResponseSchema, { ...body, metadata: { ...body.metadata, found: -1 } })).toEqual([
      { loc: ['body', 'metadata', 'found'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -1, ctx: { ge: 0 } },
    ]);
  });

  it('rejects missing as a non-list', () => {
    expect(invalid(FetchResponseSchema, { ...body, metadata: { ...body.metadata, missing: 'b.com' } })).toEqual([
      { loc: ['body', 'metadata', 'missing'], msg: 'Input should be a valid list', type: 'list_type', input: 'b.com' },
    ]);
  });
});
