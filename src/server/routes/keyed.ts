/**
 * What the routes an API key calls (v2, and v1 with a key) share: the key admitted on onRequest, before the
 * body is parsed, and a successful answer counted before it is sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EndpointId } from '../../contract/endpoints.js';
import type { Admission } from '../admission.js';
import { stringifyInSlices } from '../slices.js';

export interface KeyedRoutes {
  /** 401 / 429 before any work; the key and the place it holds in its quotas go on the request. */
  admit(id: EndpointId, request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** The answer as JSON, once its count is durable (answers to bearer users are not counted). */
  send(id: EndpointId, request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<FastifyReply>;
}

export function keyedRoutes(app: FastifyInstance, admission: Admission): KeyedRoutes {
  // The key's id (not the key) on every later log line of a request, the "completed" line included. A
  // child logger costs ~10 µs: only when request lines are logged at all (errors add the id themselves).
  const logKeys = ['trace', 'debug', 'info'].includes(app.log.level);
  return {
    async admit(id, request, reply) {
      const key = admission.key(request.headers['x-api-key']);
      // Set before the quotas are checked: a 429 carries the key's X-RateLimit-* headers too.
      request.apiKey = key;
      if (logKeys) {
        request.log = request.log.child({ key: key.id });
        reply.log = request.log;
      }
      request.reservation = await admission.reserve(id, key);
    },
    async send(id, request, reply, body) {
      const key = request.apiKey;
      if (key) request.usageAfterCount = await admission.count(id, key, request.reservation, body);
      // Long row lists are serialised in slices so that other requests get turns meanwhile.
      const text = await stringifyInSlices(body);
      return reply.type('application/json; charset=utf-8').send(text);
    },
  };
}
