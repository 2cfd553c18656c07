/**
 * The counting state behind admission.ts: token buckets, what admitted requests hold in their keys'
 * monthly quotas, and the durable counts. Admission keeps every rule (which quotas a request needs, what a
 * refusal says); a state only makes each decision atomic — it hands the usage to a decision and applies
 * what the decision returns, with nothing in between — and keeps the numbers. This one keeps them in
 * this process (buckets and holds in memory, counts in the quota journal); every method is asynchronous
 * so that a state shared by several processes can answer from elsewhere.
 */
import { fullBucket, takeToken, type BucketLevel, type TokenTaken } from './limits.js';
import { addUsage, noUsage, type QuotaLedger, type Usage } from './quota-ledger.js';

export type { Usage } from './quota-ledger.js';

/** A key's usage of one month: counted (answered) and held (admitted, not answered yet). */
export interface MonthUsage {
  counted: Usage;
  held: Usage;
}

/** What one admitted request holds in its key's quotas of a month until it is counted or given back. */
export interface Hold {
  readonly month: string;
  readonly keyId: string;
  /** What it holds now: a request, a /stats request, and the rows /search and /fetch hold before they run. */
  readonly amounts: Usage;
  /** Given back or counted: releasing again changes nothing. */
  released: boolean;
}

export type { TokenTaken } from './limits.js';

/** A decision on a key's usage: what to hold (it throws to refuse). */
export type HoldDecision = (usage: MonthUsage) => Usage;

export interface QuotaState {
  /** One token from the bucket of `slot` (created full on first use), or how long until there is one. */
  takeToken(slot: string, ratePerSecond: number, burst: number, at: number): Promise<TokenTaken>;
  /** Atomically: the key's usage of the month, and a new hold of what `decide` returns. */
  hold(month: string, keyId: string, decide: HoldDecision): Promise<Hold>;
  /** Atomically: the usage of the hold's key and month, and what `decide` returns added to the hold. */
  extend(hold: Hold, decide: HoldDecision): Promise<void>;
  /** Gives a hold back (an answer without a count); once only. */
  release(hold: Hold): void;
  /**
   * Gives the hold back (admin keys hold none) and counts `used` for the key in `month`; resolves once the
   * count is durable, with the key's usage of the month just after it.
   */
  count(keyId: string, hold: Hold | null, month: string, used: Usage): Promise<MonthUsage>;
  /** A key's usage of a month now. */
  usage(month: string, keyId: string): Promise<MonthUsage>;
}

/** One map key for a key's month (the states' maps of usage). */
export const slotOf = (month: string, keyId: string): string => `${month}\t${keyId}`;

/** Token buckets in this process's memory (a restart refills them, which loses nothing a per-second limit protects). */
export class LocalBuckets implements Pick<QuotaState, 'takeToken'> {
  private readonly buckets = new Map<string, BucketLevel>();

  takeToken(slot: string, ratePerSecond: number, burst: number, at: number): Promise<TokenTaken> {
    let bucket = this.buckets.get(slot);
    if (!bucket) {
      bucket = fullBucket(burst, at);
      this.buckets.set(slot, bucket);
    }
    return Promise.resolve(takeToken(bucket, ratePerSecond, burst, at));
  }
}

/** One process's state: buckets and holds in memory (a restart refills buckets and drops holds), counts in the journal. */
export class LocalQuotaState implements QuotaState {
  private readonly buckets = new LocalBuckets();
  /** month + key id → what its requests in flight hold. */
  private readonly held = new Map<string, Usage>();

  constructor(private readonly ledger: QuotaLedger) {}

  takeToken(slot: string, ratePerSecond: number, burst: number, at: number): Promise<TokenTaken> {
    return this.buckets.takeToken(slot, ratePerSecond, burst, at);
  }

  // Decided and applied in one synchronous step (a refusal thrown by `decide` rejects the promise).
  hold(month: string, keyId: string, decide: HoldDecision): Promise<Hold> {
    return new Promise((resolve) => {
      const amounts = decide(this.now(month, keyId));
      const hold: Hold = { month, keyId, amounts: noUsage(), released: false };
      this.apply(hold, amounts);
      resolve(hold);
    });
  }

  extend(hold: Hold, decide: HoldDecision): Promise<void> {
    return new Promise((resolve) => {
      this.apply(hold, decide(this.now(hold.month, hold.keyId)));
      resolve();
    });
  }

  release(hold: Hold): void {
    if (hold.released) return;
    hold.released = true;
    const slot = slotOf(hold.month, hold.keyId);
    const held = this.held.get(slot);
    if (!held) return;
    addUsage(held, hold.amounts, -1);
    if (held.requests <= 0) this.held.delete(slot);
  }

  async count(keyId: string, hold: Hold | null, month: string, used: Usage): Promise<MonthUsage> {
    // The held place is handed over to the count in one step: record adds it before it awaits the disk.
    if (hold) this.release(hold);
    await this.ledger.record(month, keyId, used);
    return this.now(month, keyId);
  }

  usage(month: string, keyId: string): Promise<MonthUsage> {
    return Promise.resolve(this.now(month, keyId));
  }

  private now(month: string, keyId: string): MonthUsage {
    return { counted: this.ledger.get(month, keyId), held: { ...(this.held.get(slotOf(month, keyId)) ?? noUsage()) } };
  }

  private apply(hold: Hold, amounts: Usage): void {
    const slot = slotOf(hold.month, hold.keyId);
    const held = this.held.get(slot) ?? noUsage();
    addUsage(held, amounts);
    this.held.set(slot, held);
    addUsage(hold.amounts, amounts);
  }
}
