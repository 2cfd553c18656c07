/**
 * Rate-limit and quota headers of a response: the `Quota` value the task pane and sidebar display, and
 * the one reading of "when may I ask again" that retries and error messages share.
 */
import type { Quota } from '../contract/errors.js';

/** The largest instant a JavaScript Date can hold; beyond it `toISOString` throws. */
const MAX_DATE_MS = 8.64e15;
/** A bare number below this is a delay in seconds (as Retry-After writes it), above it epoch seconds. */
const EPOCH_SECONDS_FLOOR = 1e9;

function headerInt(headers: Record<string, string>, name: string): number | null {
  const raw = headers[name];
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return null;
  return Number(raw);
}

/**
 * Parses a time header into epoch milliseconds: an ISO 8601 or HTTP date, epoch seconds, or a delay in
 * seconds from `nowMs` (small numbers). Null when absent or unreadable.
 */
export function parseInstant(raw: string | undefined, nowMs: number): number | null {
  const value = raw?.trim();
  if (!value) return null;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(value)) {
    const seconds = Number(value);
    ms = seconds < EPOCH_SECONDS_FLOOR ? nowMs + seconds * 1000 : seconds * 1000;
  } else {
    ms = Date.parse(value);
  }
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : null;
}

function toIso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The quota carried by `X-RateLimit-*` headers, or null when the response carries none. */
export function parseQuota(headers: Record<string, string>, nowMs: number): Quota | null {
  const quota: Quota = {
    requestsLimit: headerInt(headers, 'x-ratelimit-requests-limit'),
    requestsRemaining: headerInt(headers, 'x-ratelimit-requests-remaining'),
    resultsLimit: headerInt(headers, 'x-ratelimit-results-limit'),
    resultsRemaining: headerInt(headers, 'x-ratelimit-results-remaining'),
    resetAt: toIso(parseInstant(headers['x-ratelimit-reset'], nowMs)),
  };
  return Object.values(quota).every((v) => v === null) ? null : quota;
}

/** True when the headers say a monthly counter is used up (as opposed to a short burst limit). */
export function quotaExhausted(headers: Record<string, string>): boolean {
  return headerInt(headers, 'x-ratelimit-requests-remaining') === 0 || headerInt(headers, 'x-ratelimit-results-remaining') === 0;
}

/**
 * When asking again makes sense after a 429 or 5xx, in epoch ms: `Retry-After` when sent; otherwise, for
 * an exhausted quota, `X-RateLimit-Reset`. Null when the server did not say.
 */
export function retryInstant(headers: Record<string, string>, nowMs: number): number | null {
  const retryAfter = parseInstant(headers['retry-after'], nowMs);
  if (retryAfter !== null) return retryAfter;
  return quotaExhausted(headers) ? parseInstant(headers['x-ratelimit-reset'], nowMs) : null;
}

/** `retryInstant` as an ISO string, falling back to the quota reset for display. */
export function retryAtIso(headers: Record<string, string>, nowMs: number): string | null {
  return toIso(retryInstant(headers, nowMs) ?? parseInstant(headers['x-ratelimit-reset'], nowMs));
}
