/**
 * The QuotaState of servers that share a PostgreSQL database: token buckets, holds and counts in its
 * tables, so that any number of processes admit and count as one service.
 *
 * Group commit: a process gathers the token takes, holds, counts, releases and usage reads its requests
 * ask for while its previous transaction runs, and applies them all in the next one — a constant handful of
 * statements however many requests are waiting, instead of a transaction each. Every operation settles
 * when the transaction that carried it commits, so a count is durable before its answer is sent.
 *
 * A bucket's takes are serialised across processes by its row's lock (buckets locked in one order); within
 * a transaction they are made in the order asked, by the rule of limits.ts.
 *
 * Decisions on a key (holds and their extensions) are serialised across processes by transaction-scoped
 * advisory locks on the key's month and id, taken in one order; within a transaction they run in the
 * order they were asked, each seeing what the ones before it held. A count needs no lock: it moves a
 * hold into the counted usage in one commit, which any reader sees whole. A hold lives until its request
 * is counted or given back, or until its lease ends: the process that made it renews the leases of its
 * requests in flight every few seconds, so a process killed mid-request (which gives nothing back) holds
 * its places for at most a lease, and every renewal deletes the holds whose lease has ended.
 *
 * Waits are bounded: an operation still queued when the database's work time has passed is refused
 * (DatabaseUnavailable, a 503) rather than left waiting behind a transaction that does not come back.
 */
import type pg from 'pg';
import { messageOf } from '../../contract/errors.js';
import { DatabaseUnavailable, type Database } from './database.js';
import { fullBucket, takeToken, type BucketLevel } from '../limits.js';
import { addUsage, noUsage, type Usage } from '../quota-ledger.js';
import { slotOf, type Hold, type HoldDecision, type MonthUsage, type QuotaState, type TokenTaken } from '../quota-state.js';

/** How long a hold lives without renewal: a few renewals, so that one missed renewal lapses nothing. */
export const HOLD_LEASE_SECONDS = 15;
/** How often a process renews the leases of its holds (and deletes lapsed ones). */
export const LEASE_RENEWAL_MS = 5_000;

/** Deadlock or serialisation failure: the transaction is run again (its decisions are re-made). */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

interface PgHold extends Hold {
  id: string;
}

interface UsageRow {
  month: string;
  key_id: string;
  requests: string;
  stats_requests: string;
  results: string;
  held_requests: string;
  held_stats_requests: string;
  held_results: string;
}

interface Settled<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

type Operation =
  | ({ kind: 'token'; slot: string; ratePerSecond: number; burst: number; at: number } & Settled<TokenTaken>)
  | ({ kind: 'hold'; month: string; keyId: string; decide: HoldDecision } & Settled<Hold>)
  | ({ kind: 'extend'; hold: PgHold; decide: HoldDecision } & Settled<undefined>)
  | ({ kind: 'count'; month: string; keyId: string; holdId: string | null; used: Usage } & Settled<MonthUsage>)
  | ({ kind: 'usage'; month: string; keyId: string } & Settled<MonthUsage>);

/** What a transaction's decisions came to: per operation, its outcome (settled once the transaction commits). */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Applied {
  outcomes: Outcome[];
  /** What changes in this process's objects once the transaction has committed. */
  committed: (() => void)[];
}

/** The counted and held usage of these keys' months, read in one statement (one snapshot). */
async function readUsage(client: pg.PoolClient, slots: readonly { month: string; keyId: string }[]): Promise<Map<string, MonthUsage>> {
  const { rows } = await client.query<UsageRow>(
    `SELECT s.month, s.key_id,
            coalesce(u.requests, 0) AS requests, coalesce(u.stats_requests, 0) AS stats_requests, coalesce(u.results, 0) AS results,
            coalesce(h.requests, 0) AS held_requests, coalesce(h.stats_requests, 0) AS held_stats_requests, coalesce(h.results, 0) AS held_results
     FROM unnest($1::text[], $2::text[]) AS s(month, key_id)
     LEFT JOIN quota_usage u ON u.month = s.month AND u.key_id = s.key_id
     LEFT JOIN LATERAL (
       SELECT sum(requests) AS requests, sum(stats_requests) AS stats_requests, sum(results) AS results
       FROM quota_holds WHERE month = s.month AND key_id = s.key_id AND expires_at > now()
     ) h ON true`,
    [slots.map((slot) => slot.month), slots.map((slot) => slot.keyId)],
  );
  const usage = new Map<string, MonthUsage>();
  for (const row of rows) {
    usage.set(slotOf(row.month, row.key_id), {
      counted: { requests: Number(row.requests), statsRequests: Number(row.stats_requests), results: Number(row.results) },
      held: { requests: Number(row.held_requests), statsRequests: Number(row.held_stats_requests), results: Number(row.held_results) },
    });
  }
  return usage;
}

