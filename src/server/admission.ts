/**
 * Who may run a request, decided before any work, in one place:
 *   - the API key (401; 403 for a key whose record is invalid, keys.ts); for v1 without a key and for the
 *     language routes, a verified bearer token (401/403);
 *   - the token bucket of the key's tier, or tier_2's for a bearer user (429);
 *   - the key's monthly quotas (429). An admitted request holds its place in them until it is counted or
 *     answered otherwise, and /search and /fetch hold the rows they may return, so concurrent requests
 *     cannot together pass a quota; a quota only requests in flight hold is a 429 of a second (limits.ts);
 *   - tier rules (403), and the engine as each key sees it (its visibility intersected into everything).
 * Every refusal that a later retry may pass says when in Retry-After; every answer to a key carries the
 * X-RateLimit-* headers (Remaining: what a new request can take now, i.e. less counted usage and what
 * requests in flight hold). The rules only: admission-plugin.ts applies them to the routes.
 */
import type { EndpointId } from '../contract/endpoints.js';
import type { Engine } from '../engine/engine.js';
import type { BearerUser, BearerVerifier } from './bearer.js';
import type { ApiKey, KeyRing } from './keys.js';
import { DEFAULT_TIER_LIMITS, quotaMonth, quotaRemaining, quotaReset, quotaRetryAfterSeconds, quotaStanding, type QuotaStanding, type QuotaUse, type TierLimits } from './limits.js';
import { HttpProblem, retryAfter } from './problem.js';
import { isUnavailability } from './database/database.js';
import { LocalBuckets, type Hold, type MonthUsage, type QuotaState, type Usage } from './quota-state.js';

/** The engine, or why there is none (health reports it; other routes answer 503). */
export interface EngineState {
  index: Engine | null;
  error: string | null;
}

/** One quota a request needs, and the words of its 429. */
interface QuotaNeed {
  name: string;
  unit: string;
  use: QuotaUse;
  /** What was used up, when the month's counted usage leaves too little. */
  exhausted: string;
}

export const RATE_LIMIT_HEADERS = ['X-RateLimit-Requests-Limit', 'X-RateLimit-Requests-Remaining', 'X-RateLimit-Results-Limit', 'X-RateLimit-Results-Remaining', 'X-RateLimit-Reset'];

/** Routes whose rows count against the result quota: page-sized ones (cut to the rows left) and domain lists. */
const SIZED_ROUTES: ReadonlySet<EndpointId> = new Set(['v2.search', 'v1.search', 'v1.download']);
const LISTED_ROUTES: ReadonlySet<EndpointId> = new Set(['v2.fetch', 'v1.fetchMarket']);
const isRowRoute = (id: EndpointId): boolean => SIZED_ROUTES.has(id) || LISTED_ROUTES.has(id);

/** A body the contract accepted, as far as its rows go: a page's size or a list of domains. */
export interface RowsBody {
  size?: number | undefined;
  domains?: readonly unknown[] | undefined;
}

interface RowsAsked {
  kind: 'page' | 'list';
  rows: number;
}

/** The rows a parsed body asks for (a page's size, a row per listed domain); null on a route without rows. */
function rowsOf(id: EndpointId, body: RowsBody): RowsAsked | null {
  if (SIZED_ROUTES.has(id)) return { kind: 'page', rows: body.size ?? 0 };
  if (LISTED_ROUTES.has(id)) return { kind: 'list', rows: body.domains?.length ?? 0 };
  return null;
}

const fetchedRows = (metadata: unknown): number =>
  metadata && typeof metadata === 'object' && 'total_fetched' in metadata && typeof metadata.total_fetched === 'number' ? metadata.total_fetched : 0;

/** What a successful answer adds to the key's monthly usage. */
function usageOf(id: EndpointId, body: unknown): Usage {
  let rows = 0;
  if (isRowRoute(id) && body && typeof body === 'object') {
    if ('data' in body && Array.isArray(body.data)) rows = body.data.length;
    // A download: its rows are in the file, their count in the metadata.
    else if ('metadata' in body) rows = fetchedRows(body.metadata);
  }
  return { requests: 1, statsRequests: id === 'v2.stats' ? 1 : 0, results: rows };
}

const isoSeconds = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;
const plural = (n: number, word: string): string => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
const resultQuotaExhausted = (limit: number, tier: string): string => `Monthly result quota exhausted: ${plural(limit, 'row')} from /search and /fetch for ${tier}`;

/** A 429: a rate or a quota refused, and when asking again may pass. */
const tooManyRequests = (detail: string, retryAfterSeconds: number): HttpProblem => new HttpProblem(429, detail, retryAfter(retryAfterSeconds));

