/** The remote client against a real HTTP server on a loopback port (no mocked fetch). */
import {
  AuthError,
  createRemoteClient,
  HttpError,
  NetworkError,
  OrgIndexClient,
  RateLimitError,
  ResponseFormatError,
  ServerError,
  ServiceError,
  ValidationError,
  type ClientOptions,
  type SearchResponse,
} from '../../src/index.js';
import { createKyTransport } from '../../src/client/transports/ky.js';
import { closedPort, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

const FAST_RETRY = { baseDelayMs: 20, maxDelayMs: 80, maxRetries: 3, maxWaitMs: 2_000 };

function searchResponse(domains: string[], overrides: Partial<SearchResponse['metadata']> = {}): SearchResponse {
  return {
    data: domains.map((domain) => ({ domain, name: domain.toUpperCase(), country: 'Deutschland' })),
    metadata: {
      total_hits: domains.length,
      returned: domains.length,
      mode: 'filter',
      elapsed_ms: 1,
      search_after: null,
      filters_applied: null,
      explain_plan: null,
      ...overrides,
    },
  };
}

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
});

function client(extra: Partial<ClientOptions> = {}): OrgIndexClient {
  return createRemoteClient({
    baseUrls: { v2: `${server.url}/v2`, v1: server.url, language: server.url },
    apiKey: 'key-123',
    accessToken: 'token-abc',
    retry: FAST_RETRY,
    ...extra,
  });
}

describe('requests on the wire', () => {
  test('v2 search: method, path, x-api-key, JSON content type, normalised body', async () => {
    server.script({ body: searchResponse(['example.com']) });
    const result = await client().search({
      filters: { nace_code: ['K'] },
      excludes: ['https://www.Other.DE/about', 'other.de'],
    });
    expect(result.data).toEqual([{ domain: 'example.com', name: 'EXAMPLE.COM', country: 'Deutschland' }]);

    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/v2/search');
    expect(request!.headers['x-api-key']).toBe('key-123');
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.accept).toBe('application/json');
    const sent = JSON.parse(request!.body);
    expect(sent.excludes).toEqual(['other.de']);
    expect(sent.filters).toEqual({ nace_code: [expect.stringMatching(/^NACE K: Telecommunication/)] });
    expect(sent.size).toBe(100);
    expect(sent.columns).toEqual(['domain', 'name', 'country']);
  });

  test('language interface sends the bearer token and no api key', async () => {
    server.script({ body: { original_keywords: ['solar'], alternative_keywords: ['photovoltaics'] } });
    const result = await client().language.generateKeywords({ keywords: ['solar'] });
    expect(result.alternative_keywords).toEqual(['photovoltaics']);
    const [request] = server.requests;
    expect(request!.url).toBe('/v1/generate-keywords');
    expect(request!.headers.authorization).toBe('Bearer token-abc');
    expect(request!.headers['x-api-key']).toBeUndefined();
  });

  test('legacy v1 accepts both credentials and both are sent', async () => {
    server.script({ body: { locations: ['Bayern'], level: 'state', total_count: 1 } });
    await client().v1.sublocations({ parent_level: 'country', parent_value: 'Deutschland' });
    const [request] = server.requests;
    expect(request!.url).toBe('/v1/sublocations');
    expect(request!.headers['x-api-key']).toBe('key-123');
    expect(request!.headers.authorization).toBe('Bearer token-abc');
    expect(JSON.parse(request!.body)).toEqual({ parent_level: 'country', parent_value: 'Deutschland', index: 'organizations-*' });
  });

  test('GET endpoints: query string encoding, path parameters, no body', async () => {
    server.script({ body: { items: [], count: 0 } });
    await client().locationSearch({ q: 'München Süd & Co', location_type: 'municipality' });
    expect(server.requests[0]!.method).toBe('GET');
    expect(server.requests[0]!.url).toBe('/v2/locations/search?q=M%C3%BCnchen%20S%C3%BCd%20%26%20Co&location_type=municipality&limit=10');
    expect(server.requests[0]!.headers['content-type']).toBeUndefined();
    expect(server.requests[0]!.body).toBe('');

    server.script({ body: { location_id: 'de/by', name: 'Bayern', location_type: 'state', parent_id: 'de', path: 'Deutschland/Bayern', doc_count: 3 } });
    const item = await client().location('de/by 1');
    expect(item.name).toBe('Bayern');
    expect(server.requests[1]!.url).toBe('/v2/locations/de%2Fby%201');

    server.script({ body: { succeeded: true } });
    await client().v1.closePit('pit-1');
    expect(server.requests[2]!.method).toBe('DELETE');
    expect(server.requests[2]!.url).toBe('/v1/close_pit?pit_id=pit-1');
  });
});

