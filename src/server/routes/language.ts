/**
 * The language routes (/v1/generate-keywords, /v1/qna, /v1/nlp_search): bearer tokens only — 401 when
 * missing or invalid, 403 when the groups do not allow — the input checked with the contract (400 with a
 * message, as their spec says), then the language provider.
 */
import { countTokens } from 'gpt-tokenizer';
import type { FastifyPluginCallback, FastifyReply } from 'fastify';
import { ENDPOINTS, parseRequest, type EndpointId, type RequestOutput } from '../../contract/endpoints.js';
import { localLanguageProvider, type LanguageProvider } from '../../engine/language/provider.js';
import type { EngineState } from '../admission.js';
import { errorHandler } from '../error-handler.js';
import { runInSlices } from '../slices.js';
import { fetchSite, SITE_DEADLINE_MS } from '../web-fetch.js';

export interface SiteFetching {
  /** /v1/qna may fetch loopback and private addresses; default refused. */
  allowPrivateFetch?: boolean | undefined;
  /** Fixed addresses for host names (like /etc/hosts). */
  fetchHosts?: Readonly<Record<string, string>> | undefined;
  /** Time in ms one /v1/qna request may spend fetching the site, all pages together. */
  qnaDeadlineMs?: number | undefined;
}

/** The local, data-driven provider over the engine, reading websites with web-fetch.ts. */
export function siteReadingProvider(engine: EngineState, now: () => number, fetching: SiteFetching): LanguageProvider {
  return localLanguageProvider(() => engine.index, now, {
    fetchPages: (domain, maxPages, signal, question) =>
      fetchSite(domain, maxPages, { allowPrivate: fetching.allowPrivateFetch ?? false, hosts: fetching.fetchHosts ?? {}, deadlineMs: fetching.qnaDeadlineMs ?? SITE_DEADLINE_MS, ...(signal ? { signal } : {}), ...(question ? { question } : {}) }),
    countTokens,
    // The answer is computed in steps, the event loop served between them.
    runSteps: runInSlices,
  });
}

/** Aborts when the caller closes the connection before the answer is complete: nobody waits for it any more. */
function callerGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const gone = (): void => {
    if (!response.writableFinished) controller.abort(new Error('the caller closed the connection'));
  };
  if (response.closed) gone();
  else response.once('close', gone);
  return controller.signal;
}

export interface LanguageRoutesOptions {
  provider: LanguageProvider;
}

type LanguageId = Extract<EndpointId, `language.${string}`>;

export const languageRoutes: FastifyPluginCallback<LanguageRoutesOptions> = (app, { provider }, done) => {
  app.setErrorHandler(errorHandler({ authStatus: 401 }));

  /** One route: a bearer token admitted (the admission plugin), its contract-checked input → the provider. */
  const route = <Id extends LanguageId>(id: Id, answer: (input: RequestOutput<Id>, reply: FastifyReply) => unknown): void => {
    const endpoint = ENDPOINTS[id];
    app.route({
      method: endpoint.method,
      url: endpoint.path,
      config: { admission: id },
      handler: async (request, reply) => answer(parseRequest(id, request.body), reply),
    });
  };

  route('language.generateKeywords', (input) => provider.generateKeywords(input.keywords));
  route('language.qna', (input, reply) => provider.qna(input.question, input.domain, input.max_pages, callerGone(reply)));
  route('language.nlpSearch', (input) => provider.nlpSearch(input));
  done();
};