/** Missing credentials: v1 and the language routes each say it their own way. */
interface BearerRefusals {
  status: 401 | 403;
  /** No `Authorization: Bearer` header. */
  missing: string;
  /** The server was started without a way to verify tokens. */
  unverifiable: string;
}

const V1_BEARER: BearerRefusals = {
  status: 403,
  missing: 'Not authenticated: send x-api-key, or Authorization: Bearer <token>',
  unverifiable: 'This server accepts no bearer tokens (start it with --jwt-secret or --jwks); use an API key',
};
const LANGUAGE_BEARER: BearerRefusals = {
  status: 401,
  missing: 'Not authenticated: send Authorization: Bearer <token>',
  unverifiable: 'This server accepts no bearer tokens (start it with --jwt-secret or --jwks)',
};

export const missingKey = (): HttpProblem => new HttpProblem(401, 'Missing API key: send it in the x-api-key header');

export interface AdmissionOptions {
  engine: EngineState;
  keys: KeyRing;
  /** Buckets, holds and counts: this process's (quota-state.ts) or shared. */
  state: QuotaState;
  /** Wall clock in ms. */
  now: () => number;
  /** Verifies bearer tokens; null: the server accepts none. */
  bearer: BearerVerifier | null;
  /** When set, a bearer token needs one of these groups for the language routes. */
  languageGroups?: readonly string[] | undefined;
}

export class Admission {
  private readonly engine: EngineState;
  private keys: KeyRing;
  private readonly state: QuotaState;
  private readonly now: () => number;
  private readonly bearer: BearerVerifier | null;
  private readonly languageGroups: readonly string[] | undefined;
  private readonly views = new Map<string, Engine>();
  /** Bearer users' buckets in this process, for while the shared state cannot answer. */
  private readonly fallbackBuckets = new LocalBuckets();

  constructor(options: AdmissionOptions) {
    this.engine = options.engine;
    this.keys = options.keys;
    this.state = options.state;
    this.now = options.now;
    this.bearer = options.bearer;
    this.languageGroups = options.languageGroups;
    this.buildViews(this.keys);
  }

  /** The keys in use. */
  get keyRing(): KeyRing {
    return this.keys;
  }

  /**
   * Takes the keys as they are now (servers on a database read them again every few seconds): new keys
   * work, revoked ones are refused, tiers and visibilities apply to the next request.
   */
  replaceKeys(keys: KeyRing): void {
    // Views of keys gone or whose visibility changed are dropped first (they are only caches).
    const now = new Map(keys.entries().map((key) => [key.id, JSON.stringify(key.visibility)]));
    for (const key of this.keys.entries()) if (now.get(key.id) !== JSON.stringify(key.visibility)) this.views.delete(key.id);
    this.buildViews(keys);
    this.keys = keys;
  }

  /**
   * Builds each scoped key's view of the engine when the keys are read rather than on a key's first
   * request. Visibilities were checked as the keys were read (keys.ts): a key with an invalid one is
   * disabled there, never here.
   */
  private buildViews(keys: KeyRing): void {
    const index = this.engine.index;
    if (!index) return;
    for (const key of keys.entries()) if (key.visibility) this.viewOf(key, index);
  }

  /** Whether the text is one of the keys, disabled ones too (a request id must never be one: ids are logged). */
  isKey(text: string): boolean {
    return this.keys.lookup(text) !== null || this.keys.lookupDisabled(text) !== null;
  }

  /** The key an `x-api-key` header presents, or a 401 (no key, or a wrong one), or a 403 (a disabled key). */
  key(presented: string | string[] | undefined): ApiKey {
    const text = Array.isArray(presented) ? presented[0] : presented;
    if (!text) throw missingKey();
    const key = this.keys.lookup(text);
    if (key) return key;
    const disabled = this.keys.lookupDisabled(text);
    if (disabled) throw new HttpProblem(403, `This API key (id ${disabled.id}) is disabled: its record on the server is invalid. Ask the operator of this service to correct it; the server log says what is wrong`);
    throw new HttpProblem(401, 'Invalid API key');
  }

  /** The engine as a key sees it (null: unscoped, for bearer users), or a 503 while no index is loaded. */
  view(key: ApiKey | null): Engine {
    const index = this.engine.index;
    if (!index) throw new HttpProblem(503, `the index is not loaded${this.engine.error ? `: ${this.engine.error}` : ''}`);
    if (!key?.visibility) return index;
    return this.viewOf(key, index);
  }

  private viewOf(key: ApiKey, index: Engine): Engine {
    let view = this.views.get(key.id);
    if (!view) {
      view = index.withVisibility(key.visibility);
      this.views.set(key.id, view);
    }
    return view;
  }

