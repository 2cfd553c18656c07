/**
 * Where the spreadsheet functions and the task pane get their answers: the local engine in-process (the
 * default until a key is entered: no server, no key, no network) or a remote OrgIndex service through
 * the client. Both answer the same contract bodies; the hosts pick one and may switch at any time.
 */
import type { OrgIndexClient } from '../client/client.js';
import { OrgIndexError } from '../client/errors.js';
import type { RequestInput, ResponseBody } from '../contract/endpoints.js';
import type { LocalIndex } from '../engine/local-index.js';

export interface SheetBackend {
  /** What results depend on besides the request (cache keys include it): "local", or the URL and key of a remote. */
  readonly scope: string;
  readonly kind: 'local' | 'remote';
  search(body: RequestInput<'v2.search'>): Promise<ResponseBody<'v2.search'>>;
  fetch(body: RequestInput<'v2.fetch'>): Promise<ResponseBody<'v2.fetch'>>;
  stats(body: RequestInput<'v2.stats'>): Promise<ResponseBody<'v2.stats'>>;
  filterOptions(): Promise<ResponseBody<'v2.filterOptions'>>;
  locationSearch(query: RequestInput<'v2.locationSearch'>): Promise<ResponseBody<'v2.locationSearch'>>;
  health(): Promise<ResponseBody<'v2.health'>>;
  qna(body: RequestInput<'language.qna'>): Promise<ResponseBody<'language.qna'>>;
}

/**
 * The engine in-process. `load` builds the index on first use — in the add-in it also downloads the
 * engine's chunk — so opening a workbook costs nothing until a function runs. A failed load is retried
 * on the next call rather than remembered.
 */
export function localBackend(load: () => LocalIndex | Promise<LocalIndex>): SheetBackend {
  let index: Promise<LocalIndex> | null = null;
  const engine = (): Promise<LocalIndex> => {
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
    qna: () =>
      Promise.reject(
        new OrgIndexError(
          'configuration',
          'ORG.ASK reads the organization’s website, which the built-in sample cannot do from inside the spreadsheet: connect to an OrgIndex service (with a sign-in token) in the task pane',
        ),
      ),
  };
}

/** Short, stable, not reversible in practice: enough to keep two keys' cached answers apart. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}

/** A remote service through the client (ky in Excel and Node, UrlFetchApp in Sheets). */
export function remoteBackend(client: OrgIndexClient): SheetBackend {
  const { baseUrls, apiKey, accessToken } = client.config;
  return {
    scope: `remote:${baseUrls.v2 ?? ''}|${baseUrls.language ?? ''}:${fingerprint(`${apiKey ?? ''}|${accessToken ?? ''}`)}`,
    kind: 'remote',
    search: (body) => client.search(body),
    fetch: (body) => client.fetch(body),
    stats: (body) => client.stats(body),
    filterOptions: () => client.filterOptions(),
    locationSearch: (query) => client.locationSearch(query),
    health: () => client.health(),
    qna: (body) => client.language.qna(body),
  };
}
