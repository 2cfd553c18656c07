/**
 * The two QuotaStates behind admission: this process's (memory and the quota journal) and the shared one
 * in PostgreSQL (a real throwaway cluster). The same admission rules over either; with the shared one, two
 * admissions (as two server processes) draw on one bucket and one quota.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admission, type EngineState } from '../../src/server/admission.js';
import { Database } from '../../src/server/database/database.js';
import { PgQuotaState } from '../../src/server/database/pg-quota-state.js';
import { KeyRing, type KeysFile } from '../../src/server/keys.js';
import { HttpProblem } from '../../src/server/problem.js';
import { QuotaLedger } from '../../src/server/quota-ledger.js';
import { LocalQuotaState, type Hold, type QuotaState } from '../../src/server/quota-state.js';
import { usePostgres } from '../support/postgres.js';
import { TestClock } from './support.js';

const KEY = 'quota-state-test-key-tier-2-0000001';
const KEYS: KeysFile = {
  keys: [{ key: KEY, tier: 'tier_2' }],
  tiers: { tier_2: { ratePerSecond: 1, burst: 10, monthlyRequests: 12, monthlyStatsRequests: 1, monthlyResults: 30 } },
};
const NO_ENGINE: EngineState = { index: null, error: 'not needed' };

const cluster = usePostgres();
const opened: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function sharedDatabase(): Promise<Database> {
  const database = await Database.open(await cluster().createDatabase());
  opened.push(database);
  return database;
}

async function localState(): Promise<QuotaState> {
  const dir = mkdtempSync(join(tmpdir(), 'orgindex-quota-state-'));
  const ledger = await QuotaLedger.open(dir);
  opened.push({
    close: async () => {
      await ledger.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  return new LocalQuotaState(ledger);
}

const gate = (state: QuotaState, clock: TestClock): Admission => new Admission({ engine: NO_ENGINE, keys: new KeyRing(KEYS), state, now: clock.now, bearer: null });

/** 'ok', or the status of the HttpProblem a reservation was refused with. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    if (error instanceof HttpProblem) return String(error.status);
    throw error;
  }
}

const states: [string, () => Promise<QuotaState>][] = [
  ['this process', localState],
  ['PostgreSQL', async () => new PgQuotaState(await sharedDatabase())],
];

describe.each(states)('the admission rules over %s', (_name, make) => {
  test('a burst of 10, then 429 until the bucket refills; quota places held, counted once, given back once', async () => {
    const clock = new TestClock();
    const admission = gate(await make(), clock);
    const key = admission.key(KEY);
    const first = await admission.reserve('v2.filterOptions', key);
    for (let i = 1; i < 10; i++) admission.release(await admission.reserve('v2.filterOptions', key));
    expect(await outcome(admission.reserve('v2.filterOptions', key))).toBe('429');
    clock.advance(1_000);
    await admission.count('v2.filterOptions', key, first, {});
    admission.release(first);
    const headers = await admission.rateLimitHeaders(key);
    expect(headers['X-RateLimit-Requests-Remaining']).toBe('11');
    const search = await admission.reserve('v2.search', key);
    const body = { size: 50, keywords: { must_any: ['software'] } };
    expect(await admission.holdRows('v2.search', key, search, body)).toEqual({ ...body, size: 30 });
    expect((await admission.rateLimitHeaders(key))['X-RateLimit-Results-Remaining']).toBe('0');
    await admission.count('v2.search', key, search, { data: new Array(7).fill({}) });
    expect((await admission.rateLimitHeaders(key))['X-RateLimit-Results-Remaining']).toBe('23');
  });
});

describe.each(states)('token buckets over %s', (_name, make) => {
  test('takes come out in the order asked; a refusal says when the next token is there; a clock behind takes nothing back', async () => {
    const state = await make();
    const taken = await Promise.all(Array.from({ length: 5 }, () => state.takeToken('k', 0.5, 3, 1_000)));
    expect(taken).toEqual([{ ok: true }, { ok: true }, { ok: true }, { ok: false, retryAfterSeconds: 2 }, { ok: false, retryAfterSeconds: 2 }]);
    expect(await state.takeToken('k', 0.5, 3, 2_000)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(await state.takeToken('k', 0.5, 3, 1_500)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(await state.takeToken('k', 0.5, 3, 3_000)).toEqual({ ok: true });
    expect(await state.takeToken('other', 0.5, 3, 3_000)).toEqual({ ok: true });
  });
});

describe('two admissions on one database act as one service', () => {
  test('one bucket: 10 requests at once across both, then 429 from either', async () => {
    const database = await sharedDatabase();
    const clock = new TestClock();
    const [a, b] = [gate(new PgQuotaState(database), clock), gate(new PgQuotaState(database), clock)];
    const key = a.key(KEY);
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => outcome((i % 2 === 0 ? a : b).reserve('v2.filterOptions', key))));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(10);
    expect(outcomes.filter((o) => o === '429')).toHaveLength(6);
  });

  test('one monthly quota: racing requests never hold more than the limit, and counts add up across both', async () => {
    const database = await sharedDatabase();
    const clock = new TestClock();
    const gates = [gate(new PgQuotaState(database), clock), gate(new PgQuotaState(database), clock)];
    const key = gates[0]!.key(KEY);
    let answered = 0;
    for (let round = 0; round < 3; round++) {
      clock.advance(20_000); // a full bucket each round: only the quota decides
      const held = await Promise.all(Array.from({ length: 8 }, (_, i) => gates[i % 2]!.reserve('v2.filterOptions', key).then((r) => r, () => null)));
      const admitted = held.filter((r) => r !== null);
      await Promise.all(admitted.map((r, i) => gates[i % 2]!.count('v2.filterOptions', key, r, {})));
      answered += admitted.length;
    }
    // 12 requests a month: 8 + 4 + 0.
    expect(answered).toBe(12);
    const [row] = await database.query<{ requests: string }>('SELECT requests FROM quota_usage');
    expect(Number(row?.requests)).toBe(12);
    expect(await database.query('SELECT id FROM quota_holds')).toHaveLength(0);
  });

  test('a process that dies mid-request holds its place until the lease ends; it counted nothing', async () => {
    const database = await sharedDatabase();
    const clock = new TestClock();
    const admission = gate(new PgQuotaState(database), clock);
    const key = admission.key(KEY);
    await admission.reserve('v2.filterOptions', key); // never answered
    expect((await admission.rateLimitHeaders(key))['X-RateLimit-Requests-Remaining']).toBe('11');
    await database.query("UPDATE quota_holds SET expires_at = now() - interval '1 second'");
    expect((await admission.rateLimitHeaders(key))['X-RateLimit-Requests-Remaining']).toBe('12');
  });

  test("the living renew their holds' leases; a dead process's holds lapse within a lease and their rows are deleted", async () => {
    const database = await sharedDatabase();
    // A lease of a second, renewed every quarter (the service's: 15 s, every 5 s).
    const lease = { seconds: 1, renewEveryMs: 250 };
    const [dying, living] = [new PgQuotaState(database, lease), new PgQuotaState(database, lease)];
    const one = (): { requests: number; statsRequests: number; results: number } => ({ requests: 1, statsRequests: 0, results: 0 });
    const lost = await dying.hold('2026-11', 'k', one);
    const running = await living.hold('2026-11', 'k', one);
    dying.close(); // killed: it renews nothing and gives nothing back
    expect((await living.usage('2026-11', 'k')).held.requests).toBe(2);
    const deadline = Date.now() + 20_000;
    while ((await living.usage('2026-11', 'k')).held.requests > 1 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
    // Past several leases, the request still running holds its place; the dead one's row is gone.
    await new Promise((done) => setTimeout(done, 1_500));
    expect((await living.usage('2026-11', 'k')).held.requests).toBe(1);
    const rows = await database.query<{ id: string }>('SELECT id FROM quota_holds');
    expect(rows.map((row) => row.id)).toEqual([(running as unknown as { id: string }).id]);
    expect(rows.map((row) => row.id)).not.toContain((lost as unknown as { id: string }).id);
    living.close();
  });
});

describe('group commit: one transaction carries what a process asks for meanwhile', () => {
  test('decisions in one transaction see each other: 20 racing reserves on one process hold exactly the 12 left', async () => {
    const database = await sharedDatabase();
    const clock = new TestClock();
    const lifted: KeysFile = { keys: KEYS.keys, tiers: { tier_2: { ...KEYS.tiers!.tier_2!, burst: 100 } } };
    const admission = new Admission({ engine: NO_ENGINE, keys: new KeyRing(lifted), state: new PgQuotaState(database), now: clock.now, bearer: null });
    const key = admission.key(KEY);
    const held = await Promise.all(Array.from({ length: 20 }, () => admission.reserve('v2.filterOptions', key).then((r) => r, (e: unknown) => e)));
    const admitted = held.filter((r) => !(r instanceof HttpProblem));
    expect(admitted).toHaveLength(12);
    expect(held.filter((r) => r instanceof HttpProblem && r.status === 429)).toHaveLength(8);
    const counted = await Promise.all(admitted.map((r) => admission.count('v2.filterOptions', key, r as Hold, {})));
    // Each count answers with the usage after its transaction: all 12 went in together or in a few groups.
    expect(Math.max(...counted.map((usage) => usage.counted.requests))).toBe(12);
    expect(counted.every((usage) => usage.counted.requests + usage.held.requests <= 12)).toBe(true);
    expect(await database.query('SELECT id FROM quota_holds')).toHaveLength(0);
    const [row] = await database.query<{ requests: string }>('SELECT requests FROM quota_usage');
    expect(row?.requests).toBe('12');
  });

  test('token takes of the moment share the transaction of the holds asked meanwhile', async () => {
    const database = await sharedDatabase();
    const state = new PgQuotaState(database);
    const transactions = jest.spyOn(database, 'transaction');
    const one = (): { requests: number; statsRequests: number; results: number } => ({ requests: 1, statsRequests: 0, results: 0 });
    const [a, b, hold] = await Promise.all([state.takeToken('a', 1, 10, 0), state.takeToken('b', 1, 10, 0), state.hold('2026-11', 'a', one)]);
    expect([a, b, hold.amounts]).toEqual([{ ok: true }, { ok: true }, one()]);
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(await database.query('SELECT slot, tokens FROM token_buckets ORDER BY slot')).toEqual([{ slot: 'a', tokens: 9 }, { slot: 'b', tokens: 9 }]);
  });

  test('a refusal rejects its own request only; a database that fails rejects every request it carried', async () => {
    const database = await sharedDatabase();
    const state = new PgQuotaState(database);
    const refused = new HttpProblem(429, 'no');
    const results = await Promise.allSettled([
      state.hold('2026-11', 'a', () => ({ requests: 1, statsRequests: 0, results: 0 })),
      state.hold('2026-11', 'a', () => {
        throw refused;
      }),
      state.hold('2026-11', 'b', () => ({ requests: 1, statsRequests: 0, results: 5 })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(refused);
    const holdB = (results[2] as PromiseFulfilledResult<Hold>).value;
    expect(holdB.amounts).toEqual({ requests: 1, statsRequests: 0, results: 5 });
    await state.extend(holdB, () => ({ requests: 0, statsRequests: 0, results: 3 }));
    expect(holdB.amounts.results).toBe(8);
    expect((await state.usage('2026-11', 'b')).held).toEqual({ requests: 1, statsRequests: 0, results: 8 });
    await database.close();
    opened.splice(opened.indexOf(database), 1);
    const after = await Promise.allSettled([state.count('b', holdB, '2026-11', { requests: 1, statsRequests: 0, results: 2 }), state.usage('2026-11', 'a')]);
    expect(after.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