describe('quota', () => {
  test('X-RateLimit-* headers become the Quota value, kept as lastQuota and announced', async () => {
    server.script({
      body: { healthy: true },
      headers: {
        'X-RateLimit-Requests-Limit': '10000',
        'X-RateLimit-Requests-Remaining': '9876',
        'X-RateLimit-Results-Limit': '500000',
        'X-RateLimit-Results-Remaining': '123456',
        'X-RateLimit-Reset': '2026-12-01T00:00:00Z',
      },
    });
    const c = client();
    const seen: unknown[] = [];
    c.onQuota((q) => seen.push(q));
    const result = await c.call('v2.health', undefined);
    const expected = {
      requestsLimit: 10000,
      requestsRemaining: 9876,
      resultsLimit: 500000,
      resultsRemaining: 123456,
      resetAt: '2026-12-01T00:00:00.000Z',
    };
    expect(result.quota).toEqual(expected);
    expect(c.lastQuota).toEqual(expected);
    expect(seen).toEqual([expected]);
  });

  test('a response without rate-limit headers carries no quota and keeps the last one', async () => {
    server.script({ body: { healthy: true }, headers: { 'X-RateLimit-Requests-Remaining': '5' } }, { body: { healthy: true } });
    const c = client();
    await c.health();
    const second = await c.call('v2.health', undefined);
    expect(second.quota).toBeNull();
    expect(c.lastQuota?.requestsRemaining).toBe(5);
  });
});