/** Each distinct month and key once, in a fixed order (locks and upserts in one order cannot deadlock). */
function distinctSlots(items: readonly { month: string; keyId: string }[]): { month: string; keyId: string }[] {
  const slots = new Map<string, { month: string; keyId: string }>();
  for (const { month, keyId } of items) slots.set(slotOf(month, keyId), { month, keyId });
  return [...slots.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, slot]) => slot);
}

const usageOf = (usage: Map<string, MonthUsage>, month: string, keyId: string): MonthUsage => usage.get(slotOf(month, keyId)) ?? { counted: noUsage(), held: noUsage() };

export class PgQuotaState implements QuotaState {
  private queue: Operation[] = [];
  /** Holds given back since the last transaction (deleted in the next one). */
  private released: string[] = [];
  private running = false;
  /** This process's holds not yet counted or given back: their leases are renewed. */
  private readonly live = new Set<string>();
  /** The timer that refuses a queued operation still waiting (cleared when a transaction takes it). */
  private readonly queueTimers = new Map<Operation, ReturnType<typeof setTimeout>>();
  private renewalDue = false;
  private readonly renewal: ReturnType<typeof setInterval>;

  private readonly leaseSeconds: number;

  constructor(
    private readonly database: Database,
    lease: { seconds: number; renewEveryMs: number } = { seconds: HOLD_LEASE_SECONDS, renewEveryMs: LEASE_RENEWAL_MS },
  ) {
    this.leaseSeconds = lease.seconds;
    this.renewal = setInterval(() => {
      this.renewalDue = true;
      this.flushSoon();
    }, lease.renewEveryMs);
    this.renewal.unref();
  }

  /** Stops renewing (the holds left lapse with their leases). */
  close(): void {
    clearInterval(this.renewal);
  }

  takeToken(slot: string, ratePerSecond: number, burst: number, at: number): Promise<TokenTaken> {
    return new Promise((resolve, reject) => { this.enqueue({ kind: 'token', slot, ratePerSecond, burst, at, resolve, reject }); });
  }

  hold(month: string, keyId: string, decide: HoldDecision): Promise<Hold> {
    return new Promise((resolve, reject) => { this.enqueue({ kind: 'hold', month, keyId, decide, resolve, reject }); });
  }

  extend(hold: Hold, decide: HoldDecision): Promise<void> {
    return new Promise((resolve, reject) => { this.enqueue({ kind: 'extend', hold: hold as PgHold, decide, resolve, reject }); });
  }

  release(hold: Hold): void {
    if (hold.released) return;
    hold.released = true;
    const { id } = hold as PgHold;
    this.live.delete(id);
    // Deleted with the next transaction; a hold whose delete is lost lapses with its lease.
    this.released.push(id);
    this.flushSoon();
  }

  count(keyId: string, hold: Hold | null, month: string, used: Usage): Promise<MonthUsage> {
    const holdId = hold && !hold.released ? (hold as PgHold).id : null;
    if (hold) hold.released = true;
    if (holdId !== null) this.live.delete(holdId);
    return new Promise((resolve, reject) => { this.enqueue({ kind: 'count', month, keyId, holdId, used, resolve, reject }); });
  }

  usage(month: string, keyId: string): Promise<MonthUsage> {
    return new Promise((resolve, reject) => { this.enqueue({ kind: 'usage', month, keyId, resolve, reject }); });
  }

