/**
 * Admission (admission.ts) as one Fastify plugin, so that no route handles a key, a token or a place in the
 * quotas itself. A route names the endpoint it answers in its config, `config: { admission: 'v2.search' }`,
 * and the plugin does the rest:
 *   onRequest  added to that route: the caller admitted as the endpoint's credentials say — an API key
 *              (401 / 403) → its tier's rate (429) → a place in its monthly quotas (429), before the body is
 *              parsed; v1 without a key and the language routes, a bearer token (401 / 403, tier_2's rate)
 *   request    `apiKey`, `bearerUser`, and `quota`: the request's endpoint, key and hold, which holds the
 *              rows /search and /fetch may return and counts a successful answer (durable before it is sent)
 *   onSend     on every route: the place given back when the answer was not counted (an error, a refusal,
 *              a caller gone), and the X-RateLimit-* headers on every answer to a known key
 * It is registered without encapsulation (what fastify-plugin does), so that its decorators and hooks reach
 * the routes of every interface's plugin registered after it.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ENDPOINTS, type EndpointId } from '../contract/endpoints.js';
import type { Admission, RowsBody } from './admission.js';
import type { BearerUser } from './bearer.js';
import type { ApiKey } from './keys.js';
import type { Hold, MonthUsage } from './quota-state.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key the request was admitted with. */
    apiKey: ApiKey | null;
    /** A verified bearer token's user (v1 without an API key, the language routes). */
    bearerUser: BearerUser | null;
    /** The request's place in its caller's quotas, on a route with `config.admission`. */
    readonly quota: RequestQuota;
  }
  interface FastifyContextConfig {
    /** The endpoint the route answers: the admission plugin admits its callers as the endpoint's credentials say. */
    admission?: EndpointId;
  }
}

/** One admitted request's endpoint, key and hold (bearer users have neither key nor hold: they are not counted). */
export class RequestQuota {
  /** The key's usage just after this request was counted (its X-RateLimit-* headers need no other read). */
  private usage: MonthUsage | null = null;

  constructor(
    private readonly admission: Admission,
    readonly endpoint: EndpointId,
    readonly key: ApiKey | null,
    readonly hold: Hold | null,
  ) {}

  /**
   * Holds the rows a body its route has parsed may return (/search, /fetch; see Admission.holdRows) and
   * resolves with the body to run: a search page cut to the rows left, a fetch beyond them a 429.
   */
  holdRows<Body extends RowsBody>(body: Body): Promise<Body> {
    return this.admission.holdRows(this.endpoint, this.key, this.hold, body);
  }

  /** Counts a successful answer, the hold handed over to the count; resolves with the answer once the count is durable. */
  async counted<Answer>(answer: Answer): Promise<Answer> {
    if (this.key) this.usage = await this.admission.count(this.endpoint, this.key, this.hold, answer);
    return answer;
  }

  /** The usage the count left (null before a count). */
  get usageAfterCount(): MonthUsage | null {
    return this.usage;
  }

  /** Gives the hold back; after a count, or a second time, it changes nothing. */
  release(): void {
    this.admission.release(this.hold);
  }
}

const plugin: FastifyPluginCallback<{ admission: Admission }> = (app, { admission }, done) => {
  const quotas = new WeakMap<FastifyRequest, RequestQuota>();
  // The key's id (not the key) on every later log line of a request, the "completed" line included. A
  // child logger costs ~10 µs: only when request lines are logged at all (errors add the id themselves).
  const logKeys = ['trace', 'debug', 'info'].includes(app.log.level);

  const admitKey = async (id: EndpointId, request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = admission.key(request.headers['x-api-key']);
    // Set before the quotas are checked: a 429 carries the key's X-RateLimit-* headers too.
    request.apiKey = key;
    if (logKeys) {
      request.log = request.log.child({ key: key.id });
      reply.log = request.log;
    }
    quotas.set(request, new RequestQuota(admission, id, key, await admission.reserve(id, key)));
  };
  const admitUser = async (id: EndpointId, request: FastifyRequest): Promise<void> => {
    const { authorization } = request.headers;
    request.bearerUser = ENDPOINTS[id].api === 'language' ? await admission.languageUser(authorization) : await admission.v1User(authorization);
    quotas.set(request, new RequestQuota(admission, id, null, null));
  };
  /** The route's admission: by API key, by bearer token, or either (v1: the key when one is sent). */
  const admitter = (id: EndpointId): onRequestAsyncHookHandler => {
    const { auth } = ENDPOINTS[id];
    if (!auth.includes('bearer')) return (request, reply) => admitKey(id, request, reply);
    if (!auth.includes('apiKey')) return (request) => admitUser(id, request);
    return (request, reply) => (request.headers['x-api-key'] !== undefined ? admitKey(id, request, reply) : admitUser(id, request));
  };

  app.decorateRequest('apiKey', null);
  app.decorateRequest('bearerUser', null);
  app.decorateRequest('quota', {
    getter(this: FastifyRequest): RequestQuota {
      const quota = quotas.get(this);
      if (!quota) throw new Error(`${this.method} ${this.routeOptions.url ?? this.url} reads request.quota, but its route names no endpoint in config.admission`);
      return quota;
    },
  });

  app.addHook('onRoute', (route) => {
    const id = route.config?.admission;
    if (id === undefined) return;
    // A new array: a GET route's options are copied for its HEAD route, which passes through here too.
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [...own, admitter(id)];
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const quota = quotas.get(request);
    quota?.release(); // answers without a count give their place back
    if (request.apiKey) {
      // The headers are a courtesy: an answer (a 503 for a database that cannot answer, say) is sent without them rather than lost.
      try {
        reply.headers(await admission.rateLimitHeaders(request.apiKey, quota?.usageAfterCount ?? null));
      } catch (error) {
        request.log.warn({ err: error, key: request.apiKey.id }, 'X-RateLimit-* headers left out: the usage could not be read');
      }
    }
    return payload;
  });
  done();
};

/** The plugin, its decorators and hooks shared with the context it is registered in (Fastify's documented `skip-override`). */
export const admissionPlugin = Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'orgindex-admission' });