  /** 403 unless the key is an admin key: `option` is for admins only. */
  requireAdmin(key: ApiKey, option: string): void {
    if (!key.admin) throw new HttpProblem(403, `${option} is for admin keys; this key is ${key.tier}`);
  }

  /**
   * A token from the key's bucket and a place in its monthly quotas (the request quota, /stats for
   * /stats, the result quota for routes that return rows), or a 429. Admin keys pass without either
   * (null).
   */
  async reserve(id: EndpointId, key: ApiKey): Promise<Hold | null> {
    if (key.admin) return null;
    const at = this.now();
    const { limits, tier } = key;
    await this.takeToken(key.id, limits, `${tier} allows`, at);
    const stats = id === 'v2.stats';
    return this.state.hold(quotaMonth(at), key.id, ({ counted, held }) => {
      const needs: QuotaNeed[] = [
        { name: 'request', unit: 'request', use: { limit: limits.monthlyRequests, counted: counted.requests, held: held.requests }, exhausted: `Monthly request quota exhausted: ${plural(limits.monthlyRequests, 'request')} for ${tier}` },
        ...(stats
          ? [{ name: '/stats', unit: 'request', use: { limit: limits.monthlyStatsRequests, counted: counted.statsRequests, held: held.statsRequests }, exhausted: `Monthly /stats quota exhausted: ${plural(limits.monthlyStatsRequests, 'request')} for ${tier}` }]
          : []),
        ...(isRowRoute(id) ? [{ name: 'result', unit: 'row', use: { limit: limits.monthlyResults, counted: counted.results, held: held.results }, exhausted: resultQuotaExhausted(limits.monthlyResults, tier) }] : []),
      ];
      const quotas = needs.map((need) => ({ ...need, standing: quotaStanding(need.use) }));
      // A quota used up for the month outranks one that frees up in a moment: retrying soon would not help.
      const refused = quotas.find((quota) => quota.standing === 'exhausted') ?? quotas.find((quota) => quota.standing === 'held');
      if (refused && refused.standing !== 'available') throw this.quotaRefusal(refused.standing, at, refused);
      return { requests: 1, statsRequests: stats ? 1 : 0, results: 0 };
    });
  }

  /**
   * /search and /fetch hold the rows they may return before they run: a search page is cut to the rows
   * left (its cursor still walks on), a fetch that could return more rows than are left is a 429.
   * `body` is parsed already (its route's contract); returns the body to run (a search's size cut).
   */
  async holdRows<Body extends RowsBody>(id: EndpointId, key: ApiKey | null, hold: Hold | null, body: Body): Promise<Body> {
    if (!key || key.admin || !hold) return body;
    const asked = rowsOf(id, body);
    return asked ? this.holdAsked(key, hold, asked, body) : body;
  }

  private async holdAsked<Body>(key: ApiKey, hold: Hold, asked: RowsAsked, body: Body): Promise<Body> {
    const at = this.now();
    let run = body;
    await this.state.extend(hold, ({ counted, held }) => {
      const use = { limit: key.limits.monthlyResults, counted: counted.results, held: held.results };
      let rows = asked.rows;
      if (asked.kind === 'page') {
        // Nothing left to serve now: a 429 (held or exhausted) rather than an empty page.
        const standing = quotaStanding(use);
        if (asked.rows > 0 && standing !== 'available') {
          throw this.quotaRefusal(standing, at, { name: 'result', unit: 'row', use, exhausted: resultQuotaExhausted(use.limit, key.tier) });
        }
        rows = Math.min(asked.rows, quotaRemaining(use));
        if (rows < asked.rows) run = { ...body, size: rows };
      } else {
        const standing = quotaStanding(use, rows);
        if (standing !== 'available') {
          const left = Math.max(0, use.limit - use.counted);
          throw this.quotaRefusal(standing, at, {
            name: 'result',
            unit: 'row',
            use,
            exhausted: `Monthly result quota: a fetch of ${plural(rows, 'domain')} may return as many rows, and ${plural(left, 'row')} ${left === 1 ? 'is' : 'are'} left for ${key.tier}`,
          });
        }
      }
      return { requests: 0, statsRequests: 0, results: rows };
    });
    return run;
  }

  /** Gives a hold's place back (an answer without a count); once only, whoever calls it again. */
  release(hold: Hold | null): void {
    if (hold) this.state.release(hold);
  }

  /**
   * Counts a successful answer: +1 request, +1 /stats request, +rows for the routes that return rows. The
   * held place is handed over to the count in one step; the promise settles once the count is durable,
   * with the key's usage just after it.
   */
  count(id: EndpointId, key: ApiKey, hold: Hold | null, body: unknown): Promise<MonthUsage> {
    return this.state.count(key.id, hold, quotaMonth(this.now()), usageOf(id, body));
  }

