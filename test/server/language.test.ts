/**
 * The language-processing routes end to end (bearer tokens only: 401 missing or invalid, 403 when the
 * token's groups are not allowed, 400 bad parameters) and the local keyword generation behind them.
 */
import { AuthError } from '../../src/index.js';
import { relatedKeywords } from '../../src/engine/language/related-keywords.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { hs256Token, KEYS, raw, startTestServer, testIndex, type TestServer } from './support.js';

const SECRET = 'language-test-secret-000000000001';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })!, languageGroups: ['analysts'] });
});
afterAll(async () => {
  await server.close();
});

const token = (groups: string[] = ['analysts']): Promise<string> => hs256Token(SECRET, { groups });

const generate = async (body: unknown, headers: Record<string, string>) =>
  raw(`${server.url}/v1/generate-keywords`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('POST /v1/generate-keywords', () => {
  test('related terms from the data: deduplicated, inputs left out, best first', async () => {
    const client = server.client(null, { accessToken: await token() });
    const result = await client.language.generateKeywords({ keywords: ['bakery', 'Bread'] });
    expect(result.original_keywords).toEqual(['bakery', 'Bread']);
    expect(result.alternative_keywords.length).toBeGreaterThan(5);
    expect(result.alternative_keywords).toEqual(expect.arrayContaining(['pastries']));
    const lower = result.alternative_keywords.map((k) => k.toLowerCase());
    expect(lower).not.toContain('bakery');
    expect(lower).not.toContain('bread');
    expect(lower).not.toContain('breads');
    expect(new Set(lower).size).toBe(lower.length);
    // Every suggestion is a tag the index holds, so it finds organizations.
    for (const keyword of result.alternative_keywords) expect(testIndex().search({ keywords: { must_all: [keyword] }, size: 1 }).metadata.total_hits).toBeGreaterThan(0);
  });

  test('deterministic, ordered by relatedness (the strongest co-occurring and nearest terms first)', () => {
    const store = testIndex().store;
    const solar = relatedKeywords(store, ['solar']);
    expect(relatedKeywords(store, ['solar'])).toEqual(solar);
    expect(solar.slice(0, 8).some((k) => /photovoltaic|solar/.test(k))).toBe(true);
    expect(relatedKeywords(store, ['xyzzy'])).toEqual([]);
    // Dental terms (orthodontics too), in English and in German: every dentist also carries "zahnarzt".
    expect(relatedKeywords(store, ['dentist']).slice(0, 5).every((k) => /dent|odont|zahnarzt/.test(k))).toBe(true);
  });

  test('401 without or with an invalid token, 403 for a group without access, 400 for bad parameters', async () => {
    const missing = await generate({ keywords: ['x'] }, {});
    expect([missing.status, missing.body]).toEqual([401, { detail: expect.stringMatching(/Not authenticated/) }]);
    const apiKeyOnly = await generate({ keywords: ['x'] }, { 'x-api-key': KEYS.tier2 });
    expect(apiKeyOnly.status).toBe(401);
    const invalid = await generate({ keywords: ['x'] }, { authorization: 'Bearer not.a.token' });
    expect([invalid.status, invalid.body]).toEqual([401, { detail: expect.stringMatching(/Invalid token/) }]);
    const denied = await generate({ keywords: ['x'] }, { authorization: `Bearer ${await token(['sales'])}` });
    expect([denied.status, denied.body]).toEqual([403, { detail: 'Access denied: the language routes are for members of analysts' }]);
    const tooMany = await generate({ keywords: Array.from({ length: 51 }, (_, i) => `word${i}`) }, { authorization: `Bearer ${await token()}` });
    expect([tooMany.status, tooMany.body]).toEqual([400, { detail: expect.stringMatching(/keywords: /) }]);
    const empty = await generate({ keywords: [] }, { authorization: `Bearer ${await token()}` });
    expect([empty.status, empty.body]).toEqual([400, { detail: expect.stringMatching(/keywords: /) }]);
    const error: unknown = await server.client(null, { accessToken: await token(['sales']) }).language.generateKeywords({ keywords: ['x'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).status).toBe(403);
  });
});

describe('POST /v1/nlp_search', () => {
  test('the payload of the legacy search, the four workflow steps and the metadata of the spec', async () => {
    const client = server.client(null, { accessToken: await token() });
    const response = await client.language.nlpSearch({ user_query: 'small bakeries in Munich without gluten', search_id: 'q-1' });
    expect(response.payload).toMatchObject({
      keywords: { must_one: ['bakeries'], must_all: [], must_not: ['gluten'] },
      custom_filters: { organization_size: ['Micro (0-9)', 'Small (10-49)'] },
      semantic_input: 'bakeries',
      not_understood: [],
    });
    expect(response.payload.locations.municipality).toEqual(['München']);
    expect(response.metadata).toMatchObject({
      search_id: 'q-1',
      user_query: 'small bakeries in Munich without gluten',
      workflow_steps: ['flag_detection', 'location_extraction', 'keyword_generation', 'semantic_input_generation'],
    });
    expect(new Date(response.metadata.timestamp).toISOString()).toBe(response.metadata.timestamp);
    expect(response.metadata.processing_time).toBeGreaterThanOrEqual(0);
    // The payload runs as a v1 search as it is.
    const search = await server.client(KEYS.tier2).v1.search({
      search_id: '7d0c1f0e-6a77-4b61-9d5e-0d2f3c1a4e11',
      keywords: response.payload.keywords,
      locations: response.payload.locations,
      custom_filters: response.payload.custom_filters,
    });
    expect(search.metadata.query_type).toBe('keyword');
  });

  test('401 without a token; 400 without user_query', async () => {
    const missing = await raw(`${server.url}/v1/nlp_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user_query":"x","search_id":"1"}' });
    expect(missing.status).toBe(401);
    const bad = await raw(`${server.url}/v1/nlp_search`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` }, body: '{"search_id":"1"}' });
    expect([bad.status, bad.body]).toEqual([400, { detail: expect.stringMatching(/user_query: /) }]);
  });
});
