/**
 * The v2 server end to end: the real Fastify server on a random loopback port, called through the
 * foundation's remote client (and raw fetch where the client would refuse to send a bad request).
 */
import { AuthError, RateLimitError, ServerError, ValidationError } from '../../src/index.js';
import { request as httpRequest } from 'node:http';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import type { Engine } from '../../src/engine/index.js';
import type { RequestInput } from '../../src/contract/endpoints.js';

type SearchBody = RequestInput<'v2.search'>;
import { KEYS, raw, SCOPE, SPEC_KEYS_FILE, startTestServer, testIndex, withoutTiming, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const index = (): Engine => testIndex();
const austrian = (): string[] => index().search({ filters: { country: ['Österreich'] }, size: 500, columns: ['domain'] }).data.map((row) => row.domain);
const german = (): string[] => index().search({ filters: { country: ['Deutschland'] }, size: 50, columns: ['domain'] }).data.map((row) => row.domain);

describe('every v2 route answers what the local engine answers for the same input', () => {
  const reference = (): string => index().search({ keywords: { must_all: ['software'] }, size: 1, columns: ['domain'] }).data[0]!.domain;
  const searches = (): Record<string, SearchBody> => ({
    filter: { filters: { country: ['Deutschland'], organization_size: ['small'] }, size: 25, columns: ['domain', 'name', 'municipality'] },
    fulltext: { keywords: { must_all: ['solar'], must_not: ['wind'] }, size: 20 },
    semantic: { describe: 'bakery with fresh bread for families', size: 20, min_score: 0.3 },
    vector_similarity: { similar_to: [reference()], size: 15 },
    hybrid: { keywords: { must_any: ['software'] }, describe: 'accounting software', size: 15, search_balance: 0.4 },
  });

  test.each(['filter', 'fulltext', 'semantic', 'vector_similarity', 'hybrid'])('search, %s mode', async (mode) => {
    const body = searches()[mode]!;
    const remote = await server.client(KEYS.tier2).search(body);
    expect(remote.metadata.mode).toBe(mode);
    expect(remote.data.length).toBeGreaterThan(0);
    expect(withoutTiming(remote)).toEqual(withoutTiming(index().search(body)));
  });

  test('fetch: found rows in input order, misses listed', async () => {
    const domains = [...german().slice(0, 5), `https://www.${german()[5]!}/impressum`, 'not-in-the-index.example'];
    const remote = await server.client(KEYS.tier2).fetch({ domains, columns: ['domain', 'name'] });
    expect(remote).toEqual(index().fetch({ domains, columns: ['domain', 'name'] }));
    expect(remote.metadata.missing).toEqual(['not-in-the-index.example']);
  });

  test('stats, filter options, locations, health', async () => {
    const client = server.client(KEYS.tier2);
    const statsBody: RequestInput<'v2.stats'> = { group_by: 'state', group_by_secondary: 'organization_size', filters: { country: ['Deutschland'] } };
    expect(withoutTiming(await client.stats(statsBody))).toEqual(withoutTiming(index().stats(statsBody)));
    expect(withoutTiming(await client.filterOptions())).toEqual(withoutTiming(index().filterOptions()));
    expect(await client.locationSearch({ q: 'Munchen' })).toEqual(index().locationSearch({ q: 'Munchen' }));
    const countries = await client.locationList({});
    expect(countries).toEqual(index().locationList({}));
    const first = countries.items[0]!;
    expect(await client.location(first.location_id)).toEqual(index().location(first.location_id));
    expect(await client.health()).toEqual({ healthy: true });
  });

  test('an unknown location id is a 404 with a detail', async () => {
    const response = await raw(`${server.url}/v2/locations/Nowhere%2FAtlantis`, { headers: { 'x-api-key': KEYS.tier2 } });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Location not found' });
  });

  test('pages walk through the client exactly as locally', async () => {
    const request: SearchBody = { keywords: { must_any: ['software', 'solar'] }, size: 40, columns: ['domain'] };
    const { rows } = await server.client(KEYS.tier2).searchAll(request, { maxRows: 400 });
    const local: string[] = [];
    let cursor: unknown = null;
    do {
      const page = index().search({ ...request, search_after: cursor as never });
      local.push(...page.data.map((row) => row.domain));
      cursor = page.metadata.search_after;
    } while (cursor && local.length < 400);
    expect(rows.map((row) => row.domain)).toEqual(local.slice(0, rows.length));
    expect(new Set(rows.map((row) => row.domain)).size).toBe(rows.length);
  });
});

describe('keys: 401, 403, admin', () => {
  test('a missing or unknown key is a 401 with a detail and no quota headers', async () => {
    const error: unknown = await server.client('not-a-key-at-all-000000').search({ filters: { country: ['Deutschland'] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toMatch(/Invalid API key/);
    const response = await raw(`${server.url}/v2/filters/options`);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Missing API key: send it in the x-api-key header' });
    expect(response.headers.get('x-ratelimit-requests-limit')).toBeNull();
  });

  test('stats explain is for admin keys: 403 for others', async () => {
    const body = { group_by: 'country', explain: true } as const;
    const error: unknown = await server.client(KEYS.tier2).stats(body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).status).toBe(403);
    expect((error as AuthError).message).toMatch(/explain is for admin keys/);
    const admin = await server.client(KEYS.admin).stats(body);
    expect(admin.metadata).toHaveProperty('explain_plan');
  });

  test('health needs no key', async () => {
    const response = await raw(`${server.url}/v2/health`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ healthy: true });
  });
});

describe('validation and bad input: a clear error, never a crash', () => {
  test('a body the contract refuses is a 422 in the FastAPI layout, at the offending field', async () => {
    const error: unknown = await server
      .client(KEYS.tier2, { validateRequests: false })
      .search({ size: 0, similar_to: [{ domain: 'a.de', boost: [1] }] } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const locs = (error as ValidationError).detail.map((item) => item.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.size', 'body.similar_to.0.boost.0']));
  });

  test('a reference domain the index does not hold is a 422 naming it', async () => {
    const error: unknown = await server.client(KEYS.tier2).search({ similar_to: ['unknown-domain.example'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).detail[0]).toMatchObject({ loc: ['body', 'similar_to', 0, 'domain'], input: 'unknown-domain.example' });
  });

  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    raw(`${server.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier2, ...headers }, body });

  test('JSON that does not parse is a 400 with a detail', async () => {
    const response = await post('{"size": ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: expect.stringMatching(/not valid JSON/) });
  });

  test('a body that is not JSON is a 415', async () => {
    const response = await post('size=3', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(415);
    expect(response.body).toEqual({ detail: expect.stringMatching(/application\/x-www-form-urlencoded.*application\/json/) });
    expect((await post('x', { 'content-type': 'text/plain' })).status).toBe(415);
  });

  test('no body at all is a 422 "Field required" at body', async () => {
    const response = await raw(`${server.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier2 } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] });
  });

  test('a body over the size limit is a 413 with a detail', async () => {
    const small = await startTestServer({ bodyLimit: 1_000 });
    try {
      const response = await raw(`${small.url}/v2/fetch`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.tier2, 'content-type': 'application/json' },
        body: JSON.stringify({ domains: Array.from({ length: 200 }, (_, i) => `domain-${i}.example`) }),
      });
      expect(response.status).toBe(413);
      expect(response.body).toEqual({ detail: expect.stringMatching(/too large/i) });
    } finally {
      await small.close();
    }
  });

  test('an unknown route is a JSON 404', async () => {
    const response = await raw(`${server.url}/v2/nothing-here?x=1`, { headers: { 'x-api-key': KEYS.tier2 } });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not Found: GET /v2/nothing-here' });
  });

  test('an unexpected error is a 500 whose detail leaks nothing (engine replaced by a failing stand-in)', async () => {
    // A stand-in for an engine bug: the one test double here, since the real engine has no known crash.
    const failing = {
      search: () => {
        throw new Error('secret internals: /etc/passwd at row 17');
      },
      health: () => ({ healthy: true }),
      withVisibility() {
        return this;
      },
    } as unknown as Engine;
    const broken = await startTestServer({ engine: { index: failing, error: null } });
    try {
      const response = await raw(`${broken.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier2, 'content-type': 'application/json' }, body: '{"filters": {"country": ["Deutschland"]}, "size": 3}' });
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ detail: 'Internal Server Error' });
      const error: unknown = await broken.client(KEYS.tier2).search({ filters: { country: ['Deutschland'] } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerError);
      // The server is still up.
      expect((await raw(`${broken.url}/v2/health`)).status).toBe(200);
    } finally {
      await broken.close();
    }
  });

  test('without an engine: health says why, other routes answer 503', async () => {
    const empty = await startTestServer({ engine: { index: null, error: 'data file unreadable' } });
    try {
      expect((await raw(`${empty.url}/v2/health`)).body).toEqual({ healthy: false, error: 'data file unreadable' });
      const error: unknown = await empty.client(KEYS.tier2).search({ filters: { country: ['Deutschland'] } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerError);
      expect((error as ServerError).status).toBe(503);
      expect((error as ServerError).message).toMatch(/index is not loaded: data file unreadable/);
    } finally {
      await empty.close();
    }
  });
});

describe('rate-limit headers, rate limits and quotas', () => {
  test('every answer to a known key carries the quota headers, counting requests and rows', async () => {
    const own = await startTestServer({ keys: SPEC_KEYS_FILE });
    try {
      const first = await raw(`${own.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier2, 'content-type': 'application/json' }, body: JSON.stringify({ filters: { country: ['Deutschland'] }, size: 7 }) });
      expect(first.status).toBe(200);
      expect(Object.fromEntries([...first.headers].filter(([name]) => name.startsWith('x-ratelimit')))).toEqual({
        'x-ratelimit-requests-limit': '50000',
        'x-ratelimit-requests-remaining': '49999',
        'x-ratelimit-results-limit': '1000000',
        'x-ratelimit-results-remaining': '999993',
        'x-ratelimit-reset': '2026-12-01T00:00:00Z',
      });
      expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      // A 422 is answered with the headers but not counted.
      const invalid = await raw(`${own.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier2, 'content-type': 'application/json' }, body: '{"size": 0}' });
      expect(invalid.status).toBe(422);
      expect(invalid.headers.get('x-ratelimit-requests-remaining')).toBe('49999');
      // The client reads them.
      const client = own.client(KEYS.tier2);
      await client.fetch({ domains: german().slice(0, 3) });
      expect(client.lastQuota).toMatchObject({ requestsLimit: 50000, requestsRemaining: 49998, resultsRemaining: 999990, resetAt: '2026-12-01T00:00:00.000Z' });
    } finally {
      await own.close();
    }
  });

  test('tier_1: bursts of 5, then 429 with Retry-After until a token is back', async () => {
    const own = await startTestServer({ keys: SPEC_KEYS_FILE });
    try {
      const client = own.client(KEYS.tier1);
      for (let i = 0; i < 5; i++) await client.health().then(() => client.filterOptions());
      // 5 filterOptions used the burst (health is not rate limited).
      const error: unknown = await client.filterOptions().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).message).toMatch(/Rate limit exceeded: tier_1 allows 2 requests per second/);
      const response = await raw(`${own.url}/v2/filters/options`, { headers: { 'x-api-key': KEYS.tier1 } });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('1');
      own.clock.advance(500); // 2 per second: one token after 0.5 s
      await expect(client.filterOptions()).resolves.toBeDefined();
      // tier_2 has its own bucket; admin keys have none.
      for (let i = 0; i < 30; i++) await own.client(KEYS.admin).filterOptions();
    } finally {
      await own.close();
    }
  });

  test('monthly quotas: requests, /stats and rows, each with its own detail; reset at the month end', async () => {
    const own = await startTestServer({
      keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyRequests: 6, monthlyStatsRequests: 1, monthlyResults: 10, burst: 100, ratePerSecond: 100 } } },
    });
    try {
      const client = own.client(KEYS.tier1);
      await client.stats({ group_by: 'country' });
      await expect(client.stats({ group_by: 'country' })).rejects.toThrow(/Monthly \/stats quota exhausted: 1 request for tier_1; it resets at 2026-12-01T00:00:00Z/);
      await client.search({ filters: { country: ['Deutschland'] }, size: 10, columns: ['domain'] });
      const rows: unknown = await client.search({ filters: { country: ['Deutschland'] }, size: 1 }).catch((e: unknown) => e);
      expect(rows).toBeInstanceOf(RateLimitError);
      expect((rows as RateLimitError).message).toMatch(/Monthly result quota exhausted: 10 rows/);
      await client.filterOptions();
      await client.filterOptions();
      await client.filterOptions();
      await client.filterOptions(); // 6 requests counted: stats, search, 4 × options
      const response = await raw(`${own.url}/v2/filters/options`, { headers: { 'x-api-key': KEYS.tier1 } });
      expect(response.status).toBe(429);
      expect(response.body).toEqual({ detail: 'Monthly request quota exhausted: 6 requests for tier_1; it resets at 2026-12-01T00:00:00Z' });
      const secondsToMonthEnd = (Date.parse('2026-12-01T00:00:00Z') - own.clock.ms) / 1000;
      expect(Number(response.headers.get('retry-after'))).toBe(secondsToMonthEnd);
      expect(response.headers.get('x-ratelimit-requests-remaining')).toBe('0');
      own.clock.ms = Date.parse('2026-12-01T00:00:01Z');
      const december = await raw(`${own.url}/v2/filters/options`, { headers: { 'x-api-key': KEYS.tier1 } });
      expect(december.status).toBe(200);
      expect(december.headers.get('x-ratelimit-requests-remaining')).toBe('5');
      expect(december.headers.get('x-ratelimit-reset')).toBe('2027-01-01T00:00:00Z');
    } finally {
      await own.close();
    }
  });
});

test('concurrent requests cannot together pass the request quota: each holds its place while it runs', async () => {
  const own = await startTestServer({
    keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyRequests: 3, burst: 100, ratePerSecond: 100 } } },
  });
  try {
    // Twelve requests whose headers all arrive before any body: all twelve are admitted while none has
    // been answered — the window in which a check-then-count quota would let every one through.
    const body = JSON.stringify({ describe: 'software development for companies', size: 50 });
    const { port } = new URL(own.url);
    const requests = Array.from({ length: 12 }, () => {
      const request = httpRequest({ host: '127.0.0.1', port, path: '/v2/search', method: 'POST', headers: { 'x-api-key': KEYS.tier1, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
      request.flushHeaders();
      const status = new Promise<number>((resolve, reject) => {
        request.on('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
      });
      return { request, status };
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const { request } of requests) request.end(body);
    const statuses = await Promise.all(requests.map((r) => r.status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(9);
    // A failed request gives its place back.
    const fresh = await startTestServer({ keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyRequests: 1 } } } });
    try {
      const bad = await raw(`${fresh.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier1, 'content-type': 'application/json' }, body: '{"size": 0}' });
      expect(bad.status).toBe(422);
      expect((await raw(`${fresh.url}/v2/filters/options`, { headers: { 'x-api-key': KEYS.tier1 } })).status).toBe(200);
    } finally {
      await fresh.close();
    }
  } finally {
    await own.close();
  }
});

