/**
 * How long the server waits on a client. Without limits (Node's `requestTimeout` is 0 under Fastify), a
 * client sending one byte every few seconds keeps its request — and the quota place it holds — forever.
 *
 *   requestTimeout     the whole request, headers and body, from its first byte: 30 s. A 1 MiB body (the
 *                      body limit) needs 35 KB/s to make it; real requests are under 0.5 MB. Only the
 *                      receiving is timed: a long answer (a /v1/qna crawl) is not cut by it.
 *   headersTimeout     the request line and headers: 10 s (they are a few hundred bytes).
 *   keepAliveTimeout   an idle connection between two requests: 5 s (Node's own default). Behind a proxy
 *                      or load balancer that reuses connections, set it above the proxy's idle timeout.
 *   connectionTimeout  a socket without any traffic either way, e.g. a client that stopped reading an
 *                      answer: 60 s, above the longest an answer takes to compute (qna's own deadline).
 * A request or headers timeout is answered 408 and the connection closed (http-edge.ts); the request's
 * quota reservation is released like any unanswered request's. Node checks these two timeouts
 * periodically, at most every second here (its default, 30 s, would let them run up to 30 s late).
 */
import type { ServerOptions as HttpServerOptions } from 'node:http';

export interface ServerTimeouts {
  /** ms to receive a whole request (headers and body). */
  requestTimeout: number;
  /** ms to receive the request line and headers (at most requestTimeout). */
  headersTimeout: number;
  /** ms an idle keep-alive connection stays open. */
  keepAliveTimeout: number;
  /** ms a socket may go without any traffic. */
  connectionTimeout: number;
}

export const DEFAULT_TIMEOUTS: Readonly<ServerTimeouts> = {
  requestTimeout: 30_000,
  headersTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionTimeout: 60_000,
};

/**
 * The defaults with `given` on top, checked. A request timeout below the default headers timeout pulls
 * the headers timeout down with it when that one is not given.
 */
export function resolveTimeouts(given: Partial<ServerTimeouts> = {}): ServerTimeouts {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...given };
  if (given.headersTimeout === undefined) timeouts.headersTimeout = Math.min(timeouts.headersTimeout, timeouts.requestTimeout);
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number of milliseconds ≥ 1, not ${String(value)}`);
  }
  if (timeouts.headersTimeout > timeouts.requestTimeout) {
    throw new Error(`headersTimeout (${timeouts.headersTimeout} ms) may not exceed requestTimeout (${timeouts.requestTimeout} ms)`);
  }
  return timeouts;
}

/** Fastify's server options for these timeouts (Node's headersTimeout and check interval via `http`). */
export function timeoutServerOptions(given?: Partial<ServerTimeouts>): {
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  http: HttpServerOptions;
} {
  const timeouts = resolveTimeouts(given);
  const connectionsCheckingInterval = Math.max(10, Math.min(1_000, Math.floor(timeouts.headersTimeout / 4)));
  return {
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    connectionTimeout: timeouts.connectionTimeout,
    http: { requestTimeout: timeouts.requestTimeout, headersTimeout: timeouts.headersTimeout, keepAliveTimeout: timeouts.keepAliveTimeout, connectionsCheckingInterval },
  };
}
