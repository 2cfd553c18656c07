/**
 * The retry policy and the operation drivers as pure logic. The synchronous driver is exercised with a
 * scripted transport — a stand-in for Apps Script's UrlFetchApp, which cannot exist in Node; the real
 * HTTP path is covered by client.test.ts against a loopback server.
 */
import {
  backoffMs,
  callEndpoint,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  NetworkError,
  parseQuota,
  RateLimitError,
  resolveConfig,
  runSync,
  parseInstant,
  retryAtIso,
  retryInstant,
  type HttpOutcome,
  type HttpRequest,
  type SyncTransport,
} from '../../src/index.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const policy = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxWaitMs: 5_000 };

describe('decideRetry', () => {
  const response = (status: number, headers: Record<string, string> = {}) => ({ kind: 'response' as const, status, headers });

  test.each([429, 500, 502, 503, 504])('%i is retried', (status) => {
    expect(decideRetry(policy, 0, response(status), NOW, () => 0.5).retry).toBe(true);
  });
  test.each([400, 401, 403, 404, 409, 422, 501])('%i is not retried', (status) => {
    expect(decideRetry(policy, 0, response(status), NOW, () => 0.5)).toEqual({ retry: false });
  });
  test('network failures are retried; nothing is retried past maxRetries', () => {
    expect(decideRetry(policy, 2, { kind: 'failure' }, NOW, () => 0).retry).toBe(true);
    expect(decideRetry(policy, 3, { kind: 'failure' }, NOW, () => 0)).toEqual({ retry: false });
    expect(decideRetry(policy, 3, response(503), NOW, () => 0)).toEqual({ retry: false });
  });
  test('capped exponential backoff with equal jitter', () => {
    expect([0, 1, 2, 3, 4, 10].map((i) => backoffMs(policy, i, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 10].map((i) => backoffMs(policy, i, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
  test('Retry-After (seconds or HTTP date) sets the wait; the quota reset only when the quota is used up', () => {
    const exhausted = { 'x-ratelimit-requests-remaining': '0' };
    expect(retryInstant({ 'retry-after': '2' }, NOW)).toBe(NOW + 2000);
    expect(retryInstant({ 'retry-after': 'Sat, 21 Nov 2026 12:00:03 GMT' }, NOW)).toBe(NOW + 3000);
    expect(retryInstant({ ...exhausted, 'x-ratelimit-reset': '2026-11-21T12:00:04Z' }, NOW)).toBe(NOW + 4000);
    expect(retryInstant({ 'x-ratelimit-reset': '2026-11-21T12:00:04Z' }, NOW)).toBeNull();
    expect(retryInstant({ 'retry-after': '2', ...exhausted, 'x-ratelimit-reset': '2026-12-01T00:00:00Z' }, NOW)).toBe(NOW + 2000);
    expect(retryInstant({}, NOW)).toBeNull();
    expect(decideRetry(policy, 0, response(429, { 'retry-after': '2' }), NOW, () => 0)).toEqual({ retry: true, delayMs: 2000 });
  });
  test('an exhausted quota whose reset is beyond maxWaitMs is not waited out', () => {
    const headers = { 'x-ratelimit-results-remaining': '0', 'x-ratelimit-reset': '2026-12-01T00:00:00Z' };
    expect(decideRetry(policy, 0, response(429, headers), NOW, () => 0)).toEqual({ retry: false });
  });
  test('a monthly reset header does not stop a 5xx or a burst-limit 429 from backing off', () => {
    const headers = { 'x-ratelimit-requests-remaining': '9000', 'x-ratelimit-reset': '2026-12-01T00:00:00Z' };
    expect(decideRetry(policy, 0, response(503, headers), NOW, () => 0)).toEqual({ retry: true, delayMs: 50 });
    expect(decideRetry(policy, 1, response(429, headers), NOW, () => 0)).toEqual({ retry: true, delayMs: 100 });
  });
  test('a 503 with Retry-After waits as asked', () => {
    expect(decideRetry(policy, 0, response(503, { 'retry-after': '1' }), NOW, () => 0)).toEqual({ retry: true, delayMs: 1000 });
  });
});

test('time headers: dates, epoch seconds, delay seconds; out-of-range values are unreadable, never a throw', () => {
  expect(parseInstant('2026-11-21T12:00:04Z', NOW)).toBe(NOW + 4000);
  expect(parseInstant('60', NOW)).toBe(NOW + 60_000);
  expect(parseInstant('1795000000', NOW)).toBe(1795000000_000);
  expect(parseInstant('99999999999999', NOW)).toBeNull();
  expect(parseInstant('soon', NOW)).toBeNull();
  expect(parseQuota({ 'x-ratelimit-reset': '99999999999999' }, NOW)).toBeNull();
  expect(retryAtIso({ 'retry-after': '9999999999999' }, NOW)).toBeNull();
});

test('parseQuota ignores malformed values and accepts epoch-second resets', () => {
  expect(parseQuota({ 'x-ratelimit-requests-remaining': 'lots', 'x-ratelimit-reset': '1795000000' }, NOW)).toEqual({
    requestsLimit: null,
    requestsRemaining: null,
    resultsLimit: null,
    resultsRemaining: null,
    resetAt: new Date(1795000000 * 1000).toISOString(),
  });
  expect(parseQuota({ 'content-type': 'application/json' }, NOW)).toBeNull();
});

/** Answers from a script and records sleeps: a stand-in for UrlFetchApp + Utilities.sleep. */
function scriptedTransport(outcomes: HttpOutcome[]): SyncTransport & { sent: HttpRequest[]; slept: number[] } {
  const sent: HttpRequest[] = [];
  const slept: number[] = [];
  return {
    sent,
    slept,
    send(request) {
      sent.push(request);
      const next = outcomes.shift();
      if (!next) throw new Error('script exhausted');
      return next;
    },
    sleep(ms) {
      slept.push(ms);
    },
  };
}

const ok = (body: unknown, headers: Record<string, string> = {}): HttpOutcome => ({
  kind: 'response',
  response: { status: 200, headers, body: JSON.stringify(body) },
});

describe('runSync drives the same operation as runAsync', () => {
  const config = resolveConfig({ baseUrls: { v2: 'https://api.example.test/v2' }, apiKey: 'k', retry: policy, now: () => NOW, random: () => 0 });

  test('retries a 503 and a network failure, sleeping the backoff, then returns the body and quota', () => {
    const transport = scriptedTransport([
      { kind: 'response', response: { status: 503, headers: {}, body: '' } },
      { kind: 'failure', failure: { type: 'network', message: 'ECONNRESET' } },
      ok({ healthy: true }, { 'x-ratelimit-requests-remaining': '41' }),
    ]);
    const result = runSync(callEndpoint(config, 'v2.health', undefined), transport);
    expect(result.body).toEqual({ healthy: true });
    expect(result.attempts).toBe(3);
    expect(result.quota?.requestsRemaining).toBe(41);
    expect(transport.slept).toEqual([50, 100]);
    expect(transport.sent[0]).toEqual({
      method: 'GET',
      url: 'https://api.example.test/v2/health',
      headers: { accept: 'application/json', 'x-api-key': 'k' },
      timeoutMs: 30_000,
    });
  });

  test('a transport that throws is a network failure; the last one surfaces as NetworkError', () => {
    const transport = scriptedTransport([]);
    expect(() => runSync(callEndpoint(config, 'v2.health', undefined), transport)).toThrow(NetworkError);
    expect(transport.slept).toHaveLength(policy.maxRetries);
  });

  test('429 with a near reset waits exactly until it', () => {
    const transport = scriptedTransport([
      {
        kind: 'response',
        response: { status: 429, headers: { 'x-ratelimit-requests-remaining': '0', 'x-ratelimit-reset': '2026-11-21T12:00:01.500Z' }, body: '{}' },
      },
      ok({ healthy: true }),
    ]);
    runSync(callEndpoint(config, 'v2.health', undefined), transport);
    expect(transport.slept).toEqual([1500]);
  });

  test('429 with a distant reset throws RateLimitError without sleeping', () => {
    const transport = scriptedTransport([
      {
        kind: 'response',
        response: { status: 429, headers: { 'x-ratelimit-requests-remaining': '0', 'x-ratelimit-reset': '2026-12-01T00:00:00Z' }, body: '{"detail":"quota"}' },
      },
    ]);
    expect(() => runSync(callEndpoint(config, 'v2.health', undefined), transport)).toThrow(
      new RateLimitError('quota; resets at 2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'),
    );
    expect(transport.slept).toEqual([]);
  });
});

test('the default policy is bounded', () => {
  expect(DEFAULT_RETRY_POLICY.maxRetries).toBeLessThanOrEqual(5);
  expect(DEFAULT_RETRY_POLICY.maxDelayMs).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxWaitMs);
});
