/**
 * v2 search. This file holds filter mode (only `filters`): keyset pagination in domain order, exact
 * `total_hits`, no depth cap, and a cursor — the last domain returned — that stays valid while rows are
 * added. The scored modes (fulltext, semantic, vector_similarity, hybrid) belong to the relevance engine.
 */
import type { SearchMode, SearchRequest, SearchResponse } from '../../contract/v2/search.js';
import { inferSearchMode } from '../../contract/v2/search.js';
import { fulltextRanker, hybridRanker, semanticRanker, similarRanker } from './rankers.js';
import { cursorError, searchScored, type Ranker } from './scored.js';
import type { ColumnStore } from '../store/store.js';
import { applyExcludes, columnValueCounts, filterMask, singleColumnFilter, type Mask } from './filters.js';
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
 * matches. The first matching member of every name group is found in one pass per query.
 */
function dedupFilter(store: ColumnStore, mask: Mask): (row: number) => boolean {
  const { groupOf, starts, rows } = duplicateNameGroups(store);
  const first = new Int32Array(Math.max(1, starts.length - 1)).fill(-1);
  for (let group = 1; group + 1 < starts.length; group++) {
    for (let i = starts[group] ?? 0; i < (starts[group + 1] ?? 0); i++) {
      const row = rows[i] ?? 0;
      if (mask.bits[row] === 1) {
        first[group] = row;
        break;
      }
    }
  }
  return (row) => {
    const group = groupOf[row] ?? 0;
    return group !== 0 && first[group] !== row;
  };
}

/**
 * A filter on one categorical column alone, over every row (no key scope, excludes or dedup), and common
 * enough: its count is the sum of the column's value counts and its page a walk in domain order that stops
 * after the page — no pass over every row. A rare value (fewer than four pages' worth of rows in all)
 * takes the full pass instead, which is then the shorter.
 */
function columnPage(context: QueryContext, request: SearchRequest): { accepts: (row: number) => boolean; count: number } | null {
  if (context.visible || request.excludes.length > 0 || request.dedup) return null;
  const filter = singleColumnFilter(context.store, request.filters);
  if (!filter) return null;
  const { column, allowed } = filter;
  const counts = columnValueCounts(column);
  let count = 0;
  allowed.forEach((accepted, id) => (count += accepted ? (counts[id] ?? 0) : 0));
  if (count < 4 * (request.size + 1)) return null;
  const { codes } = column;
  return { accepts: (row) => allowed[codes[row] ?? 0] === 1, count };
}

export function searchFilterMode(context: QueryContext, request: SearchRequest): SearchResponse {
  const started = context.now();
  const { store } = context;
  const after = cursorDomain(request.search_after);
  const start = after === null ? 0 : store.positionAfter(after);
  let matches = columnPage(context, request);
  if (!matches) {
    const mask = applyExcludes(store, filterMask(store, request.filters, context.visible ?? undefined), request.excludes);
    const hidden = request.dedup ? dedupFilter(store, mask) : () => false;
    matches = { accepts: (row) => mask.bits[row] === 1 && !hidden(row), count: mask.count };
  }
  const { accepts } = matches;

  const rows: number[] = [];
  let position = start;
  for (; position < store.size && rows.length < request.size; position++) {
    const row = store.byDomain[position] ?? 0;
    if (accepts(row)) rows.push(row);
  }
  // Is there anything after this page? Look ahead for one more visible row.
  let more = false;
  for (; position < store.size && !more; position++) more = accepts(store.byDomain[position] ?? 0);
  const last = rows[rows.length - 1];
  const elapsed = context.now() - started;
  return {
    data: store.rows(rows, request.columns),
    metadata: {
      total_hits: matches.count,
      returned: rows.length,
      mode: 'filter',
      elapsed_ms: Math.round(elapsed),
      search_after: more && last !== undefined ? [store.domain(last)] : null,
      filters_applied: request.filters,
      explain_plan: request.explain
        ? [
            'mode: filter (only filters were given)',
            `filters: ${JSON.stringify(request.filters)} → ${matches.count} of ${populationOf(context)} rows${context.visible ? ' visible to this key' : ''}`,
            `excludes: ${request.excludes.length} domain(s)`,
            `order: domain ascending, keyset cursor${after === null ? ' (first page)' : ` after ${after}`}`,
            `page: ${rows.length} row(s)${request.dedup ? ', dedup by organization name' : ''}; elapsed ${elapsed.toFixed(3)} ms`,
          ]
        : null,
    },
  };
}

const everyRowMasks = new WeakMap<ColumnStore, Uint8Array>();

/** A mask allowing every row, shared by the queries without filters (never written to). */
function everyRow(store: ColumnStore): Uint8Array {
  let mask = everyRowMasks.get(store);
  if (!mask) {
    mask = new Uint8Array(store.size).fill(1);
    everyRowMasks.set(store, mask);
  }
  return mask;
}

/** The rows a query may return: filters, the key's visibility and excludes applied. */
function allowedRows(context: QueryContext, request: SearchRequest): Uint8Array {
  // Rankers treat `allowed` as read-only (those that drop rows copy it), so an unfiltered query shares one mask.
  const unconstrained = !context.visible && request.excludes.length === 0 && (!request.filters || Object.keys(request.filters).length === 0);
  return unconstrained
    ? everyRow(context.store)
    : applyExcludes(context.store, filterMask(context.store, request.filters, context.visible ?? undefined), request.excludes).bits;
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
    const allowed = allowedRows(context, request);
    const { store } = context;
    const rows: number[] = [];
    for (let position = 0; position < store.size; position++) {
      const row = store.byDomain[position] ?? 0;
      if (allowed[row]) rows.push(row);
    }
    return { mode, rows: Uint32Array.from(rows), total: rows.length };
  }
  const ranking = rankerFor(context, request, mode)(cap);
  return { mode, rows: Uint32Array.from(ranking.rows), total: ranking.total };
}
