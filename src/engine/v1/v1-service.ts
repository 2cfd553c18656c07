/**
 * The legacy v1 search interface, answered by the same engine as v2 (portable; PITs asynchronous).
 *
 * SEARCH. A v1 body becomes a v2 search: keywords {must_one → must_any, must_all, must_not}, `locations`
 * and `custom_filters` (a v2 filters object) become v2 filters — a level given in both must match both —
 * `domains` become similar-to references (all of them, not only v2's three), `semantic_input` becomes
 * `describe` (giving both `domains` and `semantic_input` is a 400, as in v2), `excludes` as they are.
 * `query_type` names the engine's mode: filter, keyword, semantic, similarity or hybrid; `metadata.query`
 * describes the query in Elasticsearch's DSL terms.
 *
 * POINT IN TIME. A search whose results do not fit one page opens a point-in-time context (PIT) and
 * returns its `pit_id` with `search_after`. The PIT freezes the result list: the ordered rows (scored
 * modes: at most 10,000, the v2 depth cap) and the immutable index they come from, so pages walk it
 * without duplicates or gaps even if the service's data is replaced meanwhile. `search_after` is
 * `[position, domain]` — the domain is the unique tiebreaker and must match the frozen list. Send the
 * same query with `pit_id` and `search_after` for the next page; a PIT lives 5 minutes after its last use
 * (keep-alive extended by every page), belongs to the caller that opened it, and `close_pit` frees it.
 * An expired, closed or foreign PIT is a 400 naming it. A caller holds at most 50 PITs (one more closes
 * its own least recently used); the service at most 1,000, and refuses a new one when all are live
 * (PitCapacityError) rather than close another caller's (pit-registry.ts). PITs are kept by a PitStore:
 * this process's memory by default; servers that share a database keep them there (the server's
 * database/pg-pit-store.ts), so that any of them serves the next page.
 */
import { NamedError, ValidationError } from '../../contract/errors.js';
import type { SelectableColumn } from '../../contract/common.js';
import { GEO_LEVELS, type GeoLevel } from '../../contract/common.js';
import type { Filters } from '../../contract/v2/filters.js';
import { SEARCH_LIMITS, SearchRequestSchema, type SearchMode, type SearchRequest } from '../../contract/v2/search.js';
import {
  V1ClosePitRequestSchema,
  V1DownloadRequestSchema,
  V1FetchMarketRequestSchema,
  V1SearchRequestSchema,
  V1SublocationsRequestSchema,
  type V1Column,
  type V1DownloadRequest,
  type DownloadFormat,
  type V1FetchMarketResponse,
  type V1SearchRequest,
  type V1SearchResponse,
  type V1SublocationsResponse,
} from '../../contract/v1.js';
import { validate, type ValidationErrorItem } from '../../contract/validation.js';
import type { RequestOutput } from '../../contract/endpoints.js';
import type { FetchResponse } from '../../contract/v2/fetch.js';
import type { FullRanking } from '../query/search.js';
import type { ColumnStore } from '../store/store.js';
import { PitRegistry, type PitRegistryOptions } from './pit-registry.js';

export { MAX_OPEN_PITS, MAX_PITS_PER_CALLER, PIT_KEEP_ALIVE_MS, PitCapacityError } from './pit-registry.js';

/** A v1 error: the route answers 400 with `{"detail": message}` (auth failures are the server's 403). */
export class LegacyError extends NamedError {}

/** The one index this service holds, and how v1 names it. */
export const LEGACY_INDEX = 'organizations-local';

const QUERY_TYPES: Record<SearchMode, string> = { filter: 'filter', fulltext: 'keyword', semantic: 'semantic', vector_similarity: 'similarity', hybrid: 'hybrid' };

export interface LegacyOptions {
  /** Wall clock in ms (timestamps). */
  now: () => number;
  /** A fresh unique id (download ids): the host injects crypto.randomUUID. */
  newId: () => string;
  /** Where PITs are kept (default: this process's memory, a MemoryPitStore on `now` and `newId`). */
  pits?: PitStore;
}

