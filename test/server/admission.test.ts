/**
 * The Admission class on its own, without HTTP: key lookup, token buckets, quota reservations (held,
 * counted, given back once), rows held for /search and /fetch, the 401/403/429 decisions and their headers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admission, type EngineState } from '../../src/server/admission.js';
import type { BearerVerifier } from '../../src/server/bearer.js';
import { KeyRing, type KeysFile } from '../../src/server/keys.js';
import { HttpProblem } from '../../src/server/problem.js';
import { QuotaLedger } from '../../src/server/quota-ledger.js';
import { LocalQuotaState } from '../../src/server/quota-state.js';
import { TestClock } from './support.js';

const TIER1 = 'admission-test-key-tier-1-000001';
const ADMIN = 'admission-test-key-admin--000002';
const SMALL = 'admission-test-key-small--000003';

const KEYS_FILE: KeysFile = {
  keys: [
    { key: TIER1, tier: 'tier_1' },
    { key: ADMIN, tier: 'tier_2', admin: true },
    { key: SMALL, tier: 'tier_2' },
  ],
  // tier_2 here: a quota small enough to reach, a rate high enough never to be the reason.
  tiers: { tier_2: { ratePerSecond: 1000, burst: 1000, monthlyRequests: 2, monthlyStatsRequests: 1, monthlyResults: 30 } },
};

const NO_ENGINE: EngineState = { index: null, error: 'still loading' };

let dir: string;
let ledger: QuotaLedger;
let clock: TestClock;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orgindex-admission-'));
  ledger = await QuotaLedger.open(dir);
  clock = new TestClock();
});

afterEach(async () => {
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

function admission(options: { bearer?: BearerVerifier; languageGroups?: string[] } = {}): Admission {
  return new Admission({ engine: NO_ENGINE, keys: new KeyRing(KEYS_FILE), state: new LocalQuotaState(ledger), now: clock.now, bearer: options.bearer ?? null, languageGroups: options.languageGroups });
}

/** The HttpProblem a call throws (fails the test when it throws none or another error). */
async function problemOf(call: () => unknown): Promise<HttpProblem> {
  try {
    await call();
  } catch (error) {
    if (error instanceof HttpProblem) return error;
    throw error;
  }
  throw new Error('expected an HttpProblem');
}

describe('keys', () => {
  test('a missing or unknown key is a 401; a repeated header counts by its first value', async () => {
    const gate = admission();
    expect(await problemOf(() => gate.key(undefined))).toMatchObject({ status: 401, detail: 'Missing API key: send it in the x-api-key header' });
    expect(await problemOf(() => gate.key('no-such-key'))).toMatchObject({ status: 401, detail: 'Invalid API key' });
    expect(gate.key([TIER1, 'no-such-key']).tier).toBe('tier_1');
  });

  test('no engine: every view is a 503 naming why', async () => {
    const gate = admission();
    expect(await problemOf(() => gate.view(gate.key(TIER1)))).toMatchObject({ status: 503, detail: 'the index is not loaded: still loading' });
  });

  test('admin-only options are a 403 naming the tier', async () => {
    const gate = admission();
    gate.requireAdmin(gate.key(ADMIN), 'explain');
    expect(
      await problemOf(() => {
        gate.requireAdmin(gate.key(TIER1), 'explain');
      }),
    ).toMatchObject({ status: 403, detail: 'explain is for admin keys; this key is tier_1' });
  });
});

describe('rate', () => {
  test("tier_1's bucket: five at once, the sixth a 429 with Retry-After; refilled at two a second", async () => {
    const gate = admission();
    const key = gate.key(TIER1);
    for (let i = 0; i < 5; i++) gate.release(await gate.reserve('v2.filterOptions', key));
    const refused = await problemOf(() => gate.reserve('v2.filterOptions', key));
    expect(refused).toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    expect(refused.detail).toBe('Rate limit exceeded: tier_1 allows 2 requests per second (bursts of 5); retry in 1 second');
    clock.advance(500);
    expect(await gate.reserve('v2.filterOptions', key)).not.toBeNull();
  });

  test('admin keys pass without a token or a reservation', async () => {
    const gate = admission();
    const key = gate.key(ADMIN);
    for (let i = 0; i < 50; i++) expect(await gate.reserve('v2.search', key)).toBeNull();
  });
});

