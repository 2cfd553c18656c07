/**
 * The local implementation of the v2 service: `createEngine(records)` answers the same contract
 * bodies as the HTTP interface, in-process and synchronously. Inputs are validated with the contract
 * (a bad body throws the same ValidationError the server's 422 carries); outputs are the response bodies.
 * The `…Parsed` methods take an input already parsed with the contract: the server parses each request
 * once, at its edge, and passes the parsed value on.
 */
import { ValidationError } from '../contract/errors.js';
import { parseRequest, type RequestInput, type RequestOutput } from '../contract/endpoints.js';
import type { FilterValueWarning, Filters } from '../contract/v2/filters.js';
import type { FetchResponse } from '../contract/v2/fetch.js';
import type { LocationItem, LocationListResponse } from '../contract/v2/locations.js';
import type { SearchRequest, SearchResponse } from '../contract/v2/search.js';
import type { FilterOptionsResponse, HealthResponse } from '../contract/v2/service.js';
import type { StatsResponse } from '../contract/v2/stats.js';
import type { QueryResponse } from '../contract/language.js';
import { DEFAULT_DATASET, generateRecords } from './dataset/generate.js';
import { parseQuery, WORKFLOW_STEPS } from './language/query-parser.js';
import type { OrganizationRecord } from './dataset/record.js';
import { LocationIndex } from './locations/location-index.js';
import { fetchRows } from './query/fetch.js';
import { checkVisibility } from './query/filter-rules.js';
import { filterMask } from './query/filters.js';
import { postingsOf } from './store/postings.js';
import { placeAliasesOf, resolveFilterSpellings, warmFilterSpellings } from './query/filter-values.js';
import { duplicateNameGroups } from './store/name-groups.js';
import { prepareVectorScan } from './relevance/vector-scan.js';
import { warmRelevance } from './relevance/store-relevance.js';
import { locationItems } from './query/location-items.js';
import { filterOptions } from './query/options.js';
import type { QueryContext, QueryVectors } from './query/context.js';
import { rankAll, search, type FullRanking } from './query/search.js';
import { computeStats } from './query/stats.js';
import { ColumnStore } from './store/store.js';

export interface EngineOptions {
  /** Rows outside these filters are invisible (a key's data scope): missing in fetch, absent elsewhere. */
  visibility?: Filters | null;
  /** Milliseconds clock for elapsed_ms; default Date.now. */
  now?: () => number;
}

/**
 * A key's visibility is a filters object like any other: normalised (`K`, `company`), checked, and spelt
 * as the index spells its values ("Germany" → Deutschland).
 */
function normalizedVisibility(store: ColumnStore, visibility: Filters): Filters {
  const result = checkVisibility(visibility);
  if (!result.ok) throw new ValidationError(result.error.detail, 422);
  return resolveFilterSpellings({ store, visible: null, now: () => 0 }, result.value).filters ?? {};
}

/** The answer with the filter-value warnings in its metadata (the key appears only when there is one). */
function withWarnings<Answer extends { metadata: object }>(answer: Answer, warnings: FilterValueWarning[]): Answer {
  return warnings.length === 0 ? answer : { ...answer, metadata: { ...answer.metadata, warnings } };
}

export class Engine {
  readonly store: ColumnStore;
  private readonly options: EngineOptions;
  private readonly context: QueryContext;
  /** The unscoped location index, shared by views of one store (built on first use). */
  private readonly shared: { locations: LocationIndex | null };
  /** A scoped view's own location index: doc counts must not reveal rows the key may not see. */
  private scopedLocations: LocationIndex | null = null;

  constructor(store: ColumnStore, options: EngineOptions = {}, shared: { locations: LocationIndex | null } = { locations: null }, context?: QueryContext) {
    this.store = store;
    this.options = options;
    this.shared = shared;
    if (context) {
      this.context = context;
      return;
    }
    const visible = options.visibility ? filterMask(store, normalizedVisibility(store, options.visibility)).bits : null;
    this.context = { store, visible, now: options.now ?? (() => Date.now()) };
  }

  /** The rows this view may see (null: all) — for the legacy interface's own queries. */
  get visibleRows(): Uint8Array | null {
    return this.context.visible;
  }

  /**
   * A validated v2 search's whole result list, in result order (at most `cap` rows in scored modes):
   * the legacy interface freezes it in point-in-time contexts.
   */
  rankAll(request: SearchRequest, cap: number): FullRanking {
    return rankAll(this.context, { ...request, filters: resolveFilterSpellings(this.context, request.filters).filters }, cap);
  }

  /**
   * This view for one query whose texts (describe, similar-to terms) were embedded ahead, by the model the
   * organization vectors came from when the engine cannot run it (see QueryContext.queryVectors).
   */
  withQueryVectors(queryVectors: QueryVectors): Engine {
    return new Engine(this.store, this.options, this.shared, { ...this.context, queryVectors });
  }

  /** A view of the same data for another key's visibility, sharing the store and the location index. */
  withVisibility(visibility: Filters | null): Engine {
    return new Engine(this.store, { ...this.options, visibility }, this.shared);
  }

  search(body: RequestInput<'v2.search'>): SearchResponse {
    return this.searchParsed(parseRequest('v2.search', body));
  }

  searchParsed(request: RequestOutput<'v2.search'>): SearchResponse {
    const spelled = resolveFilterSpellings(this.context, request.filters);
    return withWarnings(search(this.context, { ...request, filters: spelled.filters }), spelled.warnings);
  }

