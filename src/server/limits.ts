/**
 * What a key may do, per tier (spec v2 "Limits"): a token bucket for the request rate, and monthly quotas
 * for requests, /stats requests and returned rows (/search + /fetch). The result quota's values are not in
 * the spec; ours are below and every value can be changed per tier in the keys file.
 */
import * as z from 'zod';

export const TierSchema = z.enum(['tier_1', 'tier_2']);
export type Tier = z.infer<typeof TierSchema>;

export const TierLimitsSchema = z.strictObject({
  /** Steady requests per second (token refill rate). */
  ratePerSecond: z.number().positive(),
  /** Bucket size: requests that may come at once after a quiet spell. */
  burst: z.number().int().min(1),
  monthlyRequests: z.number().int().min(0),
  monthlyStatsRequests: z.number().int().min(0),
  /** Rows returned by /search and /fetch per month. */
  monthlyResults: z.number().int().min(0),
});
export type TierLimits = z.infer<typeof TierLimitsSchema>;

export const DEFAULT_TIER_LIMITS: Readonly<Record<Tier, TierLimits>> = {
  tier_1: { ratePerSecond: 2, burst: 5, monthlyRequests: 10_000, monthlyStatsRequests: 500, monthlyResults: 100_000 },
  tier_2: { ratePerSecond: 5, burst: 10, monthlyRequests: 50_000, monthlyStatsRequests: 5_000, monthlyResults: 1_000_000 },
};

/**
 * A token bucket: `burst` tokens, refilled continuously at `ratePerSecond`; a request takes one. Kept in
 * memory only — a restart refills every bucket, which loses nothing a per-second limit protects.
 */
export class TokenBucket {
  private tokens: number;
  private updated: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.updated = now;
  }

  /** Takes a token at `now` (ms); otherwise how many seconds until one is there (≥ 1, rounded up). */
  take(now: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updated) / 1000) * this.ratePerSecond);
    this.updated = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - this.tokens) / this.ratePerSecond)) };
  }
}

/** The calendar month (UTC) of an instant, as "YYYY-MM": the quota period. */
export function quotaMonth(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** The first instant of the next calendar month (UTC): when the monthly quotas reset. */
export function quotaReset(now: number): Date {
  const date = new Date(now);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}