describe('quotas', () => {
  test('places held by requests in flight: a 429 of a second; given back once, however often released', async () => {
    const gate = admission();
    const key = gate.key(SMALL);
    const first = await gate.reserve('v2.filterOptions', key);
    await gate.reserve('v2.filterOptions', key);
    expect((await gate.rateLimitHeaders(key))['X-RateLimit-Requests-Remaining']).toBe('0');
    const refused = await problemOf(() => gate.reserve('v2.filterOptions', key));
    expect(refused).toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    expect(refused.detail).toBe('Monthly request quota held by requests in flight: 2 of 2 remaining requests are reserved; retry in 1 second');
    gate.release(first);
    gate.release(first);
    expect((await gate.rateLimitHeaders(key))['X-RateLimit-Requests-Remaining']).toBe('1');
  });

  test('counted usage exhausts the quota until the month resets (Retry-After to the reset)', async () => {
    const gate = admission();
    const key = gate.key(SMALL);
    for (let i = 0; i < 2; i++) await gate.count('v2.filterOptions', key, await gate.reserve('v2.filterOptions', key), {});
    const refused = await problemOf(() => gate.reserve('v2.filterOptions', key));
    const seconds = (Date.parse('2026-12-01T00:00:00Z') - clock.ms) / 1000;
    expect(refused).toMatchObject({ status: 429, headers: { 'Retry-After': String(seconds) } });
    expect(refused.detail).toBe('Monthly request quota exhausted: 2 requests for tier_2; it resets at 2026-12-01T00:00:00Z');
    expect(await gate.rateLimitHeaders(key)).toEqual({
      'X-RateLimit-Requests-Limit': '2',
      'X-RateLimit-Requests-Remaining': '0',
      'X-RateLimit-Results-Limit': '30',
      'X-RateLimit-Results-Remaining': '30',
      'X-RateLimit-Reset': '2026-12-01T00:00:00Z',
    });
  });

  test('/stats has its own quota besides the request quota', async () => {
    const gate = admission();
    const key = gate.key(SMALL);
    await gate.count('v2.stats', key, await gate.reserve('v2.stats', key), {});
    expect((await problemOf(() => gate.reserve('v2.stats', key))).detail).toMatch(/^Monthly \/stats quota exhausted: 1 request for tier_2/);
    expect(await gate.reserve('v2.filterOptions', key)).not.toBeNull();
  });
});

describe('rows held for /search and /fetch', () => {
  test('a search page is cut to the rows left and holds them; the count adds the rows returned', async () => {
    const gate = admission();
    const key = gate.key(SMALL);
    const reservation = await gate.reserve('v2.search', key);
    const body = { size: 50, keywords: { must_any: ['software'] } };
    expect(await gate.holdRows('v2.search', key, reservation, body)).toEqual({ ...body, size: 30 });
    expect((await gate.rateLimitHeaders(key))['X-RateLimit-Results-Remaining']).toBe('0');
    await gate.count('v2.search', key, reservation, { data: new Array(12).fill({}) });
    expect((await gate.rateLimitHeaders(key))['X-RateLimit-Results-Remaining']).toBe('18');
  });

  test('a fetch of more domains than rows are left is a 429 and holds nothing', async () => {
    const gate = admission();
    const key = gate.key(SMALL);
    const domains = Array.from({ length: 31 }, (_, i) => `example-${i}.com`);
    // Each request answered (refused) gives its place back, as the server's onSend does.
    const attempt = async (id: 'v2.fetch' | 'v1.fetchMarket', body: { domains: string[] }): Promise<unknown> => {
      const reservation = await gate.reserve(id, key);
      try {
        return await gate.holdRows(id, key, reservation, body);
      } finally {
        gate.release(reservation);
      }
    };
    for (const id of ['v2.fetch', 'v1.fetchMarket'] as const) {
      const refused = await problemOf(() => attempt(id, { domains }));
      expect(refused.status).toBe(429);
      expect(refused.detail).toMatch(/^Monthly result quota: a fetch of 31 domains may return as many rows, and 30 rows are left for tier_2/);
    }
    expect(await attempt('v2.fetch', { domains: domains.slice(1) })).toEqual({ domains: domains.slice(1) });
    expect((await gate.rateLimitHeaders(key))['X-RateLimit-Results-Remaining']).toBe('30');
  });

  test('admin keys and routes without rows run their body as it came', async () => {
    const gate = admission();
    const admin = gate.key(ADMIN);
    const body = { size: 5_000 };
    expect(await gate.holdRows('v2.search', admin, await gate.reserve('v2.search', admin), body)).toBe(body);
    const key = gate.key(SMALL);
    expect(await gate.holdRows('v1.sublocations', key, await gate.reserve('v1.sublocations', key), body)).toBe(body);
  });
});

describe('bearer users', () => {
  const verifier: BearerVerifier = (token) => Promise.resolve({ sub: `user-${token}`, username: token, groups: token === 'member' ? ['analysts'] : [] });

  test('v1 refuses a missing token or a server without a verifier with 403; the language routes with 401', async () => {
    expect(await problemOf(() => admission({ bearer: verifier }).v1User(undefined))).toMatchObject({ status: 403, detail: 'Not authenticated: send x-api-key, or Authorization: Bearer <token>' });
    expect(await problemOf(() => admission().v1User('Bearer t'))).toMatchObject({ status: 403 });
    expect(await problemOf(() => admission({ bearer: verifier }).languageUser('Basic abc'))).toMatchObject({ status: 401, detail: 'Not authenticated: send Authorization: Bearer <token>' });
    expect(await problemOf(() => admission().languageUser('Bearer t'))).toMatchObject({ status: 401 });
  });

  test("language groups: a member passes, anyone else is a 403; users share tier_2's rate", async () => {
    const gate = admission({ bearer: verifier, languageGroups: ['analysts'] });
    expect((await gate.languageUser('Bearer member')).sub).toBe('user-member');
    expect(await problemOf(() => gate.languageUser('Bearer outsider'))).toMatchObject({ status: 403, detail: 'Access denied: the language routes are for members of analysts' });
    for (let i = 1; i < 10; i++) await gate.v1User('bearer member');
    const refused = await problemOf(() => gate.v1User('Bearer member'));
    expect(refused).toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    expect(refused.detail).toMatch(/^Rate limit exceeded: a signed-in user may send 5 requests per second \(bursts of 10\)/);
  });
});
