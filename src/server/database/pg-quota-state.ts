/**
 * The QuotaState of servers that share a PostgreSQL database: token buckets, holds and counts in its
 * tables, so that any number of processes admit and count as one service. A key's decisions are
 * serialised by a transaction-scoped advisory lock on its month and id; a count is durable when its
 * transaction commits. A hold lives until its request is counted or given back, or until its lease ends
 * (a process killed mid-request gives nothing back: its holds lapse).
 */
import type pg from 'pg';
import type { Database } from './database.js';
import type { Hold, HoldDecision, MonthUsage, QuotaState, TokenTaken, Usage } from '../quota-state.js';

/** Longer than any request may run (the request timeout is 30 s by default). */
const HOLD_LEASE_SECONDS = 300;

interface PgHold extends Hold {
  id: string;
}

interface UsageRow {
  requests: string;
  stats_requests: string;
  results: string;
}

const usageOf = (row: UsageRow | undefined): Usage => ({
  requests: Number(row?.requests ?? 0),
  statsRequests: Number(row?.stats_requests ?? 0),
  results: Number(row?.results ?? 0),
});

type Query = (text: string, values: unknown[]) => Promise<UsageRow[]>;

/** In a transaction: its client's queries. */
const inTransaction = (client: pg.PoolClient): Query => async (text, values) => (await client.query<UsageRow>(text, values)).rows;

async function readUsage(query: Query, month: string, keyId: string): Promise<MonthUsage> {
  const [counted] = await query('SELECT requests, stats_requests, results FROM quota_usage WHERE month = $1 AND key_id = $2', [month, keyId]);
  const [held] = await query(
    `SELECT coalesce(sum(requests), 0) AS requests, coalesce(sum(stats_requests), 0) AS stats_requests, coalesce(sum(results), 0) AS results
     FROM quota_holds WHERE month = $1 AND key_id = $2 AND expires_at > now()`,
    [month, keyId],
  );
  return { counted: usageOf(counted), held: usageOf(held) };
}

/** The key's lock for this transaction. */
const lockKey = (client: pg.PoolClient, month: string, keyId: string): Promise<unknown> =>
  client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`orgindex quota ${month} ${keyId}`]);

export class PgQuotaState implements QuotaState {
  constructor(private readonly database: Database) {}

  async takeToken(slot: string, ratePerSecond: number, burst: number, at: number): Promise<TokenTaken> {
    // Refilled to `at` and one token taken, in one statement; no row back when less than one is there.
    const taken = await this.database.query(
      `INSERT INTO token_buckets AS b (slot, tokens, updated_ms) VALUES ($1, $3::double precision - 1, $4)
       ON CONFLICT (slot) DO UPDATE
         SET tokens = least($3, b.tokens + greatest(0, $4 - b.updated_ms) / 1000.0 * $2) - 1, updated_ms = greatest(b.updated_ms, $4)
         WHERE least($3, b.tokens + greatest(0, $4 - b.updated_ms) / 1000.0 * $2) >= 1
       RETURNING tokens`,
      [slot, ratePerSecond, burst, at],
    );
    if (taken.length > 0) return { ok: true };
    const [row] = await this.database.query<{ tokens: number; updated_ms: string }>('SELECT tokens, updated_ms FROM token_buckets WHERE slot = $1', [slot]);
    const available = Math.min(burst, (row?.tokens ?? 0) + (Math.max(0, at - Number(row?.updated_ms ?? at)) / 1000) * ratePerSecond);
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - available) / ratePerSecond)) };
  }

  hold(month: string, keyId: string, decide: HoldDecision): Promise<Hold> {
    return this.database.transaction(async (client) => {
      await lockKey(client, month, keyId);
      const amounts = decide(await readUsage(inTransaction(client), month, keyId));
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO quota_holds (month, key_id, requests, stats_requests, results, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)) RETURNING id`,
        [month, keyId, amounts.requests, amounts.statsRequests, amounts.results, HOLD_LEASE_SECONDS],
      );
      const hold: PgHold = { id: rows[0]?.id ?? '', month, keyId, amounts: { ...amounts }, released: false };
      return hold;
    });
  }

  extend(hold: Hold, decide: HoldDecision): Promise<void> {
    return this.database.transaction(async (client) => {
      await lockKey(client, hold.month, hold.keyId);
      const more = decide(await readUsage(inTransaction(client), hold.month, hold.keyId));
      await client.query('UPDATE quota_holds SET requests = requests + $2, stats_requests = stats_requests + $3, results = results + $4 WHERE id = $1', [
        (hold as PgHold).id,
        more.requests,
        more.statsRequests,
        more.results,
      ]);
      hold.amounts.requests += more.requests;
      hold.amounts.statsRequests += more.statsRequests;
      hold.amounts.results += more.results;
    });
  }

  release(hold: Hold): void {
    if (hold.released) return;
    hold.released = true;
    // Best effort: a hold not deleted lapses with its lease.
    this.database.query('DELETE FROM quota_holds WHERE id = $1', [(hold as PgHold).id]).catch(() => undefined);
  }

  count(keyId: string, hold: Hold | null, month: string, used: Usage): Promise<void> {
    const id = hold && !hold.released ? (hold as PgHold).id : null;
    if (hold) hold.released = true;
    return this.database.transaction(async (client) => {
      await lockKey(client, month, keyId);
      if (id !== null) await client.query('DELETE FROM quota_holds WHERE id = $1', [id]);
      await client.query(
        `INSERT INTO quota_usage AS u (month, key_id, requests, stats_requests, results) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (month, key_id) DO UPDATE
           SET requests = u.requests + $3, stats_requests = u.stats_requests + $4, results = u.results + $5`,
        [month, keyId, used.requests, used.statsRequests, used.results],
      );
    });
  }

  usage(month: string, keyId: string): Promise<MonthUsage> {
    return readUsage((text, values) => this.database.query<UsageRow>(text, values), month, keyId);
  }
}
