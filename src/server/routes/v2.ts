/**
 * The v2 interface, with methods and paths from the contract's endpoint table: /v2/health open to all, every other route
 * behind an API key — the admission plugin admits it on onRequest (401 / 429) before the body is parsed,
 * the handler parses the route's input once with the contract (422) and answers from the engine as the key
 * sees it (403 for tier rules), and a successful answer is counted before it is sent.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ENDPOINTS, parseRequest, servedPath, type EndpointId, type RequestOutput } from '../../contract/endpoints.js';
import type { HealthResponse } from '../../contract/v2/service.js';
import type { Engine } from '../../engine/engine.js';
import { missingKey, type Admission, type EngineState } from '../admission.js';
import type { ApiKey } from '../keys.js';
import { HttpProblem } from '../problem.js';
import type { QueryEmbedding } from '../embedding/query-embedding.js';
import { sendJsonInSlices } from '../slices.js';

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

/** A route's input as it travels (body, query string or path parameters), for the one parse of a v2 request. */
function inputOf(id: KeyedId, request: FastifyRequest): unknown {
  const { input } = ENDPOINTS[id];
  return input === 'body' ? request.body : input === 'query' ? request.query : input === 'path' ? request.params : undefined;
}

export const v2Routes: FastifyPluginCallback<V2RoutesOptions> = (app, { admission, engine, healthCheck, queryEmbedding }, done) => {
  const urlOf = (id: Extract<EndpointId, `v2.${string}`>): string => servedPath(ENDPOINTS[id]).replace(/\{(\w+)\}/g, ':$1');
  /** A keyed route's method and URL, and its endpoint for the admission plugin (401 / 429 before the body is parsed). */
  const keyedRoute = (id: KeyedId): Pick<RouteOptions, 'method' | 'url' | 'config'> => ({ method: ENDPOINTS[id].method, url: urlOf(id), config: { admission: id } });
  /** The engine's answer to the parsed input, as the admitted key sees it, counted and sent. */
  const answer = async <Id extends KeyedId>(id: Id, request: FastifyRequest, reply: FastifyReply, run: (view: Engine, input: RequestOutput<Id>, key: ApiKey) => unknown): Promise<FastifyReply> => {
    const key = request.apiKey;
    if (!key) throw missingKey();
    const view = admission.view(key);
    // The input's one check with the contract (a 422): the parsed value goes on to the quota and the engine.
    const input = parseRequest(id, inputOf(id, request));
    return sendJsonInSlices(reply, await request.quota.counted(await run(view, input, key)));
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
  app.route({
    ...keyedRoute('v2.search'),
    handler: (request, reply) =>
      answer('v2.search', request, reply, async (view, input) => {
        const search = await request.quota.holdRows(input);
        return (queryEmbedding ? await queryEmbedding.searchView(view, search) : view).searchParsed(search);
      }),
  });
  app.route({
    ...keyedRoute('v2.fetch'),
    handler: (request, reply) => answer('v2.fetch', request, reply, async (view, input) => view.fetchParsed(await request.quota.holdRows(input))),
  });
  app.route({
    ...keyedRoute('v2.stats'),
    handler: (request, reply) =>
      answer('v2.stats', request, reply, (view, input, key) => {
        if (input.explain) admission.requireAdmin(key, 'explain');
        return view.statsParsed(input);
      }),
  });
  app.route({ ...keyedRoute('v2.filterOptions'), handler: (request, reply) => answer('v2.filterOptions', request, reply, (view) => view.filterOptions()) });
  app.route({ ...keyedRoute('v2.locationSearch'), handler: (request, reply) => answer('v2.locationSearch', request, reply, (view, input) => view.locationSearchParsed(input)) });
  app.route({ ...keyedRoute('v2.locationList'), handler: (request, reply) => answer('v2.locationList', request, reply, (view, input) => view.locationListParsed(input)) });
  app.route({
    ...keyedRoute('v2.location'),
    handler: (request, reply) =>
      answer('v2.location', request, reply, (view, input) => {
        const item = view.locationParsed(input);
        if (!item) throw new HttpProblem(404, 'Location not found');
        return item;
      }),
  });
  done();
};
