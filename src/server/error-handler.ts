/**
 * Every error becomes JSON `{"detail": …}`: 422 for a contract violation (the FastAPI layout), an
 * HttpProblem's status and headers, 503 with Retry-After when every PIT of the service is live, Fastify's
 * own client errors (400 bad JSON, 413 body too large, 415 not JSON) as they are, 404 for an unknown
 * route, 503 with Retry-After while the shared database or the embedding model (--embedder onnx: or
 * openai:) cannot answer; anything unexpected is a 500 with a fixed message. The cause of a 503 or 500
 * goes to the log, never to the client.
 *
 * v1 and the language routes set a variant in their plugins (a plugin's error handler covers its own
 * routes only): their specs make bad parameters a 400 with a message, and a missing or invalid credential
 * their own status.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../contract/errors.js';
import { legacyMessage, PitCapacityError } from '../engine/v1/v1-service.js';
import { BearerError } from './bearer.js';
import { isUnavailability } from './database/database.js';
import { HttpProblem, retryAfter } from './problem.js';
import { EMBEDDER_RETRY_AFTER_SECONDS, EMBEDDER_UNAVAILABLE_DETAIL, EmbedderUnavailable } from './embedding/query-embedding.js';

/** How soon a caller refused for a database that cannot answer may try again (it usually returns within seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** The answer while the shared database cannot answer: no address, no library's words. */
export const DATABASE_UNAVAILABLE_DETAIL = `Service temporarily unavailable: its database cannot be reached; retry in ${String(DATABASE_RETRY_AFTER_SECONDS)} seconds`;

export interface InterfaceErrorRules {
  /** What a missing or invalid credential answers: 401 on the language routes, 403 on v1. */
  authStatus: 401 | 403;
}

export type ErrorHandler = (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/** The error handler: the common rules, after an interface's own rules when given. */
export function errorHandler(rules: InterfaceErrorRules | null = null): ErrorHandler {
  return (error, request, reply) => {
    if (rules) {
      const message = legacyMessage(error);
      if (message !== null) return reply.code(400).send({ detail: message });
      if (error instanceof BearerError) return reply.code(rules.authStatus).send({ detail: `Invalid token: ${error.message}` });
      if (error instanceof HttpProblem && error.status === 401) return reply.code(rules.authStatus).headers(error.headers).send({ detail: error.detail });
    }
    if (error instanceof ValidationError) return reply.code(422).send({ detail: error.detail });
    if (error instanceof HttpProblem) return reply.code(error.status).headers(error.headers).send({ detail: error.detail });
    // Every PIT the service keeps is live: a capacity limit of the service, not the caller's fault.
    if (error instanceof PitCapacityError) return reply.code(503).headers(retryAfter(error.retryAfterSeconds)).send({ detail: error.message });
    if (isUnavailability(error)) {
      request.log.warn({ err: error, key: request.apiKey?.id }, 'the database cannot answer: 503');
      return reply.code(503).headers(retryAfter(DATABASE_RETRY_AFTER_SECONDS)).send({ detail: DATABASE_UNAVAILABLE_DETAIL });
    }
    if (error instanceof EmbedderUnavailable) {
      request.log.warn({ reason: error.reason, key: request.apiKey?.id }, 'the embedding model did not give the query\'s vectors: 503');
      return reply.code(503).headers(retryAfter(EMBEDDER_RETRY_AFTER_SECONDS)).send({ detail: EMBEDDER_UNAVAILABLE_DETAIL });
    }
    if ('code' in error && error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const type = request.headers['content-type'] ?? 'none';
      return reply.code(415).send({ detail: `Unsupported media type (${type}): send the body as JSON with content-type application/json` });
    }
    const status = 'statusCode' in error ? error.statusCode : undefined;
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own client errors: bad JSON (400), body too large (413), not JSON (415).
      return reply.code(status).send({ detail: error.message });
    }
    request.log.error({ err: error, key: request.apiKey?.id }, 'unexpected error');
    return reply.code(500).send({ detail: 'Internal Server Error' });
  };
}

/** No route for the method and path: a 404 naming them (without the query string). */
export function notFound(request: FastifyRequest, reply: FastifyReply): void {
  void reply.code(404).send({ detail: `Not Found: ${request.method} ${request.url.split('?')[0] ?? ''}` });
}
