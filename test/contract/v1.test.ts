/** Legacy v1 interface (spec v1-legacy.md): search, sublocations, fetch-market, download, close_pit. */
import {
  DOWNLOAD_FORMATS,
  DetailMessageSchema,
  V1ClosePitRequestSchema,
  V1ClosePitResponseSchema,
  V1DownloadRequestSchema,
  V1DownloadResponseSchema,
  V1FetchMarketRequestSchema,
  V1FetchMarketResponseSchema,
  V1SearchRequestSchema,
  V1SearchResponseSchema,
  V1SublocationsRequestSchema,
  V1SublocationsResponseSchema,
  V1_DEFAULT_INDEX,
  V1_LIMITS,
  V1_PARENT_LEVELS,
} from '../../src/contract/index.js';
import { COLUMNS_EXPECTED, UUID, invalid, valid } from './helpers.js';

const V1_COLUMNS_EXPECTED = COLUMNS_EXPECTED.replace(
  " or 'created_at'",
  ", 'created_at', 'description', 'main_contact_mail' or 'main_contact_number'",
);
const search = { search_id: UUID };

describe('POST /v1/search', () => {
  it('fills the defaults (index wildcard, size 25, columns domain/name/country)', () => {
    expect(V1_DEFAULT_INDEX).toBe('organizations-*');
    expect(V1_LIMITS).toEqual({ searchSizeDefault: 25, searchSizeMax: 500, downloadSizeDefault: 10, downloadSizeMax: 10 });
    expect(valid(V1SearchRequestSchema, search)).toEqual({
      search_id: UUID,
      domains: [],
      excludes: [],
      custom_filters: null,
      index: 'organizations-*',
      size: 25,
      columns: ['domain', 'name', 'country'],
      pit_id: null,
      search_after: null,
      semantic_input: null,
    });
  });

  describe('search_id (UUID, required)', () => {
    it('missing → missing', () => {
      expect(invalid(V1SearchRequestSchema, { size: 5 })).toEqual([{ loc: ['body', 'search_id'], msg: 'Field required', type: 'missing', input: { size: 5 } }]);
    });

    it('not a UUID → uuid_parsing', () => {
      const error = 'expected 32 hexadecimal digits, optionally hyphenated, in braces or after urn:uuid:';
      expect(invalid(V1SearchRequestSchema, { search_id: 'search-1' })).toEqual([
        { loc: ['body', 'search_id'], msg: `Input should be a valid UUID, ${error}`, type: 'uuid_parsing', input: 'search-1', ctx: { error } },
      ]);
    });

    it.each([
      ['12345678-1234-1234-1234-123456789ABC'],
      ['12345678123412341234123456789abc'],
      ['{12345678-1234-1234-1234-123456789abc}'],
      ['urn:uuid:12345678-1234-1234-1234-123456789abc'],
    ])('any UUID form Python accepts (%s) normalises to lower-case hyphenated', (raw) => {
      expect(valid(V1SearchRequestSchema, { search_id: raw }).search_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    });
  });

  describe('domains / excludes', () => {
    it('are normalised', () => {
      const parsed = valid(V1SearchRequestSchema, { ...search, domains: ['https://www.SAP.com/de'], excludes: ['info@oracle.com'] });
      expect([parsed.domains, parsed.excludes]).toEqual([['sap.com'], ['oracle.com']]);
    });

    it('an invalid domain → domain_parsing at its index', () => {
      const reason = '"sap" has no top-level domain; expected a domain such as example.com';
      expect(invalid(V1SearchRequestSchema, { ...search, excludes: ['a.com', 'sap'] })).toEqual([
        { loc: ['body', 'excludes', 1], msg: reason, type: 'domain_parsing', input: 'sap', ctx: { reason } },
      ]);
    });
  });

  describe('keywords (must_one, must_all, must_not)', () => {
    it('missing lists default to []; terms trimmed', () => {
      expect(valid(V1SearchRequestSchema, { ...search, keywords: { must_one: [' erp ', 'crm'] } }).keywords).toEqual({
        must_one: ['erp', 'crm'],
        must_all: [],
        must_not: [],
      });
      expect(valid(V1SearchRequestSchema, { ...search, keywords: { must_all: ['a'], must_not: ['b'] } }).keywords).toEqual({
        must_one: [],
        must_all: ['a'],
        must_not: ['b'],
      });
    });

    it("v2's must_any is an unknown key here, naming v1's must_one", () => {
      expect(invalid(V1SearchRequestSchema, { ...search, keywords: { must_any: ['x'] } })).toEqual([
        { loc: ['body', 'keywords', 'must_any'], msg: 'Extra inputs are not permitted; did you mean "must_one"?', type: 'extra_forbidden', input: ['x'], ctx: { did_you_mean: 'must_one' } },
      ]);
    });

    it('a blank term → string_too_short', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, keywords: { must_not: [''] } })).toEqual([
        { loc: ['body', 'keywords', 'must_not', 0], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
      ]);
    });
  });

  describe('locations (country, state, region, district, municipality)', () => {
    it('each level is a list, missing ones default to []', () => {
      expect(valid(V1SearchRequestSchema, { ...search, locations: { country: ['Deutschland'], municipality: ['München'] } }).locations).toEqual({
        country: ['Deutschland'],
        state: [],
        region: [],
        district: [],
        municipality: ['München'],
      });
      const all = { country: ['a'], state: ['b'], region: ['c'], district: ['d'], municipality: ['e'] };
      expect(valid(V1SearchRequestSchema, { ...search, locations: all }).locations).toEqual(all);
    });

    it('an unknown level → extra_forbidden', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, locations: { city: ['Berlin'] } })).toEqual([
        { loc: ['body', 'locations', 'city'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: ['Berlin'] },
      ]);
    });

    it('a bare string → list_type', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, locations: { state: 'Bayern' } })).toEqual([
        { loc: ['body', 'locations', 'state'], msg: 'Input should be a valid list', type: 'list_type', input: 'Bayern' },
      ]);
    });
  });

  describe('custom_filters (object or null; the v2 filters object)', () => {
    it('is normalised like v2 filters; null → null', () => {
      expect(valid(V1SearchRequestSchema, { ...search, custom_filters: { organization_size: ['small'], nace_code: ['6201'] } }).custom_filters).toEqual({
        organization_size: ['Small (10-49)'],
        nace_code: ['62.01'],
      });
      expect(valid(V1SearchRequestSchema, { ...search, custom_filters: null }).custom_filters).toBeNull();
    });

    it('an invalid filter value → its v2 item under custom_filters', () => {
      const expected = "'Company', 'Startup', 'Public', 'Academic' or 'Other'";
      expect(invalid(V1SearchRequestSchema, { ...search, custom_filters: { organization_type: ['Firm'] } })).toEqual([
        {
          loc: ['body', 'custom_filters', 'organization_type', 0],
          msg: `Input should be ${expected}`,
          type: 'literal_error',
          input: 'Firm',
          ctx: { expected },
        },
      ]);
    });
  });

  describe('index (default wildcard)', () => {
    it('a given index is kept', () => {
      expect(valid(V1SearchRequestSchema, { ...search, index: 'organizations-de' }).index).toBe('organizations-de');
    });

    it('an empty index → string_too_short', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, index: '' })).toEqual([
        { loc: ['body', 'index'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
      ]);
    });
  });

  describe('size (default 25; 1..500, our bound)', () => {
    it.each([1, 25, 500])('%i is accepted', (size) => {
      expect(valid(V1SearchRequestSchema, { ...search, size }).size).toBe(size);
    });

    it('0 → greater_than_equal; 501 → less_than_equal', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, size: 0 })).toEqual([
        { loc: ['body', 'size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
      ]);
      expect(invalid(V1SearchRequestSchema, { ...search, size: 501 })).toEqual([
        { loc: ['body', 'size'], msg: 'Input should be less than or equal to 500', type: 'less_than_equal', input: 501, ctx: { le: 500 } },
      ]);
    });
  });

  describe('columns (v2 selectable columns plus description, main_contact_mail, main_contact_number)', () => {
    it.each(['description', 'main_contact_mail', 'main_contact_number', 'employee_class', 'revenue_class', 'lat', 'lon', 'country'])(
      'spec column %s is accepted, domain first',
      (column) => {
        expect(valid(V1SearchRequestSchema, { ...search, columns: [column] }).columns).toEqual(column === 'domain' ? ['domain'] : ['domain', column]);
      },
    );

    it('an unknown column → literal_error at its index', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, columns: ['domain', 'phone'] })).toEqual([
        { loc: ['body', 'columns', 1], msg: `Input should be ${V1_COLUMNS_EXPECTED}`, type: 'literal_error', input: 'phone', ctx: { expected: V1_COLUMNS_EXPECTED } },
      ]);
    });
  });

  describe('pit_id, search_after, semantic_input', () => {
    it('accepts values and nulls', () => {
      const parsed = valid(V1SearchRequestSchema, { ...search, pit_id: 'pit-1', search_after: [12, 'x'], semantic_input: '  ERP for breweries ' });
      expect([parsed.pit_id, parsed.search_after, parsed.semantic_input]).toEqual(['pit-1', [12, 'x'], 'ERP for breweries']);
      const nulls = valid(V1SearchRequestSchema, { ...search, pit_id: null, search_after: null, semantic_input: null });
      expect([nulls.pit_id, nulls.search_after, nulls.semantic_input]).toEqual([null, null, null]);
    });

    it('a blank semantic_input → null', () => {
      expect(valid(V1SearchRequestSchema, { ...search, semantic_input: '   ' }).semantic_input).toBeNull();
    });

    it('a numeric pit_id → string_type', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, pit_id: 5 })).toEqual([
        { loc: ['body', 'pit_id'], msg: 'Input should be a valid string', type: 'string_type', input: 5 },
      ]);
    });

    it('a non-array search_after → list_type', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, search_after: 12 })).toEqual([
        { loc: ['body', 'search_after'], msg: 'Input should be a valid list', type: 'list_type', input: 12 },
      ]);
    });

    it('a non-string semantic_input → string_type', () => {
      expect(invalid(V1SearchRequestSchema, { ...search, semantic_input: ['x'] })).toEqual([
        { loc: ['body', 'semantic_input'], msg: 'Input should be a valid string', type: 'string_type', input: ['x'] },
      ]);
    });
  });

  it('an unknown key → extra_forbidden', () => {
    expect(invalid(V1SearchRequestSchema, { ...search, describe: 'x' })).toEqual([
      { loc: ['body', 'describe'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'x' },
    ]);
  });

  describe('response', () => {
    const body = {
      data: [{ domain: 'a.com', description: 'x' }],
      metadata: {
        search_id: UUID,
        index: 'organizations-*',
        size: 25,
        columns: ['domain', 'description'],
        query: { bool: {} },
        total_hits: 1,
        total_fetched: 1,
        query_type: 'keyword',
        pit_id: 'pit-1',
        search_after: [1],
      },
    };

    it('parses a valid body', () => {
      expect(valid(V1SearchResponseSchema, body)).toEqual(body);
    });

    it('rejects metadata without total_hits', () => {
      const { total_hits: _omit, ...metadata } = body.metadata;
      expect(invalid(V1SearchResponseSchema, { ...body, metadata })).toEqual([
        { loc: ['body', 'metadata', 'total_hits'], msg: 'Field required', type: 'missing', input: metadata },
      ]);
    });
  });
});

