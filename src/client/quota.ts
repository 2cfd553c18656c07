/** Rate-limit and quota headers of a response, as the value the task pane and sidebar display. */

export interface Quota {
  requestsLimit: number | null;
  requestsRemaining: number | null;
  resultsLimit: number | null;
  resultsRemaining: number | null;
  /** ISO 8601 UTC instant at which the counters reset. */
  resetAt: string | null;
}

function headerInt(headers: Record<string, string>, name: string): number | null {
  const raw = headers[name];
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return null;
  return Number(raw);
}

/** Parses an ISO 8601 timestamp (or epoch seconds, as some gateways send) into a normalised ISO string. */
export function parseResetTime(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const value = raw.trim();
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** The quota carried by `X-RateLimit-*` headers, or null when the response carries none. */
export function parseQuota(headers: Record<string, string>): Quota | null {
  const quota: Quota = {
    requestsLimit: headerInt(headers, 'x-ratelimit-requests-limit'),
    requestsRemaining: headerInt(headers, 'x-ratelimit-requests-remaining'),
    resultsLimit: headerInt(headers, 'x-ratelimit-results-limit'),
    resultsRemaining: headerInt(headers, 'x-ratelimit-results-remaining'),
    resetAt: parseResetTime(headers['x-ratelimit-reset']),
  };
  return Object.values(quota).every((v) => v === null) ? null : quota;
}
