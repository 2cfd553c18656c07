/**
 * The asynchronous OrgIndex client: every endpoint of the three interfaces, typed from the contract,
 * over an injected async transport (see transports/ky.ts). The last quota seen is kept for the UI.
 */
import { resolveConfig, type ClientConfig, type ClientOptions } from './config.js';
import type { Quota } from '../contract/errors.js';
import { callEndpoint, runAsync, type AsyncTransport, type CallResult } from './operation.js';
import { advancePagination, nextPageRequest, startPagination, type PaginationOptions, type PaginationState } from './paginate.js';
import type { EndpointId, RequestInput, ResponseBody } from '../contract/endpoints.js';
import type { SearchRequestInput, SearchResponse } from '../contract/v2/search.js';

export interface SearchPage {
  response: SearchResponse;
  /** Pagination state after this page (rows so far, mode, why the walk stopped). */
  state: PaginationState;
}

export class OrgIndexClient {
  readonly config: ClientConfig;
  private readonly transport: AsyncTransport;
  private quotaListeners: ((quota: Quota) => void)[] = [];
  /** The quota of the most recent response that carried rate-limit headers. */
  lastQuota: Quota | null = null;

  constructor(options: ClientOptions, transport: AsyncTransport) {
    this.config = resolveConfig(options);
    this.transport = transport;
  }

  /** Calls `listener` with every new quota; returns a function that unsubscribes. */
  onQuota(listener: (quota: Quota) => void): () => void {
    this.quotaListeners.push(listener);
    return () => {
      this.quotaListeners = this.quotaListeners.filter((l) => l !== listener);
    };
  }

  /** Low level: any endpoint by id, with status, quota and attempt count. */
  async call<Id extends EndpointId>(id: Id, input: RequestInput<Id>): Promise<CallResult<ResponseBody<Id>>> {
    try {
      const result = await runAsync(callEndpoint(this.config, id, input), this.transport);
      this.noteQuota(result.quota);
      return result;
    } catch (error) {
      this.noteQuota((error as { quota?: Quota | null }).quota ?? null);
      throw error;
    }
  }

  private noteQuota(quota: Quota | null): void {
    if (!quota) return;
    this.lastQuota = quota;
    for (const listener of this.quotaListeners) listener(quota);
  }

  private async body<Id extends EndpointId>(id: Id, input: RequestInput<Id>): Promise<ResponseBody<Id>> {
    return (await this.call(id, input)).body;
  }

  search(body: RequestInput<'v2.search'>) { return this.body('v2.search', body); }
  fetch(body: RequestInput<'v2.fetch'>) { return this.body('v2.fetch', body); }
  stats(body: RequestInput<'v2.stats'>) { return this.body('v2.stats', body); }
  filterOptions() { return this.body('v2.filterOptions', undefined); }
  health() { return this.body('v2.health', undefined); }
  locationSearch(query: RequestInput<'v2.locationSearch'>) { return this.body('v2.locationSearch', query); }
  locationList(query: RequestInput<'v2.locationList'> = {}) { return this.body('v2.locationList', query); }
  location(locationId: string) { return this.body('v2.location', { location_id: locationId }); }

  readonly v1 = {
    search: (body: RequestInput<'v1.search'>) => this.body('v1.search', body),
    sublocations: (body: RequestInput<'v1.sublocations'>) => this.body('v1.sublocations', body),
    fetchMarket: (body: RequestInput<'v1.fetchMarket'>) => this.body('v1.fetchMarket', body),
    download: (body: RequestInput<'v1.download'>) => this.body('v1.download', body),
    closePit: (pitId: string) => this.body('v1.closePit', { pit_id: pitId }),
  };

  readonly language = {
    generateKeywords: (body: RequestInput<'language.generateKeywords'>) => this.body('language.generateKeywords', body),
    qna: (body: RequestInput<'language.qna'>) => this.body('language.qna', body),
    nlpSearch: (body: RequestInput<'language.nlpSearch'>) => this.body('language.nlpSearch', body),
  };

  /** Pages of a search, following `search_after` until the end, `maxRows` or the scored-mode depth cap. */
  async *searchPages(request: SearchRequestInput, options: PaginationOptions = {}): AsyncGenerator<SearchPage> {
    let state = startPagination(request, options);
    for (let body = nextPageRequest(state); body !== null; body = nextPageRequest(state)) {
      const response = await this.search(body);
      state = advancePagination(state, response);
      yield { response, state };
    }
  }

  /** All rows of a search (bounded as searchPages is). */
  async searchAll(request: SearchRequestInput, options: PaginationOptions = {}): Promise<{ rows: SearchResponse['data']; state: PaginationState | null }> {
    const rows: SearchResponse['data'] = [];
    let last: PaginationState | null = null;
    for await (const page of this.searchPages(request, options)) {
      rows.push(...page.response.data);
      last = page.state;
    }
    return { rows, state: last };
  }
}
