/** The endpoint table (src/contract/endpoints.ts) against the endpoint lists of the three spec documents. */
import { ENDPOINTS, ValidationErrorBodySchema, validate } from '../../src/contract/index.js';

describe('ENDPOINTS', () => {
  it.each<[string, string, string, string, string[]]>([
    ['v2.search', 'v2', 'POST', '/search', ['apiKey']],
    ['v2.fetch', 'v2', 'POST', '/fetch', ['apiKey']],
    ['v2.stats', 'v2', 'POST', '/stats', ['apiKey']],
    ['v2.filterOptions', 'v2', 'GET', '/filters/options', ['apiKey']],
    ['v2.health', 'v2', 'GET', '/health', ['apiKey']],
    ['v2.locationSearch', 'v2', 'GET', '/locations/search', ['apiKey']],
    ['v1.search', 'v1', 'POST', '/v1/search', ['apiKey', 'bearer']],
    ['v1.sublocations', 'v1', 'POST', '/v1/sublocations', ['apiKey', 'bearer']],
    ['v1.fetchMarket', 'v1', 'POST', '/v1/fetch-market', ['apiKey', 'bearer']],
    ['v1.download', 'v1', 'POST', '/v1/download', ['apiKey', 'bearer']],
    ['v1.closePit', 'v1', 'DELETE', '/v1/close_pit', ['apiKey', 'bearer']],
    ['language.generateKeywords', 'language', 'POST', '/v1/generate-keywords', ['bearer']],
    ['language.qna', 'language', 'POST', '/v1/qna', ['bearer']],
    ['language.nlpSearch', 'language', 'POST', '/v1/nlp_search', ['bearer']],
  ])('%s is %s %s %s %s', (id, api, method, path, auth) => {
    const endpoint = ENDPOINTS[id as keyof typeof ENDPOINTS];
    expect({ api: endpoint.api, method: endpoint.method, path: endpoint.path, auth: [...endpoint.auth] }).toEqual({ api, method, path, auth });
  });

  it('every (api, method, path) is unique', () => {
    const keys = Object.values(ENDPOINTS).map((e) => `${e.api} ${e.method} ${e.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('body endpoints are POST; GET endpoints take no body', () => {
    for (const e of Object.values(ENDPOINTS)) {
      if (e.input === 'body') expect(e.method).toBe('POST');
      if (e.method === 'GET') expect(e.input).not.toBe('body');
    }
  });

  it('request schemas reject an unknown key (strict), response schemas keep it (loose)', () => {
    expect(ENDPOINTS['v2.search'].request.safeParse({ filters: {}, bogus: 1 }).success).toBe(false);
    expect(ENDPOINTS['v2.health'].response.parse({ healthy: true, version: '2' })).toEqual({ healthy: true, version: '2' });
  });
});

describe('validate() never throws on bad input, for every endpoint', () => {
  const nasty: unknown[] = [
    undefined,
    null,
    'x',
    42,
    [],
    {},
    { filters: { text_keywords: { must_not: ['x'] }, register_date_from: '2024-99-99', register_date_to: '2024-01-01' } },
    { keywords: { must_not: ['x'] }, similar_to: [{ domain: 'a.com', weight: 9, repel_domains: ['a.com'] }], describe: 'x' },
    { keywords: { must_all: ['  '] }, filters: { nace_code: ['04'] }, excludes: ['1.2.3.4'] },
    { group_by: 'country', group_by_secondary: 'country', filters: { text_keywords: { must_all: ['x'] } }, date_range: { from_date: '2024-99-99', to_date: '2024-01-01' } },
    { domains: ['localhost'], columns: ['bogus'], search_id: 'x', market_info: { market_id: '', market: [] } },
    { q: ' ', limit: 'abc', offset: '-1', location_id: '' },
  ];

  it.each(Object.keys(ENDPOINTS))('%s', (id) => {
    const schema = ENDPOINTS[id as keyof typeof ENDPOINTS].request;
    for (const body of nasty) {
      const result = validate(schema, body);
      if (!result.ok) expect(ValidationErrorBodySchema.safeParse(result.error).success).toBe(true);
    }
  });
});
