/**
 * The v2 interface over HTTP, on Fastify: routes mounted from the contract's endpoint table and answered by
 * the local engine (`LocalIndex`), with API keys, per-key visibility, rate limits and durable quotas.
 *
 * Per request (every /v2 route but /v2/health):
 *   onRequest   key (401) → rate limit (429) → monthly quotas (429) — before the body is even parsed;
 *               a quota only requests in flight hold is a 429 with a Retry-After of a second (limits.ts)
 *   handler     validate with the contract (422 in the FastAPI layout) → tier rules (403) → engine
 *   count       successful answers only: +1 request, +1 /stats request, +rows for /search and /fetch;
 *               the response waits until the count is durable (quota-ledger.ts)
 *   onSend      X-RateLimit-* headers on every answer to a known key (Remaining: what a new request can
 *               take now, i.e. less counted usage and what requests in flight hold), x-request-id always
 * Errors are JSON `{"detail": …}`: 400 bad JSON, 404 unknown route or location, 413 body too large, 415
 * not JSON; anything unexpected is a 500 with a fixed message (the cause goes to the log, not the client).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import cors from '@fastify/cors';
import type * as z from 'zod';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { ValidationError } from '../contract/errors.js';
import { ENDPOINTS, type EndpointId, type RequestOutput } from '../contract/endpoints.js';
import { validate } from '../contract/validation.js';
import type { LocalIndex } from '../engine/local-index.js';
import { LegacyError, LegacyService, legacyMessage, PitCapacityError, type LegacyCaller } from '../engine/legacy/legacy-service.js';
import type { DownloadFormat } from '../contract/v1.js';
import { connectionOrigin, DOWNLOAD_CONTENT_TYPES, DownloadLimitError, DownloadStore, publicBaseUrl, type DownloadLimits } from './downloads.js';
import { localLanguageProvider, type LanguageProvider } from '../engine/language/provider.js';
import { countTokens } from 'gpt-tokenizer';
import { fetchSite, SITE_DEADLINE_MS } from './web-fetch.js';
import { runInSlices, stringifyInSlices } from './slices.js';
import { BearerError, type BearerUser, type BearerVerifier } from './bearer.js';
import { clientErrorHandler, frameworkErrors, registerJsonParser, requestIdGenerator } from './http-edge.js';
import type { ApiKey, KeyRing } from './keys.js';
import { DEFAULT_TIER_LIMITS, quotaMonth, quotaRemaining, quotaReset, quotaRetryAfterSeconds, quotaStanding, TokenBucket, type QuotaStanding, type QuotaUse, type TierLimits } from './limits.js';
import { openApiDocument } from './openapi.js';
import type { QuotaLedger, Usage } from './quota-ledger.js';
import { timeoutServerOptions, type ServerTimeouts } from './timeouts.js';

/** The engine, or why there is none (health reports it; other routes answer 503). */
export interface EngineState {
  index: LocalIndex | null;
  error: string | null;
}

export interface ServerOptions {
  engine: EngineState;
  keys: KeyRing;
  ledger: QuotaLedger;
  /** Origins allowed by CORS: a list, or true for any origin. Default: the add-in dev origins. */
  corsOrigins?: string[] | true;
  /** Fastify's logger option (pino); false in tests. */
  logger?: FastifyServerOptions['logger'];
  /** Largest request body in bytes (default 1 MiB: a /fetch of 5,000 long URLs is ~0.4 MB). */
  bodyLimit?: number;
  /** How long the server waits on a client (ms; timeouts.ts has the defaults and why). */
  timeouts?: Partial<ServerTimeouts>;
  /** Wall clock in ms (tests move it across a month end). */
  now?: () => number;
  /** Verifies `Authorization: Bearer` tokens (v1 dashboard users); null: the server accepts none. */
  bearer?: BearerVerifier | null;
  /** The object-store directory of /v1/download files (without it, downloads answer 503). */
  filesDir?: string;
  /** Caps on /v1/download files (per caller, whole store); unset fields keep DEFAULT_DOWNLOAD_LIMITS. */
  downloadLimits?: Partial<DownloadLimits>;
  /**
   * The URL clients reach this server at (`https://orgindex.example.com`, a path prefix allowed): download
   * links are built on it. Unset: on the address and port each request's connection reached, never on
   * the Host header.
   */
  publicUrl?: string;
  /** Answers the language-processing routes (default: the local, data-driven provider). */
  language?: LanguageProvider;
  /** When set, a bearer token needs one of these groups (idp:groups) for the language routes, else 403. */
  languageGroups?: readonly string[];
  /** /v1/qna may fetch loopback and private addresses (tests, intranets); default refused. */
  allowPrivateFetch?: boolean;
  /** Fixed addresses for host names /v1/qna fetches (like /etc/hosts; the tests' fixture site). */
  fetchHosts?: Readonly<Record<string, string>>;
  /** Time in ms a /v1/qna request may spend fetching the site, all pages together (default 20 s). */
  qnaDeadlineMs?: number;
}