  fetch(body: RequestInput<'v2.fetch'>): FetchResponse {
    return this.fetchParsed(parseRequest('v2.fetch', body));
  }

  fetchParsed(request: RequestOutput<'v2.fetch'>): FetchResponse {
    return fetchRows(this.context, request);
  }

  stats(body: RequestInput<'v2.stats'>): StatsResponse {
    return this.statsParsed(parseRequest('v2.stats', body));
  }

  statsParsed(request: RequestOutput<'v2.stats'>): StatsResponse {
    const spelled = resolveFilterSpellings(this.context, request.filters);
    return withWarnings(computeStats(this.context, { ...request, filters: spelled.filters }), spelled.warnings);
  }

  filterOptions(): FilterOptionsResponse {
    return filterOptions(this.context);
  }

  health(): HealthResponse {
    return this.store.size > 0 ? { healthy: true } : { healthy: false, error: 'the index holds no organizations' };
  }

  private locations(): LocationIndex {
    const { visible } = this.context;
    if (visible) {
      this.scopedLocations ??= new LocationIndex(locationItems(this.store, visible), placeAliasesOf(this.store));
      return this.scopedLocations;
    }
    this.shared.locations ??= new LocationIndex(locationItems(this.store, null), placeAliasesOf(this.store));
    return this.shared.locations;
  }

  /** Builds the location index now (a server's warm-up) instead of in the first location request. */
  warmLocations(): void {
    this.locations();
  }

  /**
   * Builds now what the first requests would otherwise build while every other request waits: the keyword
   * index and vectors, the vector scan's module, the filter postings, the name groups of `dedup`, the filter values' spellings
   * (exonyms, codes, closest-value postings) and the location index. The engine starts no threads: a host
   * that can passes `startScanThread` and a `warmRelevance` that builds on two; each says how many it used.
   * `stepDone` is called after each step with its name (a host times them).
   */
  warm(
    threads: { startScanThread?: () => boolean; warmRelevance?: (store: ColumnStore) => 1 | 2; stepDone?: (step: string) => void } = {},
  ): { relevanceThreads: 1 | 2; scanThreads: 1 | 2 } {
    const done = threads.stepDone ?? (() => undefined);
    // Before the vectors go into the scan's memory: that memory is then the shared one.
    const scanThreads = threads.startScanThread?.() === true ? 2 : 1;
    let relevanceThreads: 1 | 2 = 1;
    if (threads.warmRelevance) relevanceThreads = threads.warmRelevance(this.store);
    else warmRelevance(this.store);
    void prepareVectorScan();
    done('keyword index and vectors');
    postingsOf(this.store).warm();
    done('filter postings');
    duplicateNameGroups(this.store);
    done('name groups');
    warmFilterSpellings(this.store);
    done('filter spellings');
    this.warmLocations();
    done('location index');
    return { relevanceThreads, scanThreads };
  }

  locationSearch(query: RequestInput<'v2.locationSearch'>): LocationListResponse {
    return this.locationSearchParsed(parseRequest('v2.locationSearch', query));
  }

  locationSearchParsed(query: RequestOutput<'v2.locationSearch'>): LocationListResponse {
    return this.locations().search(query);
  }

  locationList(query: RequestInput<'v2.locationList'> = {}): LocationListResponse {
    return this.locationListParsed(parseRequest('v2.locationList', query));
  }

  locationListParsed(query: RequestOutput<'v2.locationList'>): LocationListResponse {
    return this.locations().list(query);
  }

  /**
   * The language interface's nlp_search over this index: a plain-language query as search parameters
   * (places spelled as the index spells them). `clock` gives "today" for "new" and "since 2020" (the
   * wall clock, not the elapsed-time clock of `options.now`).
   */
  nlpSearch(body: RequestInput<'language.nlpSearch'>, clock: () => number = Date.now): QueryResponse {
    return this.nlpSearchParsed(parseRequest('language.nlpSearch', body), clock);
  }

  nlpSearchParsed({ user_query: userQuery, search_id: searchId }: RequestOutput<'language.nlpSearch'>, clock: () => number = Date.now): QueryResponse {
    const started = clock();
    const payload = parseQuery(this.store, userQuery, new Date(started).toISOString().slice(0, 10));
    return {
      payload,
      metadata: {
        search_id: searchId,
        user_query: userQuery,
        timestamp: new Date(started).toISOString(),
        processing_time: Math.max(0, (clock() - started) / 1000),
        workflow_steps: [...WORKFLOW_STEPS],
      },
    };
  }

  /** One location item, or null when the id is unknown. */
  location(locationId: string): LocationItem | null {
    return this.locationParsed(parseRequest('v2.location', { location_id: locationId }));
  }

  locationParsed(params: RequestOutput<'v2.location'>): LocationItem | null {
    return this.locations().get(params.location_id);
  }
}

/** The embedded default: the deterministic 50,000-organization sample dataset, indexed. */
export function createDefaultEngine(options: EngineOptions = {}): Engine {
  // One record at a time into the store: no array of them all (the heap the store's buffers grow beside stays small).
  return createEngine(generateRecords(DEFAULT_DATASET), options);
}

/** Builds the in-process index over organization records (see dataset/record.ts for the row format). */
export function createEngine(records: Iterable<OrganizationRecord>, options: EngineOptions = {}): Engine {
  return new Engine(ColumnStore.fromRecords(records), options);
}
