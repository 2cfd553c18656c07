/**
 * The legacy v1 interface: an API key (same keys, limits, quotas and visibility as v2) or a bearer token
 * (dashboard users: tier_2's rate, no quota), answered by the legacy service over the same engine. Each
 * input is parsed once, with the contract; errors as v1 says: bad parameters are 400 (the contract's detail
 * as one message, error-handler.ts) and every auth failure is 403, with a message.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { ENDPOINTS, parseRequest, type EndpointId } from '../../contract/endpoints.js';
import type { LegacyCaller } from '../../engine/index.js';
import { LegacyService, type PitStore } from '../../engine/v1/v1-service.js';
import { PIT_SWEEP_INTERVAL_MS } from '../../engine/v1/pit-registry.js';
import type { Admission } from '../admission.js';
import { errorHandler } from '../error-handler.js';
import type { Downloads } from './files.js';
import { v1DownloadTexts, v1SearchTexts, type QueryEmbedding } from '../embedding/query-embedding.js';
import { sendJsonInSlices } from '../slices.js';

type V1Id = Extract<EndpointId, `v1.${string}`>;

export interface V1RoutesOptions {
  admission: Admission;
  downloads: Downloads;
  /** Wall clock in ms (PIT expiry, download timestamps). */
  now: () => number;
  /** Where PITs are kept (default: this process's memory). */
  pits?: PitStore | undefined;
  /** Embeds a search's semantic_input first, for organization vectors of a model the engine cannot run. */
  queryEmbedding?: QueryEmbedding | null | undefined;
}

/** The caller a v1 request was admitted as: its API key, else the bearer user the onRequest hook verified. */
function callerOf(request: FastifyRequest, admission: Admission): LegacyCaller {
  const key = request.apiKey;
  if (key) return { id: `key:${key.id}`, index: admission.view(key) };
  const user = request.bearerUser;
  if (!user) throw new Error('a v1 request reached its handler without a key or a user');
  return { id: `user:${user.sub}`, index: admission.view(null) };
}

/** A `pit_id` field of the query string or of the body, whichever sends it. */
const pitIdIn = (part: unknown): unknown => (typeof part === 'object' && part !== null && 'pit_id' in part ? part.pit_id : undefined);

export const v1Routes: FastifyPluginCallback<V1RoutesOptions> = (app, { admission, downloads, now, pits, queryEmbedding }, done) => {
  app.setErrorHandler(errorHandler({ authStatus: 403 }));
  const legacy = new LegacyService({ now, newId: randomUUID, ...(pits ? { pits } : {}) });
  // Expired PITs go even when no v1 request comes to sweep them: each may keep a replaced index alive.
  const pitSweeper = setInterval(() => {
    legacy.sweepPits();
  }, PIT_SWEEP_INTERVAL_MS);
  pitSweeper.unref();
  app.addHook('onClose', (_instance, closed) => {
    clearInterval(pitSweeper);
    closed();
  });

  /** The caller with its query's texts embedded, where the engine cannot embed them itself. */
  const embedded = async (texts: readonly string[], caller: LegacyCaller): Promise<LegacyCaller> =>
    queryEmbedding ? { ...caller, index: await queryEmbedding.view(caller.index, texts) } : caller;

  // With a key, the rows a body may return are held before it runs (a search page cut to the rows left).
  const answers: Record<V1Id, (request: FastifyRequest, caller: LegacyCaller) => unknown> = {
    'v1.search': async (request, caller) => {
      const body = await request.quota.holdRows(parseRequest('v1.search', request.body));
      return legacy.searchParsed(body, await embedded(v1SearchTexts(body), caller));
    },
    'v1.sublocations': (request, caller) => legacy.sublocationsParsed(parseRequest('v1.sublocations', request.body), caller),
    'v1.fetchMarket': async (request, caller) => legacy.fetchMarketParsed(await request.quota.holdRows(parseRequest('v1.fetchMarket', request.body)), caller),
    'v1.download': async (request, caller) => {
      downloads.ensureConfigured();
      const body = await request.quota.holdRows(parseRequest('v1.download', request.body));
      const content = legacy.downloadContentParsed(body, await embedded(v1DownloadTexts(body), caller));
      const written = await downloads.write(content, caller.id, request);
      return {
        download_url: written.url,
        metadata: {
          download_id: content.downloadId,
          user_id: request.apiKey?.id ?? request.bearerUser?.sub ?? null,
          file_path: written.filePath,
          total_hits: content.totalHits,
          total_fetched: content.rows.length,
          index: content.index,
          timestamp: new Date(now()).toISOString(),
          download_format: content.format,
          query_type: content.queryType,
        },
      };
    },
    // pit_id in the query string or the body (the spec does not say which).
    'v1.closePit': (request, caller) => legacy.closePitParsed(parseRequest('v1.closePit', { pit_id: pitIdIn(request.query) ?? pitIdIn(request.body) }), caller),
  };

  const isV1 = (id: string): id is V1Id => Object.hasOwn(answers, id);
  for (const id of Object.keys(ENDPOINTS)) {
    if (!isV1(id)) continue;
    const endpoint = ENDPOINTS[id];
    app.route({
      method: endpoint.method,
      url: endpoint.path,
      // The admission plugin: an API key (quotas counted) when one is sent, else a bearer token.
      config: { admission: id },
      handler: async (request, reply) => sendJsonInSlices(reply, await request.quota.counted(await answers[id](request, callerOf(request, admission)))),
    });
  }
  done();
};