/** The origins an add-in task pane runs on in development (Office add-in dev server, Vite). */
export const DEFAULT_CORS_ORIGINS = ['https://localhost:3000', 'https://127.0.0.1:3000'];

const RATE_LIMIT_HEADERS = ['X-RateLimit-Requests-Limit', 'X-RateLimit-Requests-Remaining', 'X-RateLimit-Results-Limit', 'X-RateLimit-Results-Remaining', 'X-RateLimit-Reset'];

/** An error with an HTTP status and a `detail` for the client. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey | null;
    /** A verified bearer token's user (v1 without an API key). */
    bearerUser: BearerUser | null;
    /** The quota this request holds while it runs (see `reserve`). */
    reservation: Reservation | null;
  }
}

interface Reservation {
  slot: string;
  stats: boolean;
  /** Rows held for /search and /fetch (known once the body is parsed). */
  results: number;
}

interface Held {
  requests: number;
  statsRequests: number;
  results: number;
}

/** What a successful answer adds to the key's monthly usage. */
/** Routes whose rows count against the result quota: page-sized ones (cut to the rows left) and domain lists. */
const SIZED_ROUTES: Partial<Record<EndpointId, z.ZodType>> = { 'v2.search': ENDPOINTS['v2.search'].request, 'v1.search': ENDPOINTS['v1.search'].request, 'v1.download': ENDPOINTS['v1.download'].request };
const LISTED_ROUTES: Partial<Record<EndpointId, z.ZodType>> = { 'v2.fetch': ENDPOINTS['v2.fetch'].request, 'v1.fetchMarket': ENDPOINTS['v1.fetchMarket'].request };
const ROW_ROUTES = [...Object.keys(SIZED_ROUTES), ...Object.keys(LISTED_ROUTES)] as EndpointId[];

const LANGUAGE_PATHS = new Set(Object.values(ENDPOINTS).filter((endpoint) => endpoint.api === 'language').map((endpoint) => endpoint.path));

/**
 * The interface whose error rules answer a request: decided by the route the router matched (its
 * declared path), never by the raw URL — `/%761/search` is routed to /v1/search and so answered as v1.
 * Null for the others (v2, /openapi.json) and when no route matched (a 404): the common rules.
 */
function interfaceOf(request: FastifyRequest): 'v1' | 'language' | null {
  const route = request.routeOptions.url;
  if (route === undefined) return null;
  if (LANGUAGE_PATHS.has(route)) return 'language';
  return route.startsWith('/v1/') ? 'v1' : null;
}

/** An answer as JSON; long row lists are serialised in slices so other requests get turns meanwhile. */
async function sendJson(reply: FastifyReply, body: unknown): Promise<FastifyReply> {
  const text = await stringifyInSlices(body);
  return reply.type('application/json; charset=utf-8').send(text);
}

