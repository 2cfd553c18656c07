/**
 * The sans-IO vocabulary of the client: a request is data, a response is data, and the effects an
 * operation needs (send a request, wait) are yielded to a driver that owns the I/O.
 */

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** JSON text, when the endpoint takes a body. */
  body?: string;
  /** Per-attempt time limit; transports that cannot enforce one ignore it. */
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** A request that produced no HTTP response at all. */
export interface TransportFailure {
  type: 'network' | 'timeout';
  message: string;
}

export type HttpOutcome = { kind: 'response'; response: HttpResponse } | { kind: 'failure'; failure: TransportFailure };

/** What an operation asks its driver to do. */
export type Effect = { type: 'http'; request: HttpRequest } | { type: 'sleep'; ms: number };

/** An operation: yields effects, receives the outcome of each `http` effect, returns its result. */
export type Operation<T> = Generator<Effect, T, HttpOutcome | undefined>;

/** Lower-cases header names (transports use it so the core can look headers up by lower-case name). */
export function lowerCaseHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const entries = headers;
  const out: Record<string, string> = {};
  for (const [name, value] of entries) out[name.toLowerCase()] = value;
  return out;
}
