/**
 * When to try a request again, as a pure function. Only 429, 5xx and failures without a response are
 * retried; every other 4xx is the caller's to fix. A server-announced wait (`Retry-After`, or the reset of
 * an exhausted quota) is honoured; otherwise capped exponential backoff with jitter. A wait longer than
 * `maxWaitMs` (a monthly quota that resets next month) is not sat out: the error reaches the user at once
 * with the reset time. The quota reset alone never delays a 5xx or a burst-limit 429.
 */
import { retryInstant } from './quota.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest server-announced wait the client sits out before giving up. */
  maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxWaitMs: 30_000 };

export type AttemptOutcome = { kind: 'response'; status: number; headers: Record<string, string> } | { kind: 'failure' };

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

const RETRYABLE_5XX = new Set([500, 502, 503, 504]);

/** Capped exponential backoff with "equal jitter": half fixed, half random, never above the cap. */
export function backoffMs(policy: RetryPolicy, retryIndex: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Decides whether attempt number `retriesSoFar + 1` failed in a retryable way and how long to wait.
 * `nowMs` and `random` are injected so the decision is reproducible in tests.
 */
export function decideRetry(
  policy: RetryPolicy,
  retriesSoFar: number,
  outcome: AttemptOutcome,
  nowMs: number,
  random: () => number,
): RetryDecision {
  if (retriesSoFar >= policy.maxRetries) return { retry: false };
  if (outcome.kind === 'failure') return { retry: true, delayMs: backoffMs(policy, retriesSoFar, random) };
  const { status, headers } = outcome;
  if (status !== 429 && !RETRYABLE_5XX.has(status)) return { retry: false };
  const at = retryInstant(headers, nowMs);
  if (at === null) return { retry: true, delayMs: backoffMs(policy, retriesSoFar, random) };
  const requested = Math.max(0, at - nowMs);
  if (requested > policy.maxWaitMs) return { retry: false };
  // A little spread so that many cells released at the same reset instant do not arrive together.
  return { retry: true, delayMs: Math.ceil(requested + random() * Math.min(250, policy.baseDelayMs)) };
}