function usageOf(id: EndpointId, body: unknown): Usage {
  let rows = 0;
  if (ROW_ROUTES.includes(id) && body && typeof body === 'object') {
    if ('data' in body && Array.isArray(body.data)) rows = body.data.length;
    else if ('metadata' in body) rows = (body.metadata as { total_fetched?: number }).total_fetched ?? 0; // a download
  }
  return { requests: 1, statsRequests: id === 'v2.stats' ? 1 : 0, results: rows };
}

const isoSeconds = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;
const plural = (n: number, word: string): string => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
const resultQuotaExhausted = (limit: number, tier: string): string => `Monthly result quota exhausted: ${plural(limit, 'row')} from /search and /fetch for ${tier}`;

export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const { engine, keys, ledger } = options;
  const now = options.now ?? (() => Date.now());
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    requestIdHeader: false,
    genReqId: requestIdGenerator(keys),
    frameworkErrors,
    clientErrorHandler,
    ...timeoutServerOptions(options.timeouts),
  });
  app.decorateRequest('apiKey', null);
  app.decorateRequest('reservation', null);
  app.decorateRequest('bearerUser', null);
  const bearer = options.bearer ?? null;
  const legacy = new LegacyService({ now, newId: randomUUID });
  const linkBase = options.publicUrl === undefined ? null : publicBaseUrl(options.publicUrl);
  const onSweepError = (error: Error): void => {
    app.log.warn({ err: error }, 'deleting expired download files failed');
  };
  const downloads = options.filesDir ? DownloadStore.open(options.filesDir, now, { ...(options.downloadLimits ? { limits: options.downloadLimits } : {}), onError: onSweepError }) : null;
  // The store's sweep timer is unref'd; closing the server stops it too.
  app.addHook('onClose', (_instance, done) => {
    downloads?.close();
    done();
  });
  const infoLogged = ['trace', 'debug', 'info'].includes(app.log.level);
  // Bodies are JSON only (anything else is a 415), UTF-8, of bounded depth.
  registerJsonParser(app);

  await app.register(cors, {
    origin: options.corsOrigins ?? DEFAULT_CORS_ORIGINS,
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['x-api-key', 'authorization', 'content-type', 'x-request-id'],
    exposedHeaders: [...RATE_LIMIT_HEADERS, 'Retry-After', 'x-request-id'],
    maxAge: 600,
    // An OPTIONS request without an Origin is not a preflight: let it reach the JSON 404 instead of a text error.
    strictPreflight: false,
  });

  const buckets = new Map<string, TokenBucket>();
  /**
   * Bearer (dashboard) users have no quota, but they share tier_2's rate so that one token cannot
   * monopolise the server (each user by `sub`).
   */
  const throttleUser = (user: BearerUser): void => {
    takeToken(`user:${user.sub}`, DEFAULT_TIER_LIMITS.tier_2, 'a signed-in user may send', now());
  };
  /** One token from the caller's bucket (created on first use), or a 429 saying the rate and when to retry. */
  const takeToken = (slot: string, limits: TierLimits, who: string, at: number): void => {
    let bucket = buckets.get(slot);
    if (!bucket) {
      bucket = new TokenBucket(limits.ratePerSecond, limits.burst, at);
      buckets.set(slot, bucket);
    }
    const taken = bucket.take(at);
    if (!taken.ok) {
      throw new HttpProblem(429, `Rate limit exceeded: ${who} ${limits.ratePerSecond} requests per second (bursts of ${limits.burst}); retry in ${plural(taken.retryAfterSeconds, 'second')}`, {
        'Retry-After': String(taken.retryAfterSeconds),
      });
    }
  };
  /**
   * Requests admitted but not answered yet, per month and key: they hold their place in the request and
   * /stats quotas, and /search and /fetch hold the most rows they can return, so concurrent requests
   * cannot together pass a quota.
   */
  const inFlight = new Map<string, Held>();
  const slotOf = (month: string, keyId: string): string => `${month}\t${keyId}`;
  /**
   * The 429 of a quota that cannot give `wanted` more: exhausted (`exhausted` says what was used up) until
   * the month resets, or held by requests in flight for a moment. One Retry-After rule for both (limits.ts).
   */
  const quotaProblem = (standing: Exclude<QuotaStanding, 'available'>, at: number, quota: { name: string; unit: string; use: QuotaUse; exhausted: string }): HttpProblem => {
    const retryAfter = quotaRetryAfterSeconds(standing, at);
    const headers = { 'Retry-After': String(retryAfter) };
    if (standing === 'exhausted') return new HttpProblem(429, `${quota.exhausted}; it resets at ${isoSeconds(quotaReset(at))}`, headers);
    const left = Math.max(0, quota.use.limit - quota.use.counted);
    const held = Math.min(quota.use.held, left);
    return new HttpProblem(
      429,
      `Monthly ${quota.name} quota held by requests in flight: ${held.toLocaleString('en')} of ${plural(left, `remaining ${quota.unit}`)} ${held === 1 ? 'is' : 'are'} reserved; retry in ${plural(retryAfter, 'second')}`,
      headers,
    );
  };
  const release = (request: FastifyRequest): void => {
    const held = request.reservation;
    if (!held) return;
    request.reservation = null;
    const slot = inFlight.get(held.slot);
    if (!slot) return;
    slot.requests--;
    if (held.stats) slot.statsRequests--;
    slot.results -= held.results;
    if (slot.requests <= 0) inFlight.delete(held.slot);
  };
  const views = new Map<string, LocalIndex>();

  /** The engine as the key sees it (visibility intersected into everything). */
  const viewFor = (key: ApiKey): LocalIndex => {
    const index = engine.index;
    if (!index) throw new HttpProblem(503, `the index is not loaded${engine.error ? `: ${engine.error}` : ''}`);
    if (!key.visibility) return index;
    let view = views.get(key.id);
    if (!view) {
      view = index.withVisibility(key.visibility);
      views.set(key.id, view);
    }
    return view;
  };

  // A visibility the engine refuses (text_keywords without a word, say) stops the start, not a request.
  for (const key of keys.entries()) {
    if (!key.visibility || !engine.index) continue;
    try {
      viewFor(key);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      throw new Error(`keys file: the visibility of key ${key.name ?? key.id} is invalid: ${error.detail.map((item) => `${item.loc.slice(1).join('.')}: ${item.msg}`).join('; ')}`);
    }
  }

  /** Remaining counts what requests in flight hold as taken: 0 exactly when a new request would be refused. */
  const rateLimitHeaders = (key: ApiKey): Record<string, string> => {
    const at = now();
    const month = quotaMonth(at);
    const usage = ledger.get(month, key.id);
    const held = inFlight.get(slotOf(month, key.id));
    const { monthlyRequests, monthlyResults } = key.limits;
    return {
      'X-RateLimit-Requests-Limit': String(monthlyRequests),
      'X-RateLimit-Requests-Remaining': String(quotaRemaining({ limit: monthlyRequests, counted: usage.requests, held: held?.requests ?? 0 })),
      'X-RateLimit-Results-Limit': String(monthlyResults),
      'X-RateLimit-Results-Remaining': String(quotaRemaining({ limit: monthlyResults, counted: usage.results, held: held?.results ?? 0 })),
      'X-RateLimit-Reset': isoSeconds(quotaReset(at)),
    };
  };

  /** 401 / 429 before any work: the key, its token bucket, its monthly quotas. */
  const admit = (id: EndpointId, request: FastifyRequest, reply: FastifyReply): void => {
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    if (!presented) throw new HttpProblem(401, 'Missing API key: send it in the x-api-key header');
    const key = keys.lookup(presented);
    if (!key) throw new HttpProblem(401, 'Invalid API key');
    request.apiKey = key;
    // The key's id (not the key) on every later log line of this request, the "completed" line included.
    // A child logger costs ~10 µs: only when request lines are logged at all (errors add the id themselves).
    if (infoLogged) {
      request.log = request.log.child({ key: key.id });
      reply.log = request.log;
    }
    if (key.admin) return;
    const at = now();
    const { limits, tier } = key;
    takeToken(key.id, limits, `${tier} allows`, at);
    const month = quotaMonth(at);
    const slot = slotOf(month, key.id);
    const held = inFlight.get(slot) ?? { requests: 0, statsRequests: 0, results: 0 };
    const usage = ledger.get(month, key.id);
    const quotas = [
      { name: 'request', unit: 'request', use: { limit: limits.monthlyRequests, counted: usage.requests, held: held.requests }, exhausted: `Monthly request quota exhausted: ${plural(limits.monthlyRequests, 'request')} for ${tier}` },
      ...(id === 'v2.stats'
        ? [{ name: '/stats', unit: 'request', use: { limit: limits.monthlyStatsRequests, counted: usage.statsRequests, held: held.statsRequests }, exhausted: `Monthly /stats quota exhausted: ${plural(limits.monthlyStatsRequests, 'request')} for ${tier}` }]
        : []),
      ...(ROW_ROUTES.includes(id)
        ? [{ name: 'result', unit: 'row', use: { limit: limits.monthlyResults, counted: usage.results, held: held.results }, exhausted: resultQuotaExhausted(limits.monthlyResults, tier) }]
        : []),
    ].map((quota) => ({ ...quota, standing: quotaStanding(quota.use) }));
    // A quota used up for the month outranks one that frees up in a moment: retrying soon would not help.
    const refused = quotas.find((quota) => quota.standing === 'exhausted') ?? quotas.find((quota) => quota.standing === 'held');
    if (refused && refused.standing !== 'available') throw quotaProblem(refused.standing, at, refused);
    held.requests++;
    if (id === 'v2.stats') held.statsRequests++;
    inFlight.set(slot, held);
    request.reservation = { slot, stats: id === 'v2.stats', results: 0 };
  };

  /**
   * /search and /fetch hold the rows they may return before they run: a search page is cut to the rows
   * left (its cursor still walks on), a fetch that could return more rows than are left is a 429.
   * Returns the body to run (a search's size cut).
   */
  const holdRows = (id: EndpointId, request: FastifyRequest, key: ApiKey): unknown => {
    const body = request.body;
    const reservation = request.reservation;
    const schema = SIZED_ROUTES[id] ?? LISTED_ROUTES[id];
    if (key.admin || !reservation || !schema) return body;
    const checked = validate(schema, body);
    if (!checked.ok) {
      // v2 answers 422 here; v1 leaves the 400 to its own validation.
      if (id.startsWith('v2.')) throw new ValidationError(checked.error.detail, 422);
      return body;
    }
    const at = now();
    const slot = inFlight.get(reservation.slot);
    const use = { limit: key.limits.monthlyResults, counted: ledger.get(quotaMonth(at), key.id).results, held: slot?.results ?? 0 };
    const left = quotaRemaining(use);
    const asked = checked.value as { size?: number; domains?: unknown[] };
    const rowQuota = { name: 'result', unit: 'row', use };
    let rows: number;
    let run = body;
    if (SIZED_ROUTES[id]) {
      const size = asked.size ?? 0;
      // Nothing left to serve now: a 429 (held or exhausted) rather than an empty page.
      const standing = quotaStanding(use);
      if (size > 0 && standing !== 'available') {
        throw quotaProblem(standing, at, { ...rowQuota, exhausted: resultQuotaExhausted(use.limit, key.tier) });
      }
      rows = Math.min(size, left);
      if (rows < size) run = { ...(body as object), size: rows };
    } else {
      rows = asked.domains?.length ?? 0;
      const standing = quotaStanding(use, rows);
      if (standing !== 'available') {
        const counted = Math.max(0, use.limit - use.counted);
        throw quotaProblem(standing, at, {
          ...rowQuota,
          exhausted: `Monthly result quota: a fetch of ${plural(rows, 'domain')} may return as many rows, and ${plural(counted, 'row')} ${counted === 1 ? 'is' : 'are'} left for ${key.tier}`,
        });
      }
    }
    reservation.results = rows;
    if (slot) slot.results += rows;
    return run;
  };

  /** The engine's answer to one request (throws ValidationError → 422, HttpProblem → its status). */
  const answer = (id: EndpointId, request: FastifyRequest, key: ApiKey): unknown => {
    const view = viewFor(key);
    switch (id) {
      case 'v2.search':
        return view.search(holdRows(id, request, key) as never);
      case 'v2.fetch':
        return view.fetch(holdRows(id, request, key) as never);
      case 'v2.stats': {
        const checked = validate(ENDPOINTS['v2.stats'].request, request.body);
        if (!checked.ok) throw new ValidationError(checked.error.detail, 422);
        if (checked.value.explain && !key.admin) throw new HttpProblem(403, `explain is for admin keys; this key is ${key.tier}`);
        return view.stats(checked.value);
      }
      case 'v2.filterOptions':
        return view.filterOptions();
      case 'v2.locationSearch':
        return view.locationSearch(request.query as never);
      case 'v2.locationList':
        return view.locationList(request.query as never);
      case 'v2.location': {
        const item = view.location((request.params as { location_id: string }).location_id);
        if (!item) throw new HttpProblem(404, 'Location not found');
        return item;
      }
      default:
        throw new HttpProblem(404, 'Not Found');
    }
  };

  for (const [id, endpoint] of Object.entries(ENDPOINTS) as [EndpointId, (typeof ENDPOINTS)[EndpointId]][]) {
    if (endpoint.api !== 'v2') continue;
    const url = `/v2${endpoint.path.replace(/\{(\w+)\}/g, ':$1')}`;
    if (id === 'v2.health') {
      app.get(url, () => (engine.index ? engine.index.health() : { healthy: false, error: engine.error ?? 'the index is not loaded yet' }));
      continue;
    }
    app.route({
      method: endpoint.method,
      url,
      onRequest: (request, reply, done) => {
        try {
          admit(id, request, reply);
          done();
        } catch (error) {
          done(error as Error);
        }
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const key = request.apiKey;
        if (!key) throw new HttpProblem(401, 'Missing API key: send it in the x-api-key header');
        const body = answer(id, request, key);
        // Hand the held place over to the count in one step (record adds it before it awaits the disk).
        release(request);
        await ledger.record(quotaMonth(now()), key.id, usageOf(id, body));
        return sendJson(reply, body);
      },
    });
  }

  // Legacy v1: an API key (same keys, limits and visibility as v2) or a bearer token; errors as v1 says.
  const authenticateV1 = async (id: EndpointId, request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.headers['x-api-key'] !== undefined) {
      admit(id, request, reply);
      return;
    }
    const authorization = request.headers.authorization ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    if (!token) throw new HttpProblem(403, 'Not authenticated: send x-api-key, or Authorization: Bearer <token>');
    if (!bearer) throw new HttpProblem(403, 'This server accepts no bearer tokens (start it with --jwt-secret or --jwks); use an API key');
    request.bearerUser = await bearer(token);
    throttleUser(request.bearerUser);
  };
  const answerV1 = async (id: EndpointId, request: FastifyRequest): Promise<unknown> => {
    const key = request.apiKey;
    const user = request.bearerUser;
    let caller: LegacyCaller;
    if (key) caller = { id: `key:${key.id}`, index: viewFor(key) };
    else if (user && engine.index) caller = { id: `user:${user.sub}`, index: engine.index };
    else throw new HttpProblem(503, `the index is not loaded${engine.error ? `: ${engine.error}` : ''}`);
    switch (id) {
      case 'v1.search':
        return legacy.search(key ? holdRows(id, request, key) : request.body, caller);
      case 'v1.sublocations':
        return legacy.sublocations(request.body, caller);
      case 'v1.fetchMarket':
        return legacy.fetchMarket(key ? holdRows(id, request, key) : request.body, caller);
      case 'v1.download': {
        if (!downloads) throw new HttpProblem(503, 'downloads are not configured on this server');
        const content = legacy.downloadContent(key ? holdRows(id, request, key) : request.body, caller);
        const userId = key ? key.id : (user?.sub ?? null);
        let written: { filePath: string; link: string };
        try {
          written = await downloads.write(content, key ? `key:${key.id}` : `user:${userId ?? 'anonymous'}`);
        } catch (error) {
          if (/download_id may hold/.test((error as Error).message)) throw new LegacyError((error as Error).message);
          if (error instanceof DownloadLimitError) {
            throw new HttpProblem(error.scope === 'caller' ? 429 : 503, error.message, error.retryAfterSeconds === null ? {} : { 'Retry-After': String(error.retryAfterSeconds) });
          }
          throw error;
        }
        return {
          download_url: `${linkBase ?? connectionOrigin(request.protocol, request.socket.localAddress, request.socket.localPort)}${written.link}`,
          metadata: {
            download_id: content.downloadId,
            user_id: userId,
            file_path: written.filePath,
            total_hits: content.totalHits,
            total_fetched: content.rows.length,
            index: content.index,
            timestamp: new Date(now()).toISOString(),
            download_format: content.format,
            query_type: content.queryType,
          },
        };
      }
      case 'v1.closePit': {
        // pit_id in the query string or the body (the spec does not say which).
        const query = request.query as { pit_id?: unknown };
        const body = (request.body ?? {}) as { pit_id?: unknown };
        return legacy.closePit({ pit_id: query.pit_id ?? body.pit_id }, caller);
      }
      default:
        throw new HttpProblem(404, 'Not Found');
    }
  };
  for (const id of ['v1.search', 'v1.sublocations', 'v1.fetchMarket', 'v1.download', 'v1.closePit'] as const) {
    const endpoint = ENDPOINTS[id];
    app.route({
      method: endpoint.method,
      url: endpoint.path,
      onRequest: async (request, reply) => {
        await authenticateV1(id, request, reply);
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const body = await answerV1(id, request);
        const key = request.apiKey;
        if (key) {
          release(request);
          await ledger.record(quotaMonth(now()), key.id, usageOf(id, body));
        }
        return sendJson(reply, body);
      },
    });
  }

  // Download links: the signature is the credential (a browser or a spreadsheet opens them as they are).
  app.get('/v1/files/*', (request, reply) => {
    const path = (request.params as Record<string, string>)['*'] ?? '';
    const { expires, signature } = request.query as { expires?: string; signature?: string };
    const found = downloads ? downloads.resolve(path, expires, signature) : { refused: 'downloads are not configured on this server' };
    if ('refused' in found) return reply.code(403).send({ detail: found.refused });
    const format = (path.split('.').pop() ?? 'tsv') as DownloadFormat;
    return reply
      .type(DOWNLOAD_CONTENT_TYPES[format])
      .header('content-disposition', `attachment; filename="${path.split('/').pop() ?? 'download'}"`)
      .send(readFileSync(found.file));
  });

  // Language processing: bearer tokens only (401 when missing or invalid, 403 when the groups do not allow).
  const language =
    options.language ??
    localLanguageProvider(() => engine.index, now, {
      fetchPages: (domain, maxPages, signal) =>
        fetchSite(domain, maxPages, { allowPrivate: options.allowPrivateFetch ?? false, hosts: options.fetchHosts ?? {}, deadlineMs: options.qnaDeadlineMs ?? SITE_DEADLINE_MS, ...(signal ? { signal } : {}) }),
      countTokens,
      // The answer is computed in steps, the event loop served between them.
      runSteps: runInSlices,
    });
  const requireLanguageUser = async (request: FastifyRequest): Promise<void> => {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!token) throw new HttpProblem(401, 'Not authenticated: send Authorization: Bearer <token>');
    if (!bearer) throw new HttpProblem(401, 'This server accepts no bearer tokens (start it with --jwt-secret or --jwks)');
    const user = await bearer(token);
    const allowed = options.languageGroups;
    if (allowed && !user.groups.some((group) => allowed.includes(group))) {
      throw new HttpProblem(403, `Access denied: the language routes are for members of ${allowed.join(', ')}`);
    }
    throttleUser(user);
    request.bearerUser = user;
  };
  /** Aborts when the caller closes the connection before the answer is complete: nobody waits for it any more. */
  const callerGone = (reply: FastifyReply): AbortSignal => {
    const controller = new AbortController();
    const response = reply.raw;
    const gone = (): void => {
      if (!response.writableFinished) controller.abort(new Error('the caller closed the connection'));
    };
    if (response.closed) gone();
    else response.once('close', gone);
    return controller.signal;
  };
  // Each language route: its contract-checked input → the provider.
  const languageRoutes: { [Id in 'language.generateKeywords' | 'language.qna' | 'language.nlpSearch']: (input: RequestOutput<Id>, reply: FastifyReply) => unknown } = {
    'language.generateKeywords': (input) => language.generateKeywords(input.keywords),
    'language.qna': (input, reply) => language.qna(input.question, input.domain, input.max_pages, callerGone(reply)),
    'language.nlpSearch': (input) => language.nlpSearch(input.user_query, input.search_id),
  };
  for (const [id, run] of Object.entries(languageRoutes) as [keyof typeof languageRoutes, (input: never, reply: FastifyReply) => unknown][]) {
    app.route({
      method: 'POST',
      url: ENDPOINTS[id].path,
      onRequest: async (request) => {
        await requireLanguageUser(request);
      },
      handler: async (request, reply) => {
        const checked = validate(ENDPOINTS[id].request, request.body);
        if (!checked.ok) throw new ValidationError(checked.error.detail, 422);
        return await run(checked.value as never, reply);
      },
    });
  }

  app.get('/openapi.json', () => openApiDocument());

  app.addHook('onSend', (request, reply, payload, done) => {
    release(request); // errors answered without a count give their place back
    reply.header('x-request-id', request.id);
    if (request.apiKey) reply.headers(rateLimitHeaders(request.apiKey));
    done(null, payload);
  });

  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ detail: `Not Found: ${request.method} ${request.url.split('?')[0] ?? ''}` });
  });

  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const api = interfaceOf(request);
    // Language routes: 400 for bad parameters, 401 for a missing or invalid token (their spec).
    if (api === 'language') {
      const message = legacyMessage(error);
      if (message !== null) return reply.code(400).send({ detail: message });
      if (error instanceof BearerError) return reply.code(401).send({ detail: `Invalid token: ${error.message}` });
    }
    // v1 reports bad parameters as 400 and every auth failure as 403, with a message (its spec).
    else if (api === 'v1') {
      const message = legacyMessage(error);
      if (message !== null) return reply.code(400).send({ detail: message });
      if (error instanceof BearerError) return reply.code(403).send({ detail: `Invalid token: ${error.message}` });
      if (error instanceof HttpProblem && error.status === 401) return reply.code(403).headers(error.headers).send({ detail: error.detail });
    }
    if (error instanceof ValidationError) return reply.code(422).send({ detail: error.detail });
    if (error instanceof HttpProblem) return reply.code(error.status).headers(error.headers).send({ detail: error.detail });
    // Every PIT the service keeps is live: a capacity limit of the service, not the caller's fault.
    if (error instanceof PitCapacityError) return reply.code(503).header('Retry-After', String(error.retryAfterSeconds)).send({ detail: error.message });
    const status = 'statusCode' in error ? error.statusCode : undefined;
    if ('code' in error && error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const type = request.headers['content-type'] ?? 'none';
      return reply.code(415).send({ detail: `Unsupported media type (${type}): send the body as JSON with content-type application/json` });
    }
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own client errors: bad JSON (400), body too large (413), not JSON (415).
      return reply.code(status).send({ detail: error.message });
    }
    request.log.error({ err: error, key: request.apiKey?.id }, 'unexpected error');
    return reply.code(500).send({ detail: 'Internal Server Error' });
  });

  // Expired PITs go even when no v1 request comes to sweep them: each may keep a replaced index alive.
  const pitSweeper = setInterval(() => legacy.sweepPits(), 60_000);
  pitSweeper.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(pitSweeper);
    done();
  });

  return app;
}
