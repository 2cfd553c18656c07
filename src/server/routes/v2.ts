/**
 * The v2 interface, with methods and paths from the contract's endpoint table: /v2/health open to all, every other route
 * behind an API key — onRequest admits it (401 / 429) before the body is parsed, the handler answers from
 * the engine as the key sees it (422 when the contract refuses the input, 403 for tier rules), and a
 * successful answer is counted before it is sent.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ValidationError } from '../../contract/errors.js';
import { ENDPOINTS, type EndpointId, type RequestInput } from '../../contract/endpoints.js';
import type { HealthResponse } from '../../contract/v2/service.js';
import { validate } from '../../contract/validation.js';
import type { LocalIndex } from '../../engine/local-index.js';
import { missingKey, type Admission, type EngineState } from '../admission.js';
import type { ApiKey } from '../keys.js';
import { HttpProblem } from '../problem.js';
import type { QueryEmbedding } from '../embedding/query-embedding.js';
import { keyedRoutes } from './keyed.js';

type KeyedId = Exclude<Extract<EndpointId, `v2.${string}`>, 'v2.health'>;

export interface V2RoutesOptions {
  admission: Admission;
  engine: EngineState;
  /** A dependency health reports on (the shared database): throws when it cannot be reached. */
  healthCheck?: (() => Promise<void>) | undefined;
  /** Embeds a search's texts first, for organization vectors of a model the engine cannot run (--embedder onnx: or openai:). */
  queryEmbedding?: QueryEmbedding | null | undefined;
}

/** How long /v2/health waits for its dependency. */
const HEALTH_CHECK_MS = 2_000;

export const v2Routes: FastifyPluginCallback<V2RoutesOptions> = (app, { admission, engine, healthCheck, queryEmbedding }, done) => {
  const keyed = keyedRoutes(app, admission);
  const urlOf = (id: Extract<EndpointId, `v2.${string}`>): string => `/v2${ENDPOINTS[id].path.replace(/\{(\w+)\}/g, ':$1')}`;
  /** A keyed route's method, URL and admission (401 / 429 before the body is parsed). */
  const keyedRoute = (id: KeyedId): Pick<RouteOptions, 'method' | 'url' | 'onRequest'> => ({
    method: ENDPOINTS[id].method,
    url: urlOf(id),
    onRequest: (request, reply) => keyed.admit(id, request, reply),
  });
  /** The engine's answer as the admitted key sees it, counted and sent. */
  const answer = async (id: KeyedId, request: FastifyRequest, reply: FastifyReply, run: (view: LocalIndex, key: ApiKey) => unknown): Promise<FastifyReply> => {
    const key = request.apiKey;
    if (!key) throw missingKey();
    return keyed.send(id, request, reply, await run(admission.view(key), key));
  };

  app.get(urlOf('v2.health'), async (request) => {
    if (!engine.index) return { healthy: false, error: engine.error ?? 'the index is not loaded yet' };
    const health = engine.index.health();
    if (!healthCheck) return health;
    // Which requests still work, in words; the cause (an address, a library's message) stays in the log.
    const unreachable = (why: string): HealthResponse => ({ healthy: false, database: 'unreachable', error: `the database cannot be reached (${why}): requests with an API key answer 503 until it returns; the language routes and this check keep working` });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const answered = await Promise.race([
        healthCheck().then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => {
            resolve(false);
          }, HEALTH_CHECK_MS);
        }),
      ]);
      return answered ? { ...health, database: 'reachable' } : unreachable(`no answer within ${String(HEALTH_CHECK_MS / 1000)} s`);
    } catch (error) {
      request.log.warn({ err: error }, 'health: the database cannot be reached');
      return unreachable('no connection');
    } finally {
      clearTimeout(timer);
    }
  });
  // Each route declares the request parts it reads as the engine's input types: the engine checks every
  // input with the contract itself (a bad one throws the ValidationError of the 422), so they reach it as they came.
  app.route<{ Body: RequestInput<'v2.search'> }>({
    ...keyedRoute('v2.search'),
    handler: (request, reply) =>
      answer('v2.search', request, reply, async (view, key) => {
        const body = await admission.holdRows('v2.search', key, request.reservation, request.body);
        return (queryEmbedding ? await queryEmbedding.view(view, 'v2.search', body) : view).search(body);
      }),
  });
  app.route<{ Body: RequestInput<'v2.fetch'> }>({
    ...keyedRoute('v2.fetch'),
    handler: (request, reply) => answer('v2.fetch', request, reply, async (view, key) => view.fetch(await admission.holdRows('v2.fetch', key, request.reservation, request.body))),
  });
  app.route({
    ...keyedRoute('v2.stats'),
    handler: (request, reply) =>
      answer('v2.stats', request, reply, (view, key) => {
        const checked = validate(ENDPOINTS['v2.stats'].request, request.body);
        if (!checked.ok) throw new ValidationError(checked.error.detail, 422);
        if (checked.value.explain) admission.requireAdmin(key, 'explain');
        return view.stats(checked.value);
      }),
  });
  app.route({ ...keyedRoute('v2.filterOptions'), handler: (request, reply) => answer('v2.filterOptions', request, reply, (view) => view.filterOptions()) });
  app.route<{ Querystring: RequestInput<'v2.locationSearch'> }>({
    ...keyedRoute('v2.locationSearch'),
    handler: (request, reply) => answer('v2.locationSearch', request, reply, (view) => view.locationSearch(request.query)),
  });
  app.route<{ Querystring: RequestInput<'v2.locationList'> }>({
    ...keyedRoute('v2.locationList'),
    handler: (request, reply) => answer('v2.locationList', request, reply, (view) => view.locationList(request.query)),
  });
  app.route<{ Params: { location_id: string } }>({
    ...keyedRoute('v2.location'),
    handler: (request, reply) =>
      answer('v2.location', request, reply, (view) => {
        const item = view.location(request.params.location_id);
        if (!item) throw new HttpProblem(404, 'Location not found');
        return item;
      }),
  });
  done();
};