describe('visibility: a scoped key sees nothing outside its filters, through any route', () => {
  const outside = (domains: string[]): string[] => domains.filter((d) => !austrian().includes(d));

  test('search in every mode returns in-scope rows only', async () => {
    const client = server.client(KEYS.scoped);
    const inScope = austrian()[0]!;
    const bodies: SearchBody[] = [
      { filters: { organization_size: ['Micro (0-9)', 'Small (10-49)', 'Medium-sized (50-249)', 'Large enterprise (250+)'] }, size: 500, columns: ['domain', 'country'] },
      { keywords: { must_any: ['software', 'solar', 'bakery', 'GmbH'] }, size: 500 },
      { describe: 'software development for companies', size: 500, min_score: 0 },
      { similar_to: [inScope], size: 500, min_score: 0 },
      { keywords: { must_any: ['GmbH'] }, describe: 'shop', size: 500, min_score: 0 },
    ];
    for (const body of bodies) {
      const result = await client.search(body);
      expect(result.data.length).toBeGreaterThan(0);
      expect(outside(result.data.map((row) => row.domain))).toEqual([]);
    }
    const filtered = await client.search({ filters: { country: ['Deutschland'] } });
    expect(filtered.data).toEqual([]);
    expect(filtered.metadata.total_hits).toBe(0);
  });

  test('fetch: out-of-scope domains are missing, exactly like unknown ones', async () => {
    const domains = [austrian()[0]!, german()[0]!];
    const result = await server.client(KEYS.scoped).fetch({ domains });
    expect(result.data.map((row) => row.domain)).toEqual([austrian()[0]]);
    expect(result.metadata.missing).toEqual([german()[0]]);
  });

  test('a similar-to reference outside the scope is "not in the index"', async () => {
    const error: unknown = await server.client(KEYS.scoped).search({ similar_to: [german()[0]!] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).detail[0]!.msg).toMatch(/is not in the index/);
  });

  test('stats, filter options and location doc counts count in-scope rows only', async () => {
    const client = server.client(KEYS.scoped);
    const stats = await client.stats({ group_by: 'country' });
    expect(stats.data.map((bucket) => bucket.country)).toEqual(['Österreich']);
    expect(stats.data[0]!.count).toBe(austrian().length);
    const options = await client.filterOptions();
    expect(options.options.country).toEqual([{ value: 'Österreich', count: austrian().length }]);
    expect(options.options.state!.map((option) => option.value)).not.toContain('Bayern');
    expect((await client.location('Europe/Österreich')).doc_count).toBe(austrian().length);
    const countries = (await client.locationList({ location_type: 'country' })).items;
    expect(countries.map((item) => [item.name, item.doc_count])).toEqual([['Österreich', austrian().length]]);
    // Any key may search locations, but places holding only hidden organizations are not listed (even a
    // count of 0 would tell where they are): a 404, like a place that does not exist.
    const hidden = await raw(`${server.url}/v2/locations/${encodeURIComponent('Europe/Deutschland')}`, { headers: { 'x-api-key': KEYS.scoped } });
    expect(hidden.status).toBe(404);
    expect((await client.locationSearch({ q: 'München' })).items).toEqual([]);
    expect((await client.locationSearch({ q: 'Wien' })).items.length).toBeGreaterThan(0);
  });

  test('the scope is the key file\'s filters object', () => {
    expect(SCOPE).toEqual({ country: ['Österreich'] });
  });
});

