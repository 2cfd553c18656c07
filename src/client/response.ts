/** Interpreting an HTTP response of an endpoint call: pure, status and body to a value or a typed error. */
import type { Endpoint } from '../contract/endpoints.js';
import { LanguageErrorSchema } from '../contract/language.js';
import { ValidationErrorBodySchema } from '../contract/validation.js';
import { AuthError, HttpError, type OrgIndexError, RateLimitError, ResponseFormatError, ServerError, ServiceError, ValidationError } from '../contract/errors.js';
import type { HttpResponse } from './http.js';
import { parseQuota, retryAtIso } from './quota.js';
import { type Quota } from '../contract/errors.js';

export type Interpretation<T> =
  | { ok: true; body: T; status: number; quota: Quota | null }
  | { ok: false; error: OrgIndexError };

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The human message of an error body: `detail` (string), `error`, `message`, or the status line. */
function messageOf(body: unknown, status: number): string {
  if (body !== null && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    for (const key of ['detail', 'error', 'message']) {
      const value = record[key];
      if (typeof value === 'string' && value.trim() !== '') return value;
    }
  }
  return `The server answered HTTP ${status}`;
}

function rateLimitMessage(resetAt: string | null, body: unknown): string {
  const base = messageOf(body, 429).startsWith('The server answered') ? 'Rate limit or quota exceeded' : messageOf(body, 429);
  return resetAt ? `${base}; resets at ${resetAt}` : base;
}

/** Maps one response to the endpoint's parsed 200 body or a typed error. Never throws. */
export function interpretResponse<T>(endpoint: Endpoint, response: HttpResponse, nowMs: number): Interpretation<T> {
  const { status } = response;
  const quota = parseQuota(response.headers, nowMs);
  const json = parseJson(response.body);
  const body = json.ok ? json.value : undefined;

  if (status >= 200 && status < 300) {
    if (!json.ok) return { ok: false, error: new ResponseFormatError(`The ${endpoint.path} response is not JSON`, status, quota) };
    const languageError = LanguageErrorSchema.safeParse(body);
    if (languageError.success) {
      const { message, error } = languageError.data;
      return { ok: false, error: new ServiceError(error ? `${message}: ${error}` : message, status, quota) };
    }
    const parsed = endpoint.response.safeParse(body);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const where = first ? `${first.path.join('.') || '(body)'}: ${first.message}` : 'unexpected shape';
      return { ok: false, error: new ResponseFormatError(`The ${endpoint.path} response does not match the contract (${where})`, status, quota) };
    }
    return { ok: true, body: parsed.data as T, status, quota };
  }
  if (status === 422) {
    const detail = ValidationErrorBodySchema.safeParse(body);
    if (detail.success) return { ok: false, error: new ValidationError(detail.data.detail, status, quota) };
    return { ok: false, error: new HttpError(messageOf(body, status), status, quota) };
  }
  if (status === 401 || status === 403) return { ok: false, error: new AuthError(messageOf(body, status), status, quota) };
  if (status === 429) {
    const resetAt = retryAtIso(response.headers, nowMs);
    return { ok: false, error: new RateLimitError(rateLimitMessage(resetAt, body), resetAt, quota) };
  }
  if (status >= 500) return { ok: false, error: new ServerError(messageOf(body, status), status, quota) };
  return { ok: false, error: new HttpError(messageOf(body, status), status, quota) };
}
