/**
 * Where the spreadsheet functions and the task pane get their answers: the local engine in-process (the
 * default until a key is entered: no server, no key, no network) or a remote OrgIndex service through
 * the client. Both answer the same contract bodies; the hosts pick one and may switch at any time.
 * One interface in two modes: asynchronous (Excel, browsers, Node: ky) and synchronous (Apps Script:
 * UrlFetchApp; the engine itself is synchronous).
 */
import type { OrgIndexClient } from '../client/client.js';
import type { ClientConfig } from '../client/config.js';
import type { Quota } from '../contract/errors.js';
import { fnv1a } from '../contract/hash.js';
import { callEndpoint, runSync, type SyncTransport } from '../client/operation.js';
import { ConfigurationError } from '../client/errors.js';
import type { EndpointId, RequestInput, ResponseBody } from '../contract/endpoints.js';
import type { Engine } from '../engine/engine.js';

/** A value as a backend of `Mode` returns it: at once (sync) or as a promise (async). */
type InMode<Mode extends 'sync' | 'async', T> = Mode extends 'sync' ? T : Promise<T>;

/** Which endpoint of the contract's table each backend operation with a body answers: its body and result are that endpoint's. */
interface BackendEndpoints {
  search: 'v2.search';
  fetch: 'v2.fetch';
  stats: 'v2.stats';
  locationSearch: 'v2.locationSearch';
  qna: 'language.qna';
  /**
   * A plain-language query as search parameters (the language interface's nlp_search): the engine's
   * parser locally; a service's needs a sign-in token (Connection.accessToken).
   */
  nlpSearch: 'language.nlpSearch';
}

export type BackendOp = keyof BackendEndpoints;
export type CallBody<Op extends BackendOp> = RequestInput<BackendEndpoints[Op]>;
export type CallResult<Op extends BackendOp> = ResponseBody<BackendEndpoints[Op]>;

/** A backend's operations with a body, each typed by its endpoint. */
export type BackendCalls<Mode extends 'sync' | 'async'> = { [Op in BackendOp]: (body: CallBody<Op>) => InMode<Mode, CallResult<Op>> };

export interface Backend<Mode extends 'sync' | 'async'> extends BackendCalls<Mode> {
  /** What results depend on besides the request (cache keys include it): "local", or the URLs and key of a remote. */
  readonly scope: string;
  readonly kind: 'local' | 'remote';
  filterOptions(): InMode<Mode, ResponseBody<'v2.filterOptions'>>;
  health(): InMode<Mode, ResponseBody<'v2.health'>>;
}

export type SheetBackend = Backend<'async'>;
export type SyncSheetBackend = Backend<'sync'>;

/** One operation by name (the spreadsheet steps' `call` effects, src/sheet/effects.ts), on a backend of either mode. */
export function callBackend<Mode extends 'sync' | 'async', Op extends BackendOp>(backend: Backend<Mode>, op: Op, body: CallBody<Op>): InMode<Mode, CallResult<Op>> {
  const calls: BackendCalls<Mode> = backend;
  return calls[op](body);
}

/** Why ORG.ASK has no local answer where the host cannot read websites (Excel's page: no cross-origin fetch). */
const LOCAL_QNA_MESSAGE =
  'answering from a website needs an OrgIndex service with a sign-in token (OrgIndex → Connection): the built-in sample cannot read websites from inside a spreadsheet';

/**
 * The engine, synchronously (Apps Script); `load` builds the index on first use. `qna` answers from a
 * website where the host can read one itself (Apps Script's UrlFetchApp reads any public site); without
 * it ORG.ASK says that it needs a service.
 */
export function localSyncBackend(load: () => Engine, qna?: (body: RequestInput<'language.qna'>) => ResponseBody<'language.qna'>): SyncSheetBackend {
  let index: Engine | null = null;
  const engine = (): Engine => (index ??= load());
  return {
    scope: 'local',
    kind: 'local',
    search: (body) => engine().search(body),
    fetch: (body) => engine().fetch(body),
    stats: (body) => engine().stats(body),
    filterOptions: () => engine().filterOptions(),
    locationSearch: (query) => engine().locationSearch(query),
    health: () => engine().health(),
    qna: (body) => {
      if (qna) return qna(body);
      throw new ConfigurationError(LOCAL_QNA_MESSAGE);
    },
    nlpSearch: (body) => engine().nlpSearch(body),
  };
}

/** A remote service over a synchronous transport (UrlFetchApp), through the client's one retry logic; `onQuota` hears every response's quota. */
export function remoteSyncBackend(config: ClientConfig, transport: SyncTransport, onQuota?: (quota: Quota) => void): SyncSheetBackend {
  const call = <Id extends EndpointId>(id: Id, input: RequestInput<Id>): ResponseBody<Id> => {
    const result = runSync(callEndpoint(config, id, input), transport);
    if (result.quota) onQuota?.(result.quota);
    return result.body;
  };
  return {
    scope: remoteScope(config),
    kind: 'remote',
    search: (body) => call('v2.search', body),
    fetch: (body) => call('v2.fetch', body),
    stats: (body) => call('v2.stats', body),
    filterOptions: () => call('v2.filterOptions', undefined),
    locationSearch: (query) => call('v2.locationSearch', query),
    health: () => call('v2.health', undefined),
    qna: (body) => call('language.qna', body),
    nlpSearch: (body) => call('language.nlpSearch', body),
  };
}

/**
 * The engine in-process. `load` builds the index on first use — in the add-in it also downloads the
 * engine's chunk — so opening a workbook costs nothing until a function runs. A failed load is retried
 * on the next call rather than remembered.
 */
export function localBackend(load: () => Engine | Promise<Engine>): SheetBackend {
  let index: Promise<Engine> | null = null;
  const engine = (): Promise<Engine> => {
    index ??= Promise.resolve()
      .then(load)
      .catch((error: unknown) => {
        index = null;
        throw error;
      });
    return index;
  };
  // Validation errors surface as rejected promises, like a remote 422.
  return {
    scope: 'local',
    kind: 'local',
    search: async (body) => (await engine()).search(body),
    fetch: async (body) => (await engine()).fetch(body),
    stats: async (body) => (await engine()).stats(body),
    filterOptions: async () => (await engine()).filterOptions(),
    locationSearch: async (query) => (await engine()).locationSearch(query),
    health: async () => (await engine()).health(),
    qna: () => Promise.reject(new ConfigurationError(LOCAL_QNA_MESSAGE)),
    nlpSearch: async (body) => (await engine()).nlpSearch(body),
  };
}

/** Short, stable, not reversible in practice: enough to keep two keys' cached answers apart. */
const fingerprint = (text: string): string => fnv1a(text).toString(36);

/** A remote's cache scope: its URLs and a fingerprint of its credentials (another key may see other rows). */
function remoteScope({ baseUrls, apiKey, accessToken }: ClientConfig): string {
  return `remote:${baseUrls.v2 ?? ''}|${baseUrls.language ?? ''}:${fingerprint(`${apiKey ?? ''}|${accessToken ?? ''}`)}`;
}

/** A remote service through the async client (ky in Excel and Node). */
export function remoteBackend(client: OrgIndexClient): SheetBackend {
  return {
    scope: remoteScope(client.config),
    kind: 'remote',
    search: (body) => client.search(body),
    fetch: (body) => client.fetch(body),
    stats: (body) => client.stats(body),
    filterOptions: () => client.filterOptions(),
    locationSearch: (query) => client.locationSearch(query),
    health: () => client.health(),
    qna: (body) => client.language.qna(body),
    nlpSearch: (body) => client.language.nlpSearch(body),
  };
}