  /**
   * The X-RateLimit-* headers of an answer to the key: Remaining is 0 exactly when a new request would be
   * refused. From `usage` when the answer's count gave it, else read now.
   */
  async rateLimitHeaders(key: ApiKey, usage: MonthUsage | null = null): Promise<Record<string, string>> {
    const at = this.now();
    const { counted, held } = usage ?? (await this.state.usage(quotaMonth(at), key.id));
    const { monthlyRequests, monthlyResults } = key.limits;
    return {
      'X-RateLimit-Requests-Limit': String(monthlyRequests),
      'X-RateLimit-Requests-Remaining': String(quotaRemaining({ limit: monthlyRequests, counted: counted.requests, held: held.requests })),
      'X-RateLimit-Results-Limit': String(monthlyResults),
      'X-RateLimit-Results-Remaining': String(quotaRemaining({ limit: monthlyResults, counted: counted.results, held: held.results })),
      'X-RateLimit-Reset': isoSeconds(quotaReset(at)),
    };
  }

  /** A v1 caller without an API key: the user of a verified bearer token; 403 otherwise (v1 says every auth failure so). */
  async v1User(authorization: string | undefined): Promise<BearerUser> {
    const user = await this.verifyBearer(authorization, V1_BEARER);
    await this.throttle(user);
    return user;
  }

  /** A language-route caller: the user of a verified bearer token (401), in one of the allowed groups when set (403). */
  async languageUser(authorization: string | undefined): Promise<BearerUser> {
    const user = await this.verifyBearer(authorization, LANGUAGE_BEARER);
    const allowed = this.languageGroups;
    if (allowed && !user.groups.some((group) => allowed.includes(group))) {
      throw new HttpProblem(403, `Access denied: the language routes are for members of ${allowed.join(', ')}`);
    }
    await this.throttle(user);
    return user;
  }

  private async verifyBearer(authorization: string | undefined, refusals: BearerRefusals): Promise<BearerUser> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new HttpProblem(refusals.status, refusals.missing);
    if (!this.bearer) throw new HttpProblem(refusals.status, refusals.unverifiable);
    return this.bearer(token);
  }

  /**
   * Bearer (dashboard) users have no quota, but they share tier_2's rate so that one token cannot
   * monopolise the server (each user by `sub`).
   */
  private async throttle(user: BearerUser): Promise<void> {
    const slot = `user:${user.sub}`;
    try {
      await this.takeToken(slot, DEFAULT_TIER_LIMITS.tier_2, 'a signed-in user may send', this.now());
    } catch (error) {
      if (!isUnavailability(error)) throw error;
      // Without quotas, a user's rate needs no shared database: while it cannot answer, this process's
      // own bucket holds the rate, and the language routes keep working.
      await this.takeToken(slot, DEFAULT_TIER_LIMITS.tier_2, 'a signed-in user may send', this.now(), this.fallbackBuckets);
    }
  }

  /** One token from the caller's bucket (created on first use), or a 429 saying the rate and when to retry. */
  private async takeToken(slot: string, limits: TierLimits, who: string, at: number, buckets: Pick<QuotaState, 'takeToken'> = this.state): Promise<void> {
    const taken = await buckets.takeToken(slot, limits.ratePerSecond, limits.burst, at);
    if (!taken.ok) {
      throw tooManyRequests(`Rate limit exceeded: ${who} ${limits.ratePerSecond} requests per second (bursts of ${limits.burst}); retry in ${plural(taken.retryAfterSeconds, 'second')}`, taken.retryAfterSeconds);
    }
  }

  /**
   * The 429 of a quota that cannot give what a request needs: exhausted until the month resets, or held by
   * requests in flight for a moment. One Retry-After rule for both (limits.ts).
   */
  private quotaRefusal(standing: Exclude<QuotaStanding, 'available'>, at: number, quota: QuotaNeed): HttpProblem {
    const seconds = quotaRetryAfterSeconds(standing, at);
    if (standing === 'exhausted') return tooManyRequests(`${quota.exhausted}; it resets at ${isoSeconds(quotaReset(at))}`, seconds);
    const left = Math.max(0, quota.use.limit - quota.use.counted);
    const held = Math.min(quota.use.held, left);
    return tooManyRequests(`Monthly ${quota.name} quota held by requests in flight: ${held.toLocaleString('en')} of ${plural(left, `remaining ${quota.unit}`)} ${held === 1 ? 'is' : 'are'} reserved; retry in ${plural(seconds, 'second')}`, seconds);
  }
}