describe('CORS for the add-in origins', () => {
  test('a preflight from an allowed origin may send x-api-key, authorization and content-type', async () => {
    const response = await fetch(`${server.url}/v2/search`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://localhost:3000', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key, content-type, authorization' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://localhost:3000');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('x-api-key'));
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('authorization'));
  });

  test('answers expose the rate-limit headers; other origins get no CORS grant', async () => {
    const allowed = await fetch(`${server.url}/v2/health`, { headers: { Origin: 'https://localhost:3000' } });
    expect(allowed.headers.get('access-control-expose-headers')).toEqual(expect.stringContaining('X-RateLimit-Requests-Remaining'));
    const other = await fetch(`${server.url}/v2/health`, { headers: { Origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('OpenAPI document', () => {
  test('GET /openapi.json describes every served route from the contract (v2, legacy v1, language)', async () => {
    const response = await raw(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = response.body as { openapi: string; paths: Record<string, Record<string, { operationId: string; requestBody?: unknown; parameters?: { name: string }[] }>>; components: { securitySchemes: unknown } };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/',
      '/v1/close_pit',
      '/v1/download',
      '/v1/fetch-market',
      '/v1/generate-keywords',
      '/v1/nlp_search',
      '/v1/qna',
      '/v1/search',
      '/v1/sublocations',
      '/v2',
      '/v2/fetch',
      '/v2/filters/options',
      '/v2/health',
      '/v2/locations',
      '/v2/locations/search',
      '/v2/locations/{location_id}',
      '/v2/search',
      '/v2/stats',
    ]);
    const v1 = doc.paths['/v1/search']!.post! as unknown as { security: unknown; responses: Record<string, unknown> };
    expect(v1.security).toEqual([{ ApiKeyHeader: [] }, { BearerToken: [] }]);
    expect(Object.keys(v1.responses)).toEqual(expect.arrayContaining(['200', '400', '403']));
    expect(Object.keys(v1.responses)).not.toContain('422');
    const qna = doc.paths['/v1/qna']!.post! as unknown as { security: unknown; responses: Record<string, unknown> };
    expect(qna.security).toEqual([{ BearerToken: [] }]);
    expect(Object.keys(qna.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    expect(doc.paths['/v2/search']!.post!.requestBody).toBeDefined();
    expect(doc.paths['/v2/locations/search']!.get!.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(['q']));
    expect(doc.paths['/v2/locations/{location_id}']!.get!.parameters).toEqual([expect.objectContaining({ name: 'location_id', in: 'path', required: true })]);
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      BearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('it is a valid OpenAPI 3.1 document (checked by @readme/openapi-parser, refs resolved)', async () => {
    const doc = (await raw(`${server.url}/openapi.json`)).body as Parameters<typeof validateOpenApi>[0];
    const result = await validateOpenApi(doc);
    expect(result).toMatchObject({ valid: true, warnings: [] });
  });
});

describe('structured logs', () => {
  test('one JSON line per request with its id and the key id — never the key', async () => {
    const lines: string[] = [];
    const stream = { write: (line: string) => void lines.push(line) };
    const logged = await startTestServer({ logger: { level: 'info', stream } });
    try {
      const invalidKey = 'wrong-key-that-must-not-be-logged-1234';
      await raw(`${logged.url}/v2/filters/options`, { headers: { 'x-api-key': KEYS.tier2, 'x-request-id': 'trace-42' } });
      await raw(`${logged.url}/v2/filters/options`, { headers: { 'x-api-key': invalidKey } });
      await raw(`${logged.url}/v2/search?api_key=x`, { method: 'POST', headers: { authorization: 'Bearer secret-token-value', 'x-api-key': KEYS.scoped, 'content-type': 'application/json' }, body: '{"size": 0}' });
      const text = lines.join('');
      for (const secret of [KEYS.tier2, KEYS.scoped, invalidKey, 'secret-token-value']) expect(text).not.toContain(secret);
      const records = lines.map((line) => JSON.parse(line) as { reqId?: string; key?: string; res?: { statusCode: number } });
      const completed = records.filter((record) => record.res);
      expect(completed.map((record) => record.res!.statusCode)).toEqual([200, 401, 422]);
      expect(completed[0]).toMatchObject({ reqId: 'trace-42', key: expect.stringMatching(/^[0-9a-f]{16}$/) });
    } finally {
      await logged.close();
    }
  });
});

describe('hardening: limits that must hold at the edges', () => {
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    raw(`${url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier2, 'content-type': 'application/json', ...headers }, body });

  test('the result quota holds rows before they are served: a page is cut to what is left, a fetch that could pass it is a 429', async () => {
    const own = await startTestServer({ keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyResults: 12, burst: 100, ratePerSecond: 100 } } } });
    try {
      const client = own.client(KEYS.tier1);
      const page = await client.search({ filters: { country: ['Deutschland'] }, size: 500, columns: ['domain'] });
      expect(page.data).toHaveLength(12);
      expect(page.metadata.search_after).not.toBeNull(); // the walk can go on next month
      await expect(client.search({ filters: { country: ['Deutschland'] }, size: 1 })).rejects.toThrow(/Monthly result quota exhausted: 12 rows/);
    } finally {
      await own.close();
    }
    const fetching = await startTestServer({ keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyResults: 3 } } } });
    try {
      const error: unknown = await fetching.client(KEYS.tier1).fetch({ domains: german().slice(0, 5) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).message).toMatch(/a fetch of 5 domains may return as many rows, and 3 rows are left/);
      await expect(fetching.client(KEYS.tier1).fetch({ domains: german().slice(0, 3) })).resolves.toBeDefined();
    } finally {
      await fetching.close();
    }
  });

  test('a visibility that restricts nothing or holds no word disables its key (403), never a key that sees everything', async () => {
    const own = await startTestServer({
      keys: {
        keys: [
          { key: KEYS.scoped, tier: 'tier_2', visibility: { country: [] } },
          { key: KEYS.tier1, tier: 'tier_2', visibility: { text_keywords: { must_all: ['!!!'] } } },
          { key: KEYS.tier2, tier: 'tier_2' },
        ],
      },
    });
    try {
      const body = '{"filters": {"country": ["Deutschland"]}, "size": 1}';
      for (const key of [KEYS.scoped, KEYS.tier1]) expect((await post(own.url, body, { 'x-api-key': key })).body).toEqual({ detail: expect.stringMatching(/^This API key \(id [0-9a-f]{16}\) is disabled/) });
      expect((await post(own.url, body)).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  test('text_keywords without a searchable word is a 422, not a filter that filters nothing', async () => {
    const response = await post(server.url, JSON.stringify({ filters: { text_keywords: { must_all: ['!!!'] } } }));
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ detail: [{ loc: ['body', 'filters', 'text_keywords'] }] });
  });

  test('explain plans quote what the key may see, never the size of the whole index', async () => {
    const scoped = server.client(KEYS.scoped);
    const filter = await scoped.search({ filters: { organization_type: ['Company'] }, explain: true });
    const semantic = await scoped.search({ describe: 'software', explain: true });
    const plans = [...(filter.metadata.explain_plan ?? []), ...(semantic.metadata.explain_plan ?? [])].join('\n');
    expect(plans).toContain(`of ${austrian().length} rows visible to this key`);
    expect(plans).toContain(`scan over ${austrian().length} vectors`);
    expect(plans).not.toContain(String(index().store.size));
  });

  test('JSON nested deeper than 64 levels is a 400 (and cannot overflow the stack of the 422 echo)', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const response = await post(server.url, deep);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: 'Body is nested more than 64 levels deep' });
  });

  test('a body in another charset is a 415, not silently misread', async () => {
    const latin1 = Buffer.from(JSON.stringify({ filters: { country: ['Österreich'] } }), 'latin1');
    const response = await fetch(`${server.url}/v2/search`, { method: 'POST', headers: { 'x-api-key': KEYS.tier2, 'content-type': 'application/json; charset=latin1' }, body: latin1 });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ detail: 'Unsupported charset latin1: send the JSON body as UTF-8' });
    expect((await post(server.url, JSON.stringify({ filters: { country: ['Österreich'] } }), { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(200);
  });

  test('__proto__ in a body is an extra field the contract names, not "invalid JSON"', async () => {
    const response = await post(server.url, '{"filters": {"country": ["Deutschland"]}, "__proto__": {"polluted": true}}');
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ detail: [{ type: 'extra_forbidden', loc: ['body', '__proto__'] }] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('errors raised before routing are JSON too: a malformed URL, a bare OPTIONS, oversized headers', async () => {
    const badUrl = await raw(`${server.url}/v2/locations/%ZZ`, { headers: { 'x-api-key': KEYS.tier2 } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body).toEqual({ detail: expect.any(String) });
    // An OPTIONS without an Origin is no preflight: an empty 204, not a text/plain error.
    const options = await raw(`${server.url}/v2/search`, { method: 'OPTIONS' });
    expect([options.status, options.body]).toEqual([204, '']);
    const huge = await raw(`${server.url}/v2/locations/search?q=${'x'.repeat(20_000)}`, { headers: { 'x-api-key': KEYS.tier2 } });
    expect(huge.status).toBe(431);
    expect(huge.body).toEqual({ detail: 'Request headers (or the query string) are too large' });
  });

  test('a caller\'s x-request-id is echoed when it is a plain token, replaced when it is odd or an API key', async () => {
    const echo = async (id: string) => (await raw(`${server.url}/v2/health`, { headers: { 'x-request-id': id } })).headers.get('x-request-id');
    expect(await echo('trace-1.2:3')).toBe('trace-1.2:3');
    expect(await echo('has spaces and ünïcode')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await echo('x'.repeat(65))).toMatch(/^[0-9a-f-]{36}$/);
    expect(await echo(KEYS.tier2)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