  private enqueue(operation: Operation): void {
    this.queue.push(operation);
    // Refused if still queued when a transaction's time has passed: the one ahead of it is not coming back.
    const timer = setTimeout(() => {
      this.queueTimers.delete(operation);
      const at = this.queue.indexOf(operation);
      if (at < 0) return;
      this.queue.splice(at, 1);
      operation.reject(new DatabaseUnavailable(`no turn at the database within ${String(this.database.timeouts.workMs / 1000)} s`));
    }, this.database.timeouts.workMs);
    this.queueTimers.set(operation, timer);
    this.flushSoon();
  }

  /** Starts a transaction for what is waiting unless one runs (it takes what waits when it ends). */
  private flushSoon(): void {
    if (this.running) return;
    this.running = true;
    // On the next turn, so that what this turn asks for goes in the same transaction.
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.released.length > 0 || this.renewalDue) {
      const batch = this.queue;
      const released = this.released;
      const renew = this.renewalDue ? [...this.live] : null;
      for (const operation of batch) {
        clearTimeout(this.queueTimers.get(operation));
        this.queueTimers.delete(operation);
      }
      this.queue = [];
      this.released = [];
      this.renewalDue = false;
      let applied: Applied | null = null;
      let failure: unknown = null;
      for (let attempt = 1; attempt <= ATTEMPTS && applied === null; attempt++) {
        try {
          applied = await this.database.transaction((client) => this.apply(client, batch, released, renew));
        } catch (error) {
          failure = error;
          if (!RETRYABLE.has((error as { code?: string }).code ?? '')) break;
          // Contention that outlasts the retries is the database not answering for now: a 503 with
          // Retry-After, and the rate limit falls back to this process's buckets, as when it is down.
          if (attempt === ATTEMPTS) failure = new DatabaseUnavailable(`the quota transaction met contention ${ATTEMPTS} times: ${messageOf(error)}`, { cause: error });
        }
      }
      // Deletes that did not reach the database lapse with their leases; nothing else is kept to retry.
      for (const change of applied?.committed ?? []) change();
      batch.forEach((operation, i) => {
        const outcome = applied?.outcomes[i];
        if (!outcome) operation.reject(failure);
        else if (outcome.ok) (operation.resolve as (value: unknown) => void)(outcome.value);
        else operation.reject(outcome.error);
      });
    }
    this.running = false;
  }

  /** One transaction: leases, token takes, decisions under their keys' locks, deletes and counts, then usage reads. */
  private async apply(client: pg.PoolClient, batch: readonly Operation[], released: readonly string[], renew: readonly string[] | null): Promise<Applied> {
    const applied: Applied = { outcomes: new Array<Outcome>(batch.length), committed: [] };
    if (renew) await this.renewLeases(client, renew);
    await takeTokens(client, batch, applied.outcomes);
    await this.decideHolds(client, batch, applied);
    await countUsed(client, batch, released);
    await readUsageAfter(client, batch, applied.outcomes);
    return applied;
  }

  /** The leases of this process's holds renewed, and every lapsed hold deleted. */
  private async renewLeases(client: pg.PoolClient, renew: readonly string[]): Promise<void> {
    if (renew.length > 0) await client.query('UPDATE quota_holds SET expires_at = now() + make_interval(secs => $2) WHERE id = ANY($1::bigint[])', [renew, this.leaseSeconds]);
    await client.query('DELETE FROM quota_holds WHERE expires_at <= now()');
  }

  /** The holds and extensions asked for, decided under their keys' locks, in the order asked. */
  private async decideHolds(client: pg.PoolClient, batch: readonly Operation[], applied: Applied): Promise<void> {
    const decisions = batch.flatMap((operation, i): Decision[] => {
      if (operation.kind === 'hold') return [{ i, month: operation.month, keyId: operation.keyId, operation }];
      if (operation.kind === 'extend') return [{ i, month: operation.hold.month, keyId: operation.hold.keyId, operation }];
      return [];
    });
    if (decisions.length === 0) return;
    const slots = distinctSlots(decisions);
    await client.query('SELECT pg_advisory_xact_lock(h) FROM (SELECT hashtext(t) AS h FROM unnest($1::text[]) AS t GROUP BY 1 ORDER BY 1) AS locks', [
      slots.map(({ month, keyId }) => `orgindex quota ${month} ${keyId}`),
    ]);
    const { inserts, extensions } = decide(decisions, await readUsage(client, slots), applied.outcomes);
    await this.insertHolds(client, inserts, applied);
    await extendHolds(client, extensions, applied.committed);
  }

  /** The new holds, each with its lease; their ids are the holds' outcomes. */
  private async insertHolds(client: pg.PoolClient, inserts: readonly NewHold[], applied: Applied): Promise<void> {
    if (inserts.length === 0) return;
    // Ids are given in insertion order, which follows `ord`: the i-th smallest id is the i-th row.
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO quota_holds (month, key_id, requests, stats_requests, results, expires_at)
       SELECT month, key_id, requests, stats_requests, results, now() + make_interval(secs => $6)
       FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[]) WITH ORDINALITY AS t(month, key_id, requests, stats_requests, results, ord)
       ORDER BY ord
       RETURNING id`,
      [inserts.map((h) => h.month), inserts.map((h) => h.keyId), inserts.map((h) => h.amounts.requests), inserts.map((h) => h.amounts.statsRequests), inserts.map((h) => h.amounts.results), this.leaseSeconds],
    );
    const ids = rows.map((row) => BigInt(row.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    inserts.forEach(({ i, month, keyId, amounts }, n) => {
      const hold: PgHold = { id: String(ids[n]), month, keyId, amounts: { ...amounts }, released: false };
      applied.outcomes[i] = { ok: true, value: hold };
      applied.committed.push(() => this.live.add(hold.id));
    });
  }
}

type Decision = { i: number; month: string; keyId: string; operation: Extract<Operation, { kind: 'hold' | 'extend' }> };
type NewHold = { i: number; month: string; keyId: string; amounts: Usage };
/** Hold id → the hold and what the transaction adds to it. */
type Extensions = Map<string, { hold: PgHold; total: Usage }>;

/**
 * The batch's token takes: each bucket created full or locked as it is, the takes made in the order asked
 * (by limits.ts's rule), the levels written back. A refused take is an outcome too (a TokenTaken saying when).
 */
async function takeTokens(client: pg.PoolClient, batch: readonly Operation[], outcomes: Outcome[]): Promise<void> {
  const takes = batch.flatMap((operation, i) => (operation.kind === 'token' ? [{ i, operation }] : []));
  if (takes.length === 0) return;
  const created = new Map<string, BucketLevel>();
  for (const { operation } of takes) if (!created.has(operation.slot)) created.set(operation.slot, fullBucket(operation.burst, operation.at));
  // Inserted full when new; an existing row is locked by the update that changes nothing, and returns its level.
  // In one order (ORDER BY), so that two processes locking the same buckets cannot deadlock.
  const { rows } = await client.query<{ slot: string; tokens: number; updated_ms: string }>(
    `INSERT INTO token_buckets AS b (slot, tokens, updated_ms)
     SELECT * FROM unnest($1::text[], $2::double precision[], $3::bigint[]) ORDER BY 1
     ON CONFLICT (slot) DO UPDATE SET tokens = b.tokens
     RETURNING slot, tokens, updated_ms`,
    bucketColumns(created),
  );
  const levels = new Map(rows.map((row): [string, BucketLevel] => [row.slot, { tokens: row.tokens, updatedMs: Number(row.updated_ms) }]));
  for (const { i, operation } of takes) {
    const level = levels.get(operation.slot) ?? fullBucket(operation.burst, operation.at);
    levels.set(operation.slot, level);
    outcomes[i] = { ok: true, value: takeToken(level, operation.ratePerSecond, operation.burst, operation.at) };
  }
  await client.query(
    `UPDATE token_buckets AS b SET tokens = t.tokens, updated_ms = t.updated_ms
     FROM unnest($1::text[], $2::double precision[], $3::bigint[]) AS t(slot, tokens, updated_ms) WHERE b.slot = t.slot`,
    bucketColumns(levels),
  );
}

/** Buckets as the columns slot, tokens and updated_ms (unnest's arrays). */
function bucketColumns(levels: Map<string, BucketLevel>): [string[], number[], number[]] {
  const entries = [...levels];
  return [entries.map(([slot]) => slot), entries.map(([, level]) => level.tokens), entries.map(([, level]) => level.updatedMs)];
}

/**
 * Each decision on its key's usage, in the order asked: the ones after it in the transaction see what it
 * holds. A refusal is its outcome; an extension succeeds here (written by extendHolds); a new hold gets
 * its outcome once inserted.
 */
function decide(decisions: readonly Decision[], usage: Map<string, MonthUsage>, outcomes: Outcome[]): { inserts: NewHold[]; extensions: Extensions } {
  const inserts: NewHold[] = [];
  const extensions: Extensions = new Map();
  for (const { i, month, keyId, operation } of decisions) {
    const now = usageOf(usage, month, keyId);
    let amounts: Usage;
    try {
      amounts = operation.decide({ counted: { ...now.counted }, held: { ...now.held } });
    } catch (refusal) {
      outcomes[i] = { ok: false, error: refusal };
      continue;
    }
    addUsage(now.held, amounts);
    usage.set(slotOf(month, keyId), now);
    if (operation.kind === 'hold') inserts.push({ i, month, keyId, amounts });
    else {
      const entry = extensions.get(operation.hold.id) ?? { hold: operation.hold, total: noUsage() };
      addUsage(entry.total, amounts);
      extensions.set(operation.hold.id, entry);
      outcomes[i] = { ok: true, value: undefined };
    }
  }
  return { inserts, extensions };
}

/** What the extensions add to their holds, in one statement; the holds' amounts follow once committed. */
async function extendHolds(client: pg.PoolClient, extensions: Extensions, committed: (() => void)[]): Promise<void> {
  if (extensions.size === 0) return;
  const entries = [...extensions.values()];
  await client.query(
    `UPDATE quota_holds AS h SET requests = h.requests + d.requests, stats_requests = h.stats_requests + d.stats_requests, results = h.results + d.results
     FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[]) AS d(id, requests, stats_requests, results) WHERE h.id = d.id`,
    [entries.map((e) => e.hold.id), entries.map((e) => e.total.requests), entries.map((e) => e.total.statsRequests), entries.map((e) => e.total.results)],
  );
  for (const { hold, total } of entries) committed.push(() => { addUsage(hold.amounts, total); });
}

/** The holds given back or counted deleted, and the counts added to their keys' months (one upsert). */
async function countUsed(client: pg.PoolClient, batch: readonly Operation[], released: readonly string[]): Promise<void> {
  const counts = batch.flatMap((operation) => (operation.kind === 'count' ? [operation] : []));
  const deleted = [...released, ...counts.flatMap((count) => (count.holdId === null ? [] : [count.holdId]))];
  if (deleted.length > 0) await client.query('DELETE FROM quota_holds WHERE id = ANY($1::bigint[])', [deleted]);
  if (counts.length === 0) return;
  const totals = new Map<string, Usage>();
  for (const count of counts) {
    const slot = slotOf(count.month, count.keyId);
    const total = totals.get(slot) ?? noUsage();
    addUsage(total, count.used);
    totals.set(slot, total);
  }
  const slots = distinctSlots(counts);
  const added = slots.map(({ month, keyId }) => totals.get(slotOf(month, keyId)) ?? noUsage());
  await client.query(
    `INSERT INTO quota_usage AS u (month, key_id, requests, stats_requests, results)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
     ON CONFLICT (month, key_id) DO UPDATE
       SET requests = u.requests + excluded.requests, stats_requests = u.stats_requests + excluded.stats_requests, results = u.results + excluded.results`,
    [slots.map((s) => s.month), slots.map((s) => s.keyId), added.map((u) => u.requests), added.map((u) => u.statsRequests), added.map((u) => u.results)],
  );
}

/** The usage that counts and usage reads answer with, read after the counts (one snapshot). */
async function readUsageAfter(client: pg.PoolClient, batch: readonly Operation[], outcomes: Outcome[]): Promise<void> {
  const reads = batch.flatMap((operation, i) => (operation.kind === 'count' || operation.kind === 'usage' ? [{ i, month: operation.month, keyId: operation.keyId }] : []));
  if (reads.length === 0) return;
  const usage = await readUsage(client, distinctSlots(reads));
  for (const { i, month, keyId } of reads) outcomes[i] = { ok: true, value: usageOf(usage, month, keyId) };
}