describe('retries and backoff', () => {
  test('429 with Retry-After: waits at least that long, then succeeds', async () => {
    server.script({ status: 429, headers: { 'Retry-After': '0.3' }, body: { detail: 'slow down' } }, { body: { healthy: true } });
    const result = await client().call('v2.health', undefined);
    expect(result.attempts).toBe(2);
    const gap = server.requests[1]!.receivedAt - server.requests[0]!.receivedAt;
    expect(gap).toBeGreaterThanOrEqual(300);
  });

  test('429 with the quota used up and X-RateLimit-Reset (ISO 8601) near: waits until the reset instant', async () => {
    server.handle((req) =>
      server.requests.length === 1
        ? {
            status: 429,
            headers: { 'X-RateLimit-Requests-Remaining': '0', 'X-RateLimit-Reset': new Date(req.receivedAt + 400).toISOString() },
            body: { detail: 'rate' },
          }
        : { body: { healthy: true } },
    );
    const result = await client().call('v2.health', undefined);
    expect(result.attempts).toBe(2);
    expect(server.requests[1]!.receivedAt).toBeGreaterThanOrEqual(server.requests[0]!.receivedAt + 390);
  });

  test('429 whose reset is far away is not waited out: RateLimitError at once, with the reset time', async () => {
    const resetAt = '2099-01-01T00:00:00.000Z';
    server.script({ status: 429, headers: { 'X-RateLimit-Reset': resetAt, 'X-RateLimit-Requests-Remaining': '0' }, body: { detail: 'Monthly quota exceeded' } });
    const c = client();
    const error = await c.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).resetAt).toBe(resetAt);
    expect((error as RateLimitError).message).toBe(`Monthly quota exceeded; resets at ${resetAt}`);
    expect((error as RateLimitError).status).toBe(429);
    expect(server.requests).toHaveLength(1);
    expect(c.lastQuota?.requestsRemaining).toBe(0);
  });

  test('5xx is retried with backoff up to the limit, then ServerError', async () => {
    server.script({ status: 503, body: { detail: 'database unavailable' } });
    const error = await client().health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).message).toBe('database unavailable');
    expect((error as ServerError).status).toBe(503);
    expect(server.requests).toHaveLength(1 + FAST_RETRY.maxRetries);
    // Backoff grows: each gap at least half of base·2^i (equal jitter), capped.
    const gaps = server.requests.slice(1).map((r, i) => r.receivedAt - server.requests[i]!.receivedAt);
    gaps.forEach((gap, i) => { expect(gap).toBeGreaterThanOrEqual(Math.min(FAST_RETRY.maxDelayMs, FAST_RETRY.baseDelayMs * 2 ** i) / 2 - 2); });
  });

  test('500 then 200 recovers transparently', async () => {
    server.script({ status: 500, text: 'Internal Server Error' }, { body: { healthy: true } });
    const result = await client().call('v2.health', undefined);
    expect(result.body).toEqual({ healthy: true });
    expect(result.attempts).toBe(2);
  });

  test.each([
    [400, { detail: 'malformed' }, HttpError, 'malformed'],
    [404, { detail: 'Not Found' }, HttpError, 'Not Found'],
    [401, { detail: 'Missing or invalid API key' }, AuthError, 'Missing or invalid API key'],
    [403, { error: 'explain is not available to customer keys' }, AuthError, 'explain is not available to customer keys'],
  ])('%i is never retried and maps to its error type', async (status, body, type, message) => {
    server.script({ status, body });
    const error = await client().stats({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toBe(message);
    expect((error as AuthError).status).toBe(status);
    expect(server.requests).toHaveLength(1);
  });

  test('422 from the server: ValidationError with the parsed detail list, not retried', async () => {
    const detail = [{ loc: ['body', 'filters', 'country'], msg: 'Input should be a valid list', type: 'list_type', input: 'DE' }];
    server.script({ status: 422, body: { detail } });
    const error = await client({ validateRequests: false }).search({ filters: { country: 'DE' } } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).detail).toEqual(detail);
    expect((error as ValidationError).status).toBe(422);
    expect((error as ValidationError).message).toBe('filters.country: Input should be a valid list');
    expect(server.requests).toHaveLength(1);
  });

  test('an invalid body is rejected before sending: same 422 detail, status null, no request spent', async () => {
    const error = await client().search({ size: 501, keywords: { must_not: ['x'] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).status).toBeNull();
    expect((error as ValidationError).detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'keywords', 'must_not'],
        msg: 'Value error, must_not is valid only together with must_all or must_any',
        input: ['x'],
        ctx: { error: 'must_not is valid only together with must_all or must_any', rule: 3 },
      },
      { type: 'less_than_equal', loc: ['body', 'size'], msg: 'Input should be less than or equal to 500', input: 501, ctx: { le: 500 } },
    ]);
    expect(server.requests).toHaveLength(0);
  });
});

