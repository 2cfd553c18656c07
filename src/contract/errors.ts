/**
 * The errors of the three interfaces, as every layer names them: the engine and the server raise them,
 * the client maps responses to them, the spreadsheet hosts show them. Each says what went wrong in words
 * a spreadsheet user can act on and carries the structured facts (status, 422 detail, reset time, quota).
 * Errors of the transport itself (no response, a client without a base URL) are the client's.
 */
import type { ValidationErrorItem } from './validation.js';

export interface Quota {
  requestsLimit: number | null;
  requestsRemaining: number | null;
  resultsLimit: number | null;
  resultsRemaining: number | null;
  /** ISO 8601 UTC instant at which the counters reset. */
  resetAt: string | null;
}


export type OrgIndexErrorKind =
  | 'validation'
  | 'auth'
  | 'rate_limit'
  | 'server'
  | 'network'
  | 'timeout'
  | 'http'
  | 'service'
  | 'response_format'
  | 'configuration';

/** An error whose `name` is its class's (logs and stack traces say which one it is): the base of the project's own error classes. */
export class NamedError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * What a caught value says: its message when it is an Error, its text otherwise (a thrown string, a
 * rejected promise's reason). An Error of another realm (a vm context, a worker) fails `instanceof`, so
 * any object with a string `message` counts.
 */
export function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return String(error);
}

export class OrgIndexError extends Error {
  readonly kind: OrgIndexErrorKind;
  /** HTTP status, when a response arrived. */
  readonly status: number | null;
  readonly quota: Quota | null;

  constructor(kind: OrgIndexErrorKind, message: string, status: number | null = null, quota: Quota | null = null) {
    super(message);
    this.name = 'OrgIndexError';
    this.kind = kind;
    this.status = status;
    this.quota = quota;
  }
}

/** 422 from the server, or the same body produced locally before sending (then `status` is null). */
export class ValidationError extends OrgIndexError {
  readonly detail: ValidationErrorItem[];
  constructor(detail: ValidationErrorItem[], status: number | null, quota: Quota | null = null) {
    super('validation', summarizeDetail(detail), status, quota);
    this.name = 'ValidationError';
    this.detail = detail;
  }
}

/** 401 (missing or invalid credentials) or 403 (not allowed for this key's tier). */
export class AuthError extends OrgIndexError {
  constructor(message: string, status: 401 | 403, quota: Quota | null = null) {
    super('auth', message, status, quota);
    this.name = 'AuthError';
  }
}

/** The limit a 429 reached: the request rate (it lifts in moments) or a monthly quota (it lifts when the month resets). */
export type ReachedLimit = 'rate' | 'quota';

/** A quota with its requests or its results used up (X-RateLimit-*-Remaining: 0): a 429 that carries it is the quota's. */
const quotaUsedUp = (quota: Quota | null): boolean => quota !== null && (quota.requestsRemaining === 0 || quota.resultsRemaining === 0);

/** 429 after the retries the policy allows; `resetAt` says when asking again makes sense. */
export class RateLimitError extends OrgIndexError {
  readonly resetAt: string | null;
  /** Which limit was reached: read from the response's quota, unless the caller knows it (an error rebuilt from its parts). */
  readonly limit: ReachedLimit;
  constructor(message: string, resetAt: string | null, quota: Quota | null = null, limit: ReachedLimit = quotaUsedUp(quota) ? 'quota' : 'rate') {
    super('rate_limit', message, 429, quota);
    this.name = 'RateLimitError';
    this.resetAt = resetAt;
    this.limit = limit;
  }
}

/** 5xx after retries. */
export class ServerError extends OrgIndexError {
  constructor(message: string, status: number, quota: Quota | null = null) {
    super('server', message, status, quota);
    this.name = 'ServerError';
  }
}


/** Any other non-2xx status (400, 404, 405 …), with the server's message. */
export class HttpError extends OrgIndexError {
  constructor(message: string, status: number, quota: Quota | null = null) {
    super('http', message, status, quota);
    this.name = 'HttpError';
  }
}

/** A language-processing error envelope (`success: false`) inside a 2xx response. */
export class ServiceError extends OrgIndexError {
  constructor(message: string, status: number, quota: Quota | null = null) {
    super('service', message, status, quota);
    this.name = 'ServiceError';
  }
}

/** A 2xx body that is not JSON or does not match the contract. */
export class ResponseFormatError extends OrgIndexError {
  constructor(message: string, status: number, quota: Quota | null = null) {
    super('response_format', message, status, quota);
    this.name = 'ResponseFormatError';
  }
}


/** One line per 422 item: `similar_to.1.boost: List should have at most 5 items …`. */
export function summarizeDetail(detail: readonly ValidationErrorItem[]): string {
  if (detail.length === 0) return 'The request is not valid';
  return detail
    .map((item) => {
      const where = item.loc.filter((segment, i) => !(i === 0 && ['body', 'query', 'path'].includes(String(segment))));
      return where.length > 0 ? `${where.join('.')}: ${item.msg}` : item.msg;
    })
    .join('; ');
}