/**
 * What the v1 service reads of the engine: the v2 index as one caller may see it. The engine's Engine
 * is one; the v1 layer sits below it and does not import it.
 */
export interface V1Index {
  readonly store: ColumnStore;
  /** The rows this caller may see (null: all). */
  readonly visibleRows: Uint8Array | null;
  /** A validated v2 search's whole result list, in result order (scored modes: at most `cap` rows). */
  rankAll(request: SearchRequest, cap: number): FullRanking;
  /** A v2 fetch of domains v1's contract has checked already (the same domain rule and the same 5,000 at most). */
  fetchParsed(request: RequestOutput<'v2.fetch'>): FetchResponse;
}

/**
 * Who calls: PITs belong to their opener; `index` is the engine as this caller may see it (`LegacyCaller`,
 * src/engine/index.ts: this over a Engine).
 */
export interface V1Caller {
  id: string;
  index: V1Index;
}

/** A point-in-time context: the frozen result list of one query, and the index its rows come from. */
export interface Pit {
  /** The index as it was when the PIT opened (immutable: later data lives in another index). */
  index: V1Index;
  fingerprint: string;
  rows: Uint32Array;
  total: number;
  mode: SearchMode;
}

/** Keeps the open PITs, their keep-alive, and the caps (pit-registry.ts says which). */
export interface PitStore {
  /** Opens a PIT for `owner` and returns its id; rejects with PitCapacityError when the service is full. */
  open(owner: string, pit: Pit): Promise<string>;
  /**
   * A live PIT of this owner, its keep-alive extended; null when expired, closed or foreign. `current` is
   * the index as the caller sees it now: a store that keeps no index object (a database) gives the PIT
   * that one, and refuses with a LegacyError when it no longer holds the data the PIT was opened on.
   */
  use(id: string, owner: string, current: V1Index): Promise<Pit | null>;
  /** Closes a live PIT of this owner; false when there is none. */
  close(id: string, owner: string): Promise<boolean>;
  /** Drops expired PITs (and with them any index only they kept alive). */
  sweep(): void;
}

/** PITs in this process's memory (pit-registry.ts). */
export class MemoryPitStore implements PitStore {
  private readonly registry: PitRegistry<Pit>;

  constructor(options: PitRegistryOptions) {
    this.registry = new PitRegistry<Pit>(options);
  }

  /** Live PITs (after dropping expired ones). */
  get size(): number {
    return this.registry.size;
  }

  open(owner: string, pit: Pit): Promise<string> {
    return new Promise((resolve) => { resolve(this.registry.open(owner, pit)); });
  }

  use(id: string, owner: string): Promise<Pit | null> {
    return Promise.resolve(this.registry.use(id, owner));
  }

  close(id: string, owner: string): Promise<boolean> {
    return Promise.resolve(this.registry.close(id, owner));
  }

  sweep(): void {
    this.registry.sweep();
  }
}

/** Turns validation failures into one readable v1 message: "keywords.must_one.0: String should …". */
function detailMessage(items: readonly ValidationErrorItem[]): string {
  return items.map((item) => `${item.loc.slice(1).join('.') || 'body'}: ${item.msg}`).join('; ');
}

function parsed<T>(result: { ok: true; value: T } | { ok: false; error: { detail: ValidationErrorItem[] } }): T {
  if (!result.ok) throw new LegacyError(detailMessage(result.error.detail));
  return result.value;
}

/**
 * `*` wildcards only, anchored: does the v1 `index` name or pattern cover this service's index? Matched
 * without a regular expression (a pattern of many stars must not take exponential time): greedy with one
 * backtrack point, O(pattern × name).
 */
