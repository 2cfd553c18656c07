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

export type TokenTaken = { ok: true } | { ok: false; retryAfterSeconds: number };

/** A token bucket's level: `tokens` as of `updatedMs`. */
export interface BucketLevel {
  tokens: number;
  updatedMs: number;
}

/** A bucket nobody has taken from yet: full. */
export const fullBucket = (burst: number, now: number): BucketLevel => ({ tokens: burst, updatedMs: now });

/**
 * The token bucket rule, for every QuotaState: `burst` tokens, refilled continuously at `ratePerSecond`; a
 * request takes one at `now` (ms), or learns how many seconds until one is there (≥ 1, rounded up). Time
 * never runs back for a bucket: one shared by several processes may be asked with a clock a little behind.
 */
export function takeToken(bucket: BucketLevel, ratePerSecond: number, burst: number, now: number): TokenTaken {
  bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.updatedMs) / 1000) * ratePerSecond);
  bucket.updatedMs = Math.max(bucket.updatedMs, now);
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return { ok: true };
  }
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)) };
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

/**
 * How long a caller refused because requests in flight hold the rest of a quota should wait: those
 * requests end within moments, and each either counts or gives its place back.
 */
export const IN_FLIGHT_RETRY_SECONDS = 1;

/** One monthly quota of one key: its limit, the usage counted so far, and what requests in flight hold. */
export interface QuotaUse {
  limit: number;
  counted: number;
  held: number;
}

/**
 * Whether `wanted` more units of a quota (a request: 1; a fetch: a row per domain) can be taken now:
 * - available: counted usage and what requests in flight hold leave room;
 * - held: counted usage alone would leave room — only reservations of requests still in flight stand in
 *   the way, so a retry in a moment may succeed;
 * - exhausted: counted usage alone leaves too little until the quota resets.
 */
export type QuotaStanding = 'available' | 'held' | 'exhausted';

export function quotaStanding(use: QuotaUse, wanted = 1): QuotaStanding {
  if (use.counted + wanted > use.limit) return 'exhausted';
  return use.counted + use.held + wanted > use.limit ? 'held' : 'available';
}

/**
 * What the X-RateLimit-*-Remaining headers say: the units a new request can take now — the limit less
 * counted usage and what requests in flight hold. It is 0 exactly when a new request would be refused.
 */
export function quotaRemaining(use: QuotaUse): number {
  return Math.max(0, use.limit - use.counted - use.held);
}

/** Retry-After of a refusal that lasts until `until` (ms): whole seconds from `now`, rounded up, at least 1. */
export function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/** Retry-After (whole seconds, at least 1) of a quota refusal at `now`: a moment when held, the reset when exhausted. */
export function quotaRetryAfterSeconds(standing: Exclude<QuotaStanding, 'available'>, now: number): number {
  if (standing === 'held') return IN_FLIGHT_RETRY_SECONDS;
  return secondsUntil(quotaReset(now).getTime(), now);
}
