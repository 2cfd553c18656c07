/**
 * v1 PITs over HTTP with the default caps (50 per caller, 1,000 for the service): other callers filling
 * the service do not take a caller's live PIT; the PIT that does not fit is a 503 in v1's error format,
 * with Retry-After, and is not counted against the caller's quota.
 */
import { randomUUID } from 'node:crypto';
import { MAX_OPEN_PITS, MAX_PITS_PER_CALLER } from '../../src/engine/v1/pit-registry.js';
import type { KeysFile } from '../../src/server/keys.js';
import { raw, startTestServer } from './support.js';

const OTHERS = 20;
const key = (n: number): string => `test-key-pit-caller-${String(n).padStart(12, '0')}`;
const KEYS_FILE: KeysFile = {
  keys: Array.from({ length: OTHERS + 2 }, (_, n) => ({ key: key(n), tier: 'tier_2' as const })),
  tiers: { tier_2: { ratePerSecond: 10_000, burst: 10_000 } },
};

test('a caller\'s PIT survives twenty other callers opening PITs up to their caps; a PIT past the service cap is a 503', async () => {
  const server = await startTestServer({ keys: KEYS_FILE });
  try {
    const search = (caller: number, extra: Record<string, unknown> = {}) =>
      raw(`${server.url}/v1/search`, {
        method: 'POST',
        headers: { 'x-api-key': key(caller), 'content-type': 'application/json' },
        body: JSON.stringify({ search_id: randomUUID(), locations: { country: ['Deutschland'] }, size: 2, ...extra }),
      });
    const first = await search(0);
    expect(first.status).toBe(200);
    const { pit_id, search_after } = (first.body as { metadata: { pit_id: string; search_after: unknown } }).metadata;
    server.clock.advance(2_000);

    // 1 + 20 × 50 = 1,001 PITs asked for: the last one does not fit.
    // The callers side by side, each one request after another (their order does not change the counts).
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: OTHERS }, async (_, other) => {
        for (let n = 0; n < MAX_PITS_PER_CALLER; n++) statuses.push((await search(other + 1)).status);
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(MAX_OPEN_PITS - 1);
    expect(statuses.filter((status) => status === 503)).toHaveLength(1 + OTHERS * MAX_PITS_PER_CALLER - MAX_OPEN_PITS);

    // The first caller's walk goes on.
    const next = await search(0, { pit_id, search_after });
    expect(next.status).toBe(200);
    expect((next.body as { metadata: { pit_id: string } }).metadata.pit_id).toBe(pit_id);

    // A newcomer: refused, with when the least recently used PIT expires (within the 5-minute keep-alive).
    const late = await search(OTHERS + 1);
    expect(late.status).toBe(503);
    expect(late.body).toEqual({ detail: expect.stringMatching(/^the service holds 1,000 open point-in-time contexts, the most it keeps \(a caller may hold 50\): retry in \d+ seconds?/) });
    expect(Number(late.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(late.headers.get('retry-after'))).toBeLessThanOrEqual(300);
    // Not counted: the quota is as it was.
    expect(late.headers.get('x-ratelimit-requests-remaining')).toBe('50000');

    // Closing one of its own PITs makes room for the newcomer at once.
    const closed = await raw(`${server.url}/v1/close_pit?pit_id=${pit_id}`, { method: 'DELETE', headers: { 'x-api-key': key(0) } });
    expect(closed.body).toEqual({ succeeded: true });
    expect((await search(OTHERS + 1)).status).toBe(200);
  } finally {
    await server.close();
  }
}, 30_000);
