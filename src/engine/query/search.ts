/**
 * v2 search. This file holds filter mode (only `filters`): keyset pagination in domain order, exact
 * `total_hits`, no depth cap, and a cursor — the last domain returned — that stays valid while rows are
 * added. The scored modes (fulltext, semantic, vector_similarity, hybrid) belong to the relevance engine.
 */
import type { SearchMode, SearchRequest, SearchResponse } from '../../contract/v2/search.js';
import { inferSearchMode } from '../../contract/v2/search.js';
import { fulltextRanker, hybridRanker, maskOfRows, semanticRanker, similarRanker, type Allowed } from './rankers.js';
import { cursorError, searchScored, type Ranker } from './scored.js';
import type { ColumnStore } from '../store/store.js';
import { filterSet, rowMask, withoutDomains } from './filters.js';
import { has, walkFrom, type PositionSet } from '../store/position-set.js';
import { sortedAscending } from '../store/radix-sort.js';
import { duplicateNameGroups } from '../store/name-groups.js';
import { populationOf, type QueryContext } from './context.js';

function cursorDomain(cursor: unknown[] | null): string | null {
  if (cursor === null) return null;
  const [domain] = cursor;
  if (cursor.length !== 1 || typeof domain !== 'string') {
    throw cursorError('this cursor does not come from a filter-mode search: send metadata.search_after of the previous page unchanged', cursor);
  }
  return domain;
}

/**
 * Dedup as a predicate: a row is hidden when an earlier row (in domain order) with the same name also
 * matches. Each group's first matching member is looked up once per query, on the walk's first visit.
 */
function dedupFilter(store: ColumnStore, matching: PositionSet): (row: number) => boolean {
  const { groupOf, starts, rows } = duplicateNameGroups(store);
  const firstOf = new Map<number, number>();
  return (row) => {
    const group = groupOf[row] ?? 0;
    if (group === 0) return false;
    let first = firstOf.get(group);
    if (first === undefined) {
      first = row;
      for (let i = starts[group] ?? 0; i < (starts[group + 1] ?? 0); i++) {
        const member = rows[i] ?? 0;
        if (has(matching, store.domainRank[member] ?? 0)) {
          first = member;
          break;
        }
      }
      firstOf.set(group, first);
    }
    return first !== row;
  };
}

/** The positions a query may return: filters, the key's view and excludes applied. */
function matchingSet(context: QueryContext, request: SearchRequest): PositionSet {
  return withoutDomains(context.store, filterSet(context.store, request.filters, context.visible), request.excludes);
}

export function searchFilterMode(context: QueryContext, request: SearchRequest): SearchResponse {
  const started = context.now();
  const { store } = context;
  const after = cursorDomain(request.search_after);
  const start = after === null ? 0 : store.positionAfter(after);
  const matching = matchingSet(context, request);
  const hidden = request.dedup ? dedupFilter(store, matching) : () => false;
  const rows: number[] = [];
  // Is there anything after this page? The walk stops at one more visible row.
  const more = walkFrom(matching, start, (position) => {
    const row = store.byDomain[position] ?? 0;
    if (hidden(row)) return true;
    if (rows.length === request.size) return false;
    rows.push(row);
    return true;
  });
  const last = rows[rows.length - 1];
  const elapsed = context.now() - started;
  return {
    data: store.rows(rows, request.columns),
    metadata: {
      total_hits: matching.count,
      returned: rows.length,
      mode: 'filter',
      elapsed_ms: Math.round(elapsed),
      search_after: more && last !== undefined ? [store.domain(last)] : null,
      filters_applied: request.filters,
      explain_plan: request.explain
        ? [
            'mode: filter (only filters were given)',
            `filters: ${JSON.stringify(request.filters)} → ${matching.count} of ${populationOf(context)} rows${context.visible ? ' visible to this key' : ''}`,
            `excludes: ${request.excludes.length} domain(s)`,
            `order: domain ascending, keyset cursor${after === null ? ' (first page)' : ` after ${after}`}`,
            `page: ${rows.length} row(s)${request.dedup ? ', dedup by organization name' : ''}; elapsed ${elapsed.toFixed(3)} ms`,
          ]
        : null,
    },
  };
}

const everyRowMasks = new WeakMap<ColumnStore, Uint8Array>();

/** A mask allowing every row, shared by the queries without filters (rankers never write to a mask). */
function everyRow(store: ColumnStore): Uint8Array {
  let mask = everyRowMasks.get(store);
  if (!mask) {
    mask = new Uint8Array(store.size).fill(1);
    everyRowMasks.set(store, mask);
  }
  return mask;
}

/** A filter's rows are handed to the rankers as a list up to this share of the store (the vector scan then reads them alone). */
const LISTED_SHARE = 8;

/**
 * The rows a scored query may return: every row (one shared mask), a selective set's rows as their list
 * (the mask made only if a ranker asks), or a broad set's mask, made now — the set may live in scratch memory.
 */
function allowedRows(context: QueryContext, request: SearchRequest): Allowed {
  const { store } = context;
  const matching = matchingSet(context, request);
  if (matching.count === store.size) return { rows: null, mask: () => everyRow(store) };
  if (matching.count * LISTED_SHARE <= store.size) {
    const rows = new Uint32Array(matching.count);
    let n = 0;
    walkFrom(matching, 0, (position) => ((rows[n++] = store.byDomain[position] ?? 0), true));
    const ascending = sortedAscending(rows);
    let mask: Uint8Array | null = null;
    return { rows: ascending, mask: () => (mask ??= maskOfRows(store.size, ascending)) };
  }
  const mask = rowMask(store, matching).bits;
  return { rows: null, mask: () => mask };
}

function rankerFor(context: QueryContext, request: SearchRequest, mode: Exclude<SearchMode, 'filter'>): Ranker {
  const allowed = allowedRows(context, request);
  const keywords = request.keywords ?? { must_all: [], must_any: [], must_not: [] };
  if (mode === 'fulltext') return fulltextRanker(context, keywords, allowed);
  if (mode === 'semantic') return semanticRanker(context, request, allowed);
  if (mode === 'vector_similarity') return similarRanker(context, request, allowed);
  return hybridRanker(context, request, allowed);
}

/** Dispatches on the inferred mode: filter mode here, scored modes through their rankers. */
export function search(context: QueryContext, request: SearchRequest): SearchResponse {
  const mode = inferSearchMode(request);
  if (mode === 'filter') return searchFilterMode(context, request);
  // Filters (and the key's visibility) narrow every mode before ranking; excludes never appear.
  return searchScored(context, request, mode, rankerFor(context, request, mode));
}

/** A query's whole result list at once (for point-in-time contexts that freeze it). */
export interface FullRanking {
  mode: SearchMode;
  /** Rows in result order: domain order in filter mode, best first otherwise (at most `cap`). */
  rows: Uint32Array;
  /** Matches before the cap (null when the ranker cannot count them). */
  total: number | null;
}

/** Every row of a query in result order, up to `cap` (scored modes) — filter mode lists all matches. */
export function rankAll(context: QueryContext, request: SearchRequest, cap: number): FullRanking {
  const mode = inferSearchMode(request);
  if (mode === 'filter') {
    const { store } = context;
    const rows: number[] = [];
    walkFrom(matchingSet(context, request), 0, (position) => rows.push(store.byDomain[position] ?? 0) > 0);
    return { mode, rows: Uint32Array.from(rows), total: rows.length };
  }
  const ranking = rankerFor(context, request, mode)(cap);
  return { mode, rows: Uint32Array.from(ranking.rows), total: ranking.total };
}