describe('failures without a response', () => {
  test('connection refused: retried, then NetworkError of kind network', async () => {
    const port = await closedPort();
    const c = createRemoteClient({ baseUrls: { v2: `http://127.0.0.1:${port}/v2` }, retry: FAST_RETRY });
    const error = await c.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).kind).toBe('network');
    expect((error as NetworkError).message).toContain(`GET http://127.0.0.1:${port}/v2/health`);
  });

  test('no answer within the time limit: NetworkError of kind timeout, after retries', async () => {
    server.script({ delayMs: 1_000, body: { healthy: true } });
    const error = await client({ timeoutMs: 100, retry: { ...FAST_RETRY, maxRetries: 1 } })
      .health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).kind).toBe('timeout');
    expect(server.requests).toHaveLength(2);
  });

  test('the time limit covers the body too: a response that stalls mid-body times out', async () => {
    server.script({ stallBody: true, body: { healthy: true, padding: 'x'.repeat(1000) } });
    const error = await client({ timeoutMs: 150, retry: { ...FAST_RETRY, maxRetries: 0 } })
      .health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).kind).toBe('timeout');
  });

  test('a 200 that is not JSON, or not the contract shape, is a ResponseFormatError', async () => {
    server.script({ text: '<html>proxy login</html>' });
    await expect(client().health()).rejects.toBeInstanceOf(ResponseFormatError);
    server.script({ body: { data: 'nope' } });
    await expect(client().search({ filters: {} })).rejects.toThrow(/does not match the contract \(data: /);
  });

  test('a language error envelope inside a 200 is a ServiceError with its message and details', async () => {
    server.script({ body: { success: false, can_answer: false, message: 'Could not fetch the site', error: 'timeout after 10 s' } });
    const error = await client().language.qna({ question: 'What do they sell?', domain: 'example.com' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toBe('Could not fetch the site: timeout after 10 s');
  });
});

describe('pagination', () => {
  test('filter mode: walks every keyset page to the null cursor, no duplicate, no gap', async () => {
    const all = Array.from({ length: 237 }, (_, i) => `org${String(i).padStart(3, '0')}.de`);
    server.handle((req) => {
      const body = JSON.parse(req.body) as { size: number; search_after: string[] | null };
      const after = body.search_after?.[0] ?? '';
      const page = all.filter((d) => d > after).slice(0, body.size);
      const last = page[page.length - 1];
      const more = last !== undefined && last < all[all.length - 1]!;
      return { body: searchResponse(page, { total_hits: all.length, search_after: more ? [last] : null }) };
    });
    const { rows, state } = await client().searchAll({ filters: {}, size: 50 });
    expect(rows.map((r) => r.domain)).toEqual(all);
    expect(state).toMatchObject({ pages: 5, fetched: 237, totalHits: 237, stoppedBy: 'end' });
  });

  test('scored modes stop exactly at the 10,000-row depth cap', async () => {
    let served = 0;
    server.handle((req) => {
      const { size } = JSON.parse(req.body) as { size: number };
      const page = Array.from({ length: size }, (_, i) => `hit${served + i}.de`);
      served += size;
      return { body: searchResponse(page, { mode: 'fulltext', total_hits: 50_000, search_after: [served] }) };
    });
    const sizes: number[] = [];
    let stoppedBy: string | null = null;
    for await (const page of client().searchPages({ keywords: { must_all: ['solar'] }, size: 450 })) {
      sizes.push(page.response.data.length);
      stoppedBy = page.state.stoppedBy;
    }
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(sizes[sizes.length - 1]).toBe(10_000 - 450 * 22);
    expect(stoppedBy).toBe('depth_cap');
    expect(JSON.parse(server.requests[1]!.body).search_after).toEqual([450]);
  });

  test('a bad page size is a ValidationError, not an empty result', async () => {
    await expect(client().searchAll({ filters: {}, size: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(client().searchAll({ filters: {}, size: 1000 })).rejects.toBeInstanceOf(ValidationError);
    expect(server.requests).toHaveLength(0);
  });

  test('maxRows shortens the last page', async () => {
    server.handle((req) => {
      const { size } = JSON.parse(req.body) as { size: number };
      return { body: searchResponse(Array.from({ length: size }, (_, i) => `x${i}-${req.receivedAt}.de`), { search_after: ['next'] }) };
    });
    const { rows, state } = await client().searchAll({ filters: {}, size: 100 }, { maxRows: 250 });
    expect(rows).toHaveLength(250);
    expect(server.requests.map((r) => (JSON.parse(r.body) as { size: number }).size)).toEqual([100, 100, 50]);
    expect(state?.stoppedBy).toBe('max_rows');
  });
});

test('configuration errors are clear', () => {
  expect(() => createRemoteClient({ baseUrls: { v2: 'localhost:8787' } })).toThrow('must start with http:// or https://');
  // A key pasted with a typographic quote cannot travel in a header: say so, instead of a retried "network" error.
  expect(() => createRemoteClient({ baseUrls: { v2: 'http://127.0.0.1:1/v2' }, apiKey: 'key\u2019s' })).toThrow(
    'The API key contains characters that cannot be sent in an HTTP header',
  );
  const c = new OrgIndexClient({ baseUrls: {} }, createKyTransport());
  return expect(c.health()).rejects.toThrow('No base URL is configured for the v2 interface');
});