describe('POST /v1/sublocations', () => {
  it('the parent levels are those of the spec', () => {
    expect(V1_PARENT_LEVELS).toEqual(['all', 'country', 'state', 'region', 'district', 'municipality']);
  });

  it.each(V1_PARENT_LEVELS)('parent_level %s is accepted; index defaults', (parent_level) => {
    expect(valid(V1SublocationsRequestSchema, { parent_level, parent_value: 'Deutschland' })).toEqual({
      parent_level,
      parent_value: 'Deutschland',
      index: 'organizations-*',
    });
  });

  it('an unknown parent_level → literal_error', () => {
    const expected = "'all', 'country', 'state', 'region', 'district' or 'municipality'";
    expect(invalid(V1SublocationsRequestSchema, { parent_level: 'continent', parent_value: 'Europa' })).toEqual([
      { loc: ['body', 'parent_level'], msg: `Input should be ${expected}`, type: 'literal_error', input: 'continent', ctx: { expected } },
    ]);
  });

  it('parent_level and parent_value are required', () => {
    expect(invalid(V1SublocationsRequestSchema, {})).toEqual([
      { loc: ['body', 'parent_level'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'parent_value'], msg: 'Field required', type: 'missing', input: {} },
    ]);
  });

  it('response: locations, level, total_count', () => {
    const body = { locations: ['Bayern', 'Berlin'], level: 'state', total_count: 2 };
    expect(valid(V1SublocationsResponseSchema, body)).toEqual(body);
    expect(invalid(V1SublocationsResponseSchema, { ...body, total_count: -2 })).toEqual([
      { loc: ['body', 'total_count'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -2, ctx: { ge: 0 } },
    ]);
  });
});

describe('POST /v1/fetch-market', () => {
  it('domains required and normalised; index and columns default', () => {
    expect(valid(V1FetchMarketRequestSchema, { domains: ['WWW.A.com'] })).toEqual({
      index: 'organizations-*',
      columns: ['domain', 'name', 'country'],
      domains: ['a.com'],
    });
  });

  it('accepts v1 columns', () => {
    expect(valid(V1FetchMarketRequestSchema, { domains: ['a.com'], columns: ['main_contact_number'] }).columns).toEqual(['domain', 'main_contact_number']);
  });

  it('missing domains → missing', () => {
    expect(invalid(V1FetchMarketRequestSchema, { index: 'x' })).toEqual([{ loc: ['body', 'domains'], msg: 'Field required', type: 'missing', input: { index: 'x' } }]);
  });

  it('an empty list → too_short', () => {
    expect(invalid(V1FetchMarketRequestSchema, { domains: [] })).toEqual([
      {
        loc: ['body', 'domains'],
        msg: 'List should have at least 1 item after validation, not 0',
        type: 'too_short',
        input: [],
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ]);
  });

  it('response: data and metadata', () => {
    const body = {
      data: [{ domain: 'a.com' }],
      metadata: {
        total_fetched: 1,
        index: 'organizations-*',
        columns: ['domain'],
        domains_requested: 2,
        domains_found: 1,
        missing_domains: ['b.com'],
        timestamp: '2025-01-01T10:00:00Z',
      },
    };
    expect(valid(V1FetchMarketResponseSchema, body)).toEqual(body);
    expect(invalid(V1FetchMarketResponseSchema, { ...body, metadata: { ...body.metadata, missing_domains: null } })).toEqual([
      { loc: ['body', 'metadata', 'missing_domains'], msg: 'Input should be a valid list', type: 'list_type', input: null },
    ]);
  });
});

describe('POST /v1/download', () => {
  const searchInfo = { search_id: 's-1', query: { match: { description: 'erp' } } };
  const marketInfo = { market_id: 'm-1', market: ['https://a.com', 'B.com'] };

  it('defaults: size 10, format tsv, index wildcard; search_info kept', () => {
    expect(valid(V1DownloadRequestSchema, { search_info: searchInfo })).toEqual({
      index: 'organizations-*',
      size: 10,
      columns: ['domain', 'name', 'country'],
      search_info: searchInfo,
      download_format: 'tsv',
    });
  });

  it('market_info: market domains normalised; download_id kept', () => {
    expect(valid(V1DownloadRequestSchema, { download_id: 'd-1', market_info: marketInfo })).toEqual({
      download_id: 'd-1',
      index: 'organizations-*',
      size: 10,
      columns: ['domain', 'name', 'country'],
      market_info: { market_id: 'm-1', market: ['a.com', 'b.com'] },
      download_format: 'tsv',
    });
  });

  it('the formats are those of the spec', () => {
    expect(DOWNLOAD_FORMATS).toEqual(['tsv', 'xlsx', 'parquet']);
  });

  it.each(DOWNLOAD_FORMATS)('format %s is accepted', (download_format) => {
    expect(valid(V1DownloadRequestSchema, { search_info: searchInfo, download_format }).download_format).toBe(download_format);
  });

  it('an unknown format → literal_error', () => {
    expect(invalid(V1DownloadRequestSchema, { search_info: searchInfo, download_format: 'csv' })).toEqual([
      { loc: ['body', 'download_format'], msg: "Input should be 'tsv', 'xlsx' or 'parquet'", type: 'literal_error', input: 'csv', ctx: { expected: "'tsv', 'xlsx' or 'parquet'" } },
    ]);
  });

  it.each([1, 10])('size %i is accepted', (size) => {
    expect(valid(V1DownloadRequestSchema, { search_info: searchInfo, size }).size).toBe(size);
  });

  it('size 11 → less_than_equal (maximum 10)', () => {
    expect(invalid(V1DownloadRequestSchema, { search_info: searchInfo, size: 11 })).toEqual([
      { loc: ['body', 'size'], msg: 'Input should be less than or equal to 10', type: 'less_than_equal', input: 11, ctx: { le: 10 } },
    ]);
  });

  it('size 0 → greater_than_equal', () => {
    expect(invalid(V1DownloadRequestSchema, { search_info: searchInfo, size: 0 })).toEqual([
      { loc: ['body', 'size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
  });

  it('neither search_info nor market_info → value_error at ["body"]', () => {
    const error = 'exactly one of search_info and market_info must be given';
    expect(invalid(V1DownloadRequestSchema, { size: 5 })).toEqual([
      { loc: ['body'], msg: `Value error, ${error}`, type: 'value_error', input: { size: 5 }, ctx: { error } },
    ]);
  });

  it('both search_info and market_info → value_error at ["body"]', () => {
    const error = 'exactly one of search_info and market_info must be given';
    const body = { search_info: searchInfo, market_info: marketInfo };
    expect(invalid(V1DownloadRequestSchema, body)).toEqual([{ loc: ['body'], msg: `Value error, ${error}`, type: 'value_error', input: body, ctx: { error } }]);
  });

  it('search_info needs search_id and query', () => {
    expect(invalid(V1DownloadRequestSchema, { search_info: { search_id: 's-1' } })).toEqual([
      { loc: ['body', 'search_info', 'query'], msg: 'Field required', type: 'missing', input: { search_id: 's-1' } },
    ]);
  });

  it('market_info needs a non-empty market', () => {
    expect(invalid(V1DownloadRequestSchema, { market_info: { market_id: 'm', market: [] } })).toEqual([
      {
        loc: ['body', 'market_info', 'market'],
        msg: 'List should have at least 1 item after validation, not 0',
        type: 'too_short',
        input: [],
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ]);
  });

  it('response: download_url and metadata', () => {
    const body = {
      download_url: 'https://storage.example/x.tsv?sig=1',
      metadata: {
        download_id: 'd-1',
        user_id: null,
        file_path: 'downloads/d-1.tsv',
        total_hits: 10,
        total_fetched: 10,
        index: 'organizations-*',
        timestamp: '2025-01-01T10:00:00Z',
        download_format: 'tsv',
        query_type: 'market',
      },
    };
    expect(valid(V1DownloadResponseSchema, body)).toEqual(body);
    expect(invalid(V1DownloadResponseSchema, { ...body, metadata: { ...body.metadata, download_format: 'csv' } })).toEqual([
      {
        loc: ['body', 'metadata', 'download_format'],
        msg: "Input should be 'tsv', 'xlsx' or 'parquet'",
        type: 'literal_error',
        input: 'csv',
        ctx: { expected: "'tsv', 'xlsx' or 'parquet'" },
      },
    ]);
  });
});

describe('DELETE /v1/close_pit', () => {
  it('pit_id is required', () => {
    expect(valid(V1ClosePitRequestSchema, { pit_id: 'pit-1' }, 'query')).toEqual({ pit_id: 'pit-1' });
    expect(invalid(V1ClosePitRequestSchema, {}, 'query')).toEqual([{ loc: ['query', 'pit_id'], msg: 'Field required', type: 'missing', input: {} }]);
  });

  it('an empty pit_id → string_too_short', () => {
    expect(invalid(V1ClosePitRequestSchema, { pit_id: '' })).toEqual([
      { loc: ['body', 'pit_id'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
  });

  it('response: succeeded', () => {
    expect(valid(V1ClosePitResponseSchema, { succeeded: true })).toEqual({ succeeded: true });
    expect(invalid(V1ClosePitResponseSchema, { succeeded: 'yes' })).toEqual([
      { loc: ['body', 'succeeded'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'yes' },
    ]);
  });
});

describe('v1 error body {detail: string}', () => {
  it('parses a detail message; rejects a non-string detail', () => {
    expect(valid(DetailMessageSchema, { detail: 'Invalid API key' })).toEqual({ detail: 'Invalid API key' });
    expect(invalid(DetailMessageSchema, { detail: 5 })).toEqual([{ loc: ['body', 'detail'], msg: 'Input should be a valid string', type: 'string_type', input: 5 }]);
  });
});
