/**
 * A quota whose remainder is held by requests still in flight is not exhausted: the refusal says so, asks
 * for a retry within seconds (not at the month's end), and X-RateLimit-*-Remaining counts the held places
 * as taken — 0 exactly when a new request would be refused. Requests are held open by sending their
 * headers (admitted, place reserved) and their body later.
 */
import { request as httpRequest } from 'node:http';
import { IN_FLIGHT_RETRY_SECONDS, quotaRetryAfterSeconds, quotaStanding } from '../../src/server/limits.js';
import { KEYS, raw, startTestServer, type TestServer } from './support.js';

interface Held {
  finish(body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>;
  /** Drops the request (a failed test must not leave the server waiting for its body). */
  abort(): void;
}

const open: Held[] = [];
afterEach(() => {
  for (const held of open.splice(0)) held.abort();
});

/** A POST whose headers go now and whose body goes when `finish` is called. */
function hold(server: TestServer, path: string): Held {
  const { port } = new URL(server.url);
  const request = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'x-api-key': KEYS.tier1, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
  request.flushHeaders();
  const answered = new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, headers: response.headers });
    });
    request.on('error', reject);
  });
  answered.catch(() => undefined); // an aborted request's error is expected
  const held: Held = {
    finish: (body) => {
      request.end(body);
      return answered;
    },
    abort: () => request.destroy(),
  };
  open.push(held);
  return held;
}

const send = (server: TestServer, path: string, body: string) =>
  raw(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': KEYS.tier1, 'content-type': 'application/json' }, body });

/** Waits until `held` places are reserved: an invalid request is then refused (429) instead of answered (422, not counted). */
async function untilHeld(server: TestServer, path: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await send(server, path, '{"size": 0}')).status === 429) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the held requests were never admitted');
}

const SEARCH = JSON.stringify({ filters: { country: ['Deutschland'] }, size: 1, columns: ['domain'] });

test('requests in flight hold the last of the request quota: a short 429 that says so, Remaining 0; the quota is free again as they end', async () => {
  const server = await startTestServer({ keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyRequests: 4, burst: 100, ratePerSecond: 100 } } } });
  try {
    const held = Array.from({ length: 4 }, () => hold(server, '/v2/search'));
    await untilHeld(server, '/v2/search');

    const refused = await send(server, '/v2/search', SEARCH);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: 'Monthly request quota held by requests in flight: 4 of 4 remaining requests are reserved; retry in 1 second' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    // Remaining agrees with the refusal: nothing can start now.
    expect(refused.headers.get('x-ratelimit-requests-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-requests-limit')).toBe('4');

    // Two fail (not counted: their places come back), one succeeds (counted).
    expect((await held[0]!.finish('{"size": 0}')).status).toBe(422);
    expect((await held[1]!.finish('{"size": 0}')).status).toBe(422);
    const done = await held[2]!.finish(SEARCH);
    expect(done.status).toBe(200);
    // 1 counted, 1 still held: 2 remain.
    expect(done.headers['x-ratelimit-requests-remaining']).toBe('2');

    const next = await send(server, '/v2/search', SEARCH);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-requests-remaining')).toBe('1'); // 2 counted, 1 held
    expect((await held[3]!.finish(SEARCH)).status).toBe(200);
    expect((await send(server, '/v2/search', SEARCH)).status).toBe(200);

    // Now the quota is used up by counted requests: exhausted until the month ends.
    const exhausted = await send(server, '/v2/search', SEARCH);
    expect(exhausted.status).toBe(429);
    expect(exhausted.body).toEqual({ detail: 'Monthly request quota exhausted: 4 requests for tier_1; it resets at 2026-12-01T00:00:00Z' });
    expect(Number(exhausted.headers.get('retry-after'))).toBe((Date.parse('2026-12-01T00:00:00Z') - server.clock.now()) / 1000);
    expect(exhausted.headers.get('x-ratelimit-requests-remaining')).toBe('0');
  } finally {
    for (const held of open.splice(0)) held.abort();
    await server.close();
  }
});

test('a /stats request in flight holds the last of the /stats quota: the same short 429', async () => {
  const server = await startTestServer({ keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyStatsRequests: 1, burst: 100, ratePerSecond: 100 } } } });
  try {
    const held = hold(server, '/v2/stats');
    await untilHeld(server, '/v2/stats');
    const refused = await send(server, '/v2/stats', '{"group_by": "country"}');
    expect([refused.status, refused.body]).toEqual([429, { detail: 'Monthly /stats quota held by requests in flight: 1 of 1 remaining request is reserved; retry in 1 second' }]);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2);
    // Other routes are not held up by the /stats quota.
    expect((await send(server, '/v2/search', SEARCH)).status).toBe(200);
    expect((await held.finish('{"group_by": "country"}')).status).toBe(200);
    const exhausted = await send(server, '/v2/stats', '{"group_by": "country"}');
    expect([exhausted.status, exhausted.body]).toEqual([429, { detail: 'Monthly /stats quota exhausted: 1 request for tier_1; it resets at 2026-12-01T00:00:00Z' }]);
  } finally {
    for (const held of open.splice(0)) held.abort();
    await server.close();
  }
});

describe('quota standing and Retry-After (one helper for every quota refusal)', () => {
  test('exhausted when counted usage alone leaves too little, held when only reservations stand in the way', () => {
    expect(quotaStanding({ limit: 10, counted: 3, held: 2 })).toBe('available');
    expect(quotaStanding({ limit: 10, counted: 3, held: 7 })).toBe('held');
    expect(quotaStanding({ limit: 10, counted: 10, held: 0 })).toBe('exhausted');
    expect(quotaStanding({ limit: 10, counted: 10, held: 3 })).toBe('exhausted');
    // Wanting several units (a fetch of 5 domains): held if they would fit without the reservations.
    expect(quotaStanding({ limit: 10, counted: 3, held: 4 }, 3)).toBe('available');
    expect(quotaStanding({ limit: 10, counted: 3, held: 4 }, 5)).toBe('held');
    expect(quotaStanding({ limit: 10, counted: 3, held: 0 }, 8)).toBe('exhausted');
  });

  test('held: a second or so; exhausted: until the month resets (whole seconds, at least 1)', () => {
    const at = Date.parse('2026-11-30T23:59:59.500Z');
    expect(quotaRetryAfterSeconds('held', at)).toBe(IN_FLIGHT_RETRY_SECONDS);
    expect(IN_FLIGHT_RETRY_SECONDS).toBeLessThanOrEqual(2);
    expect(quotaRetryAfterSeconds('exhausted', at)).toBe(1);
    expect(quotaRetryAfterSeconds('exhausted', Date.parse('2026-11-21T10:00:00Z'))).toBe(9 * 86_400 + 14 * 3_600);
  });
});