export function indexMatches(pattern: string, name = LEGACY_INDEX): boolean {
  if (pattern.length > 255) return false;
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

function checkIndex(pattern: string): void {
  if (!indexMatches(pattern)) {
    throw new LegacyError(`index "${pattern}" matches no index of this service: it holds "${LEGACY_INDEX}" (pattern organizations-*)`);
  }
}

/** v2 filters from v1 locations and custom_filters: a level in both must satisfy both (intersection). */
function filtersOf(request: V1SearchRequest): Filters | null {
  const filters: Record<string, unknown> = { ...(request.custom_filters ?? {}) };
  for (const level of GEO_LEVELS) {
    const values = request.locations?.[level] ?? [];
    if (values.length === 0) continue;
    const existing = filters[level] as string[] | undefined;
    const kept = existing ? new Set(existing) : null;
    filters[level] = kept ? values.filter((value) => kept.has(value)) : values;
    // An empty intersection must match nothing, not lift the condition: keep an impossible value.
    if ((filters[level] as string[]).length === 0) filters[level] = ['\u0000no such place'];
  }
  return Object.keys(filters).length > 0 ? (filters) : null;
}

/** The v2 search a v1 body stands for (validated by the v2 contract, so both agree on every rule). */
function v2RequestOf(request: V1SearchRequest): SearchRequest {
  if (request.domains.length > 0 && request.semantic_input !== null) {
    throw new LegacyError('give domains (similarity) or semantic_input, not both');
  }
  const keywords = request.keywords ? { must_all: request.keywords.must_all, must_any: request.keywords.must_one, must_not: request.keywords.must_not } : null;
  const input = {
    keywords,
    filters: filtersOf(request),
    describe: request.semantic_input,
    similar_to: request.domains.length > 0 ? request.domains.slice(0, SEARCH_LIMITS.similarToEntries) : null,
    excludes: request.excludes,
    size: Math.min(request.size, SEARCH_LIMITS.sizeMax),
    columns: ['domain'],
  };
  const result = validate(SearchRequestSchema, input);
  if (!result.ok) {
    // Report in v1's names: keywords.must_one, not must_any.
    const v1Names = (text: string): string =>
      text.replace(/\bmust_any\b/g, 'must_one').replace(/\bdescribe\b/g, 'semantic_input').replace(/\bsimilar_to\b/g, 'domains').replace(/\bfilters\b/g, 'locations or custom_filters');
    const items = result.error.detail.map((item) => ({
      ...item,
      msg: v1Names(item.msg),
      loc: item.loc.map((segment) => (typeof segment === 'string' ? v1Names(segment) : segment)),
    }));
    throw new LegacyError(detailMessage(items));
  }
  const v2 = result.value;
  // v1 takes any number of reference domains; the engine combines them like v2's entries.
  if (request.domains.length > SEARCH_LIMITS.similarToEntries) {
    v2.similar_to = request.domains.map((domain) => ({ domain, boost: [], penalize: [], repel_domains: [], weight: 1 }));
  }
  return v2;
}

/** The query as Elasticsearch would have run it (documentation for the caller, not executed). */
function describeQuery(request: SearchRequest, mode: SearchMode): unknown {
  const filter = Object.entries(request.filters ?? {}).map(([field, value]) => (Array.isArray(value) ? { terms: { [field]: value } } : { [field]: value }));
  const excluded = request.excludes.length > 0 ? [{ terms: { domain: request.excludes } }] : [];
  const fields = ['name^2', 'summary', 'summary_keywords', 'text'];
  const keywordQuery = request.keywords
    ? {
        bool: {
          must: request.keywords.must_all.map((query) => ({ multi_match: { query, fields, type: 'phrase' } })),
          should: request.keywords.must_any.map((query) => ({ multi_match: { query, fields, type: 'phrase' } })),
          ...(request.keywords.must_any.length > 0 ? { minimum_should_match: 1 } : {}),
          must_not: [...request.keywords.must_not.map((query) => ({ multi_match: { query, fields, type: 'phrase' } })), ...excluded],
          filter,
        },
      }
    : { bool: { filter, must_not: excluded } };
  const knn = {
    knn: {
      field: 'embedding',
      ...(request.describe !== null ? { query_text: request.describe } : { similar_to: (request.similar_to ?? []).map((entry) => entry.domain) }),
      k: SEARCH_LIMITS.scoredDepthCap,
      similarity: request.min_score,
      filter: { bool: { filter, must_not: excluded } },
    },
  };
  if (mode === 'filter' || mode === 'fulltext') return { query: keywordQuery, sort: mode === 'filter' ? [{ domain: 'asc' }] : ['_score', { domain: 'asc' }] };
  if (mode === 'hybrid') return { retriever: { rrf: { retrievers: [{ standard: { query: keywordQuery } }, knn], rank_constant: 60, rank_window_size: 1000 } } };
  return knn;
}

/** Output rows in v1 columns: v2 columns from the store; `description` is the summary; contacts are unknown here. */
function v1Rows(index: V1Index, rows: ArrayLike<number>, columns: readonly V1Column[]): Record<string, unknown>[] {
  const v2Columns = [...new Set(columns.map((column) => (column === 'description' ? 'summary' : column)).filter((column) => column !== 'main_contact_mail' && column !== 'main_contact_number'))] as SelectableColumn[];
  return index.store.rows(Array.from(rows), v2Columns).map((row) => {
    const out: Record<string, unknown> = {};
    for (const column of columns) {
      if (column === 'description') out.description = row.summary ?? null;
      else if (column === 'main_contact_mail' || column === 'main_contact_number') out[column] = null;
      else out[column] = (row as Record<string, unknown>)[column] ?? null;
    }
    return out;
  });
}

/** Where the page after `cursor` starts in the PIT's list; the cursor must come from this list. */
function positionAfter(id: string, pit: Pit, cursor: readonly unknown[] | null): number {
  if (cursor === null) return 0;
  const [position, domain] = cursor;
  const valid =
    cursor.length === 2 &&
    typeof position === 'number' &&
    Number.isInteger(position) &&
    position >= 1 &&
    position <= pit.rows.length &&
    pit.index.store.domains.get(pit.rows[position - 1] ?? -1) === domain;
  if (!valid) throw new LegacyError(`search_after does not come from pit_id ${id}: send metadata.search_after of the previous page unchanged`);
  return position;
}

/**
 * The v1 answers. Each takes a body as it came, checked here (a LegacyError: v1's 400), or, as `…Parsed`,
 * one the contract has parsed already (the server's routes parse each request once, with parseRequest).
 */
export class LegacyService {
  private readonly pits: PitStore;

  constructor(private readonly options: LegacyOptions) {
    this.pits = options.pits ?? new MemoryPitStore({ now: options.now, newId: options.newId });
  }

  /** Drops expired PITs (and with them any index only they kept alive). */
  sweepPits(): void {
    this.pits.sweep();
  }

  /** A live PIT of this caller, its keep-alive extended (and moved to most recently used). */
  private async usePit(id: string, caller: V1Caller): Promise<Pit> {
    const pit = await this.pits.use(id, caller.id, caller.index);
    if (!pit) throw new LegacyError(`pit_id ${id} has expired or was closed (or was never opened by this caller); start again without pit_id`);
    return pit;
  }

  async search(body: unknown, caller: V1Caller): Promise<V1SearchResponse> {
    return this.searchParsed(parsed(validate(V1SearchRequestSchema, body)), caller);
  }

  async searchParsed(request: V1SearchRequest, caller: V1Caller): Promise<V1SearchResponse> {
    checkIndex(request.index);
    const v2 = v2RequestOf(request);
    const fingerprint = JSON.stringify([request.index, v2.keywords, v2.filters, v2.describe, v2.similar_to, [...v2.excludes].sort()]);

    let pitId: string | null = null;
    let rows: Uint32Array;
    let total: number;
    let mode: SearchMode;
    let index = caller.index;
    let start = 0;
    if (request.pit_id !== null) {
      pitId = request.pit_id;
      const pit = await this.usePit(pitId, caller);
      if (pit.fingerprint !== fingerprint) throw new LegacyError(`pit_id ${pitId} belongs to another query: send the same query on every page`);
      ({ rows, total, mode, index } = pit);
      start = positionAfter(pitId, pit, request.search_after);
    } else {
      if (request.search_after !== null) throw new LegacyError('search_after needs the pit_id of the search it continues (metadata.pit_id of the first page)');
      const ranking = caller.index.rankAll(v2, SEARCH_LIMITS.scoredDepthCap);
      ({ rows, mode } = ranking);
      total = ranking.total ?? ranking.rows.length;
      if (rows.length > request.size) pitId = await this.pits.open(caller.id, { index, fingerprint, rows, total, mode });
    }
    const end = Math.min(rows.length, start + request.size);
    const page = rows.subarray(start, end);
    const last = end > 0 ? rows[end - 1] : undefined;
    return {
      data: v1Rows(index, page, request.columns) as V1SearchResponse['data'],
      metadata: {
        search_id: request.search_id,
        index: request.index,
        size: request.size,
        columns: request.columns,
        query: describeQuery(v2, mode),
        total_hits: total,
        total_fetched: page.length,
        query_type: QUERY_TYPES[mode],
        pit_id: pitId,
        search_after: pitId !== null && end < rows.length && last !== undefined ? [end, index.store.domain(last)] : null,
      },
    };
  }

  async closePit(input: unknown, caller: V1Caller): Promise<{ succeeded: boolean }> {
    return this.closePitParsed(parsed(validate(V1ClosePitRequestSchema, input, 'query')), caller);
  }

  async closePitParsed({ pit_id: id }: RequestOutput<'v1.closePit'>, caller: V1Caller): Promise<{ succeeded: boolean }> {
    return { succeeded: await this.pits.close(id, caller.id) };
  }

  /** The distinct child-level names under a parent location (the next level that has any). */
  sublocations(body: unknown, caller: V1Caller): V1SublocationsResponse {
    return this.sublocationsParsed(parsed(validate(V1SublocationsRequestSchema, body)), caller);
  }

  sublocationsParsed(request: RequestOutput<'v1.sublocations'>, caller: V1Caller): V1SublocationsResponse {
    checkIndex(request.index);
    const { store } = caller.index;
    const visible = caller.index.visibleRows;
    if (request.parent_level === 'municipality') throw new LegacyError('municipality is the lowest level: it has no sublocations');
    const parentLevel = request.parent_level;
    const childLevels: GeoLevel[] = parentLevel === 'all' ? ['country'] : GEO_LEVELS.slice(GEO_LEVELS.indexOf(parentLevel) + 1);
    const parent = parentLevel === 'all' ? null : store.categorical[parentLevel];
    const wanted = request.parent_value.trim().toLowerCase();
    const parentIds = new Set<number>();
    if (parent) parent.dict.values.forEach((value, id) => value !== null && value.toLowerCase() === wanted && parentIds.add(id));
    for (const level of childLevels) {
      const column = store.categorical[level];
      const names = new Set<string>();
      for (let row = 0; row < store.size; row++) {
        if (visible && !visible[row]) continue;
        if (parent && !parentIds.has(parent.codes[row] ?? 0)) continue;
        const name = column.dict.value(column.codes[row] ?? 0);
        if (name !== null) names.add(name);
      }
      if (names.size > 0) {
        const locations = [...names].sort((a, b) => a.localeCompare(b, 'de'));
        return { locations, level, total_count: locations.length };
      }
    }
    return { locations: [], level: childLevels[0] ?? 'country', total_count: 0 };
  }

  /** The rows of a download (the server writes the file). */
  downloadContent(body: unknown, caller: V1Caller): DownloadContent {
    return this.downloadContentParsed(parsed(validate(V1DownloadRequestSchema, body)), caller);
  }

  /** `downloadContent` of a parsed body; its `search_info.query` (any object to the contract) is checked here. */
  downloadContentParsed(request: V1DownloadRequest, caller: V1Caller): DownloadContent {
    checkIndex(request.index);
    const base = { downloadId: request.download_id ?? this.options.newId(), format: request.download_format, index: request.index, columns: request.columns };
    if (request.market_info) {
      const { store } = caller.index;
      const fetched = caller.index.fetchParsed({ domains: request.market_info.market, columns: ['domain'] });
      const rows = fetched.data.slice(0, request.size).map((row) => store.rowOf(row.domain) ?? -1).filter((row) => row >= 0);
      return { ...base, rows: v1Rows(caller.index, rows, request.columns), totalHits: fetched.metadata.found, queryType: 'market' };
    }
    const query = parsed(validate(DownloadQuerySchema, request.search_info?.query ?? {}));
    const v2 = v2RequestOf({ ...query, search_id: '00000000-0000-4000-8000-000000000000', index: request.index, size: request.size, columns: request.columns, pit_id: null, search_after: null });
    const ranking = caller.index.rankAll(v2, SEARCH_LIMITS.scoredDepthCap);
    return {
      ...base,
      rows: v1Rows(caller.index, ranking.rows.subarray(0, request.size), request.columns),
      totalHits: ranking.total ?? ranking.rows.length,
      queryType: DOWNLOAD_QUERY_TYPES[ranking.mode],
    };
  }

  fetchMarket(body: unknown, caller: V1Caller): V1FetchMarketResponse {
    return this.fetchMarketParsed(parsed(validate(V1FetchMarketRequestSchema, body)), caller);
  }

  fetchMarketParsed(request: RequestOutput<'v1.fetchMarket'>, caller: V1Caller): V1FetchMarketResponse {
    checkIndex(request.index);
    const { store } = caller.index;
    const fetched = caller.index.fetchParsed({ domains: request.domains, columns: ['domain'] });
    const rowIds = fetched.data.map((row) => store.rowOf(row.domain) ?? -1).filter((row) => row >= 0);
    const data = v1Rows(caller.index, rowIds, request.columns);
    return {
      data: data as V1FetchMarketResponse['data'],
      metadata: {
        total_fetched: data.length,
        index: request.index,
        columns: request.columns,
        domains_requested: fetched.metadata.requested,
        domains_found: fetched.metadata.found,
        missing_domains: fetched.metadata.missing,
        timestamp: new Date(this.options.now()).toISOString(),
      },
    };
  }
}

/**
 * What `/v1/download` puts in its file: `search_info.query` holds the search parameters of /v1/search
 * (keywords, locations, custom_filters, domains, semantic_input, excludes) — the query of the search the
 * download repeats; `market_info.market` a list of domains. At most `size` (≤ 10) rows.
 */
export interface DownloadContent {
  downloadId: string;
  format: DownloadFormat;
  index: string;
  columns: V1Column[];
  rows: Record<string, unknown>[];
  totalHits: number;
  /** text (filter and keyword queries), vector (semantic, similarity), hybrid, or market. */
  queryType: string;
}

const DownloadQuerySchema = V1SearchRequestSchema.pick({ keywords: true, locations: true, custom_filters: true, domains: true, semantic_input: true, excludes: true });

const DOWNLOAD_QUERY_TYPES: Record<SearchMode, string> = { filter: 'text', fulltext: 'text', semantic: 'vector', vector_similarity: 'vector', hybrid: 'hybrid' };

/** Whether an error is one the v1 routes answer with 400 and its message. */
export function legacyMessage(error: unknown): string | null {
  if (error instanceof LegacyError) return error.message;
  if (error instanceof ValidationError) return detailMessage(error.detail);
  return null;
}

