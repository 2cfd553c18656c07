/**
 * The server: one Fastify app composed of one plugin per interface, in front of the local engine
 * (`Engine`), with API keys, per-key visibility, rate limits and durable quotas.
 *
 * Per request (every keyed route):
 *   onRequest   admission (admission-plugin.ts): key (401) → rate limit (429) → monthly quotas (429), before
 *               the body is even parsed; v1 without a key and the language routes take a bearer token instead
 *   handler     the input parsed once with the contract (422, or v1's 400) → tier rules (403) → engine
 *   count       successful answers only: +1 request, +1 /stats request, +rows for /search and /fetch; the
 *               response waits until the count is durable (quota-ledger.ts)
 *   onSend      the place a request held in its quotas given back if it was not counted; X-RateLimit-*
 *               headers on every answer to a known key (admission-plugin.ts); x-request-id always
 * Errors are JSON `{"detail": …}` (error-handler.ts).
 */
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { LanguageProvider } from '../engine/language/provider.js';
import { Admission, RATE_LIMIT_HEADERS, type EngineState } from './admission.js';
import { admissionPlugin } from './admission-plugin.js';
import type { BearerVerifier } from './bearer.js';
import type { DownloadLimits, DownloadStore } from './downloads.js';
import type { PitStore } from '../engine/v1/v1-service.js';
import { errorHandler, notFound } from './error-handler.js';
import { clientErrorHandler, frameworkErrors, refuseNonPathTargets, refuseNulInUrl, registerJsonParser, requestIdGenerator } from './http-edge.js';
import { logKeyChanges, type KeyRing } from './keys.js';
import { methodNotAllowed } from './method-not-allowed.js';
import type { QuotaLedger } from './quota-ledger.js';
import { LocalQuotaState, type QuotaState } from './quota-state.js';
import { Downloads, fileRoutes } from './routes/files.js';
import { languageRoutes, siteReadingProvider } from './routes/language.js';
import { v1Routes } from './routes/v1.js';
import { serviceRoutes } from './routes/service.js';
import { v2Routes } from './routes/v2.js';
import { timeoutServerOptions, type ServerTimeouts } from './timeouts.js';
import type { QueryEmbedding } from './embedding/query-embedding.js';

export type { EngineState } from './admission.js';

export interface ServerOptions {
  engine: EngineState;
  keys: KeyRing;
  /** Buckets, holds and counts: this process's own over the quota journal, or a state shared by several servers. */
  quota: { ledger: QuotaLedger } | { state: QuotaState };
  /** A dependency /v2/health reports on (the shared database): throws when it cannot be reached. */
  healthCheck?: () => Promise<void>;
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
  /** The object-store directory of /v1/download files (without it, or a store, downloads answer 503). */
  filesDir?: string;
  /** Where /v1/download files are kept instead of `filesDir` (the database's store, shared by servers). */
  downloadStore?: DownloadStore;
  /** Where v1 PITs are kept (default: this process's memory; the database's, shared by servers). */
  pitStore?: PitStore;
  /** Reads the keys again every `everyMs` (a database's: created, revoked and re-tiered keys apply without a restart). */
  keyRefresh?: { load: () => Promise<KeyRing>; everyMs: number };
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
  /**
   * Embeds the texts of searches first when the organization vectors come from a model the engine cannot
   * run itself (--embedder onnx: or openai:); absent: the engine's own embedder embeds them.
   */
  queryEmbedding?: QueryEmbedding | null;
}

/** The origins an add-in task pane runs on in development (Office add-in dev server, Vite). */
export const DEFAULT_CORS_ORIGINS = ['https://localhost:3000', 'https://127.0.0.1:3000'];

export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const { engine } = options;
  const now = options.now ?? (() => Date.now());
  const admission = new Admission({ engine, keys: options.keys, state: 'state' in options.quota ? options.quota.state : new LocalQuotaState(options.quota.ledger), now, bearer: options.bearer ?? null, languageGroups: options.languageGroups });
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    requestIdHeader: false,
    genReqId: requestIdGenerator((text) => admission.isKey(text)),
    frameworkErrors,
    clientErrorHandler,
    ...timeoutServerOptions(options.timeouts),
  });
  const downloads = Downloads.open(options, now, app.log);

  // What every route shares is set on the root before the route plugins: each plugin's context copies it.
  // Bodies are JSON only (anything else is a 415), UTF-8, of bounded depth.
  registerJsonParser(app);
  refuseNulInUrl(app);
  refuseNonPathTargets(app);
  await app.register(cors, {
    origin: options.corsOrigins ?? DEFAULT_CORS_ORIGINS,
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['x-api-key', 'authorization', 'content-type', 'x-request-id'],
    exposedHeaders: [...RATE_LIMIT_HEADERS, 'Retry-After', 'x-request-id'],
    maxAge: 600,
    // An OPTIONS request without an Origin is not a preflight: let it reach the JSON 404 instead of a text error.
    strictPreflight: false,
  });
  logKeyChanges(app.log, null, options.keys);
  if (options.keyRefresh) refreshKeys(app, admission, options.keyRefresh);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  await app.register(admissionPlugin, { admission });
  app.setErrorHandler(errorHandler());
  app.setNotFoundHandler(notFound);
  const otherMethods = methodNotAllowed(app);

  await app.register(v2Routes, { admission, engine, healthCheck: options.healthCheck, queryEmbedding: options.queryEmbedding });
  await app.register(v1Routes, { admission, downloads, now, pits: options.pitStore, queryEmbedding: options.queryEmbedding });
  await app.register(fileRoutes, { downloads });
  await app.register(languageRoutes, { provider: options.language ?? siteReadingProvider(engine, now, options) });
  await app.register(serviceRoutes, { publicUrl: options.publicUrl });
  otherMethods.answer();
  return app;
}

/** Replaces the admission's keys every `everyMs` with what `load` reads; a read that fails keeps the keys it had. */
function refreshKeys(app: FastifyInstance, admission: Admission, { load, everyMs }: { load: () => Promise<KeyRing>; everyMs: number }): void {
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    load()
      .then((keys) => {
        const before = admission.keyRing;
        admission.replaceKeys(keys);
        logKeyChanges(app.log, before, keys);
      })
      .catch((error: unknown) => {
        app.log.warn({ err: error }, 'reading the keys again failed; the keys read before stay in use');
      })
      .finally(() => {
        reading = false;
      });
  }, everyMs);
  timer.unref();
  app.addHook('onClose', (_instance, closed) => {
    clearInterval(timer);
    closed();
  });
}
