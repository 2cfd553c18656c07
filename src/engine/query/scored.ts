/**
 * Paging for the scored modes (fulltext, semantic, vector_similarity, hybrid): an offset cursor bound to
 * the query, the 10,000-row depth cap, and dedup — around a ranker that returns the best k candidates.
 *
 * The cursor is `[offset, "q:<fingerprint>"]`. The fingerprint hashes everything that decides the ranking
 * (mode inputs, filters, excludes, min_score, search_balance, dedup) but not `size` or `columns`, so a
 * cursor from another query is refused (422) while a client may change the page size between pages.
 * Ranking is recomputed per page (stateless server); rankers are deterministic (ties by domain), so
 * consecutive pages have no duplicate and no gap.
 */
import { ValidationError } from '../../contract/errors.js';
import { fnv1a } from '../../contract/hash.js';
import { SEARCH_LIMITS, type SearchMode, type SearchRequest, type SearchResponse } from '../../contract/v2/search.js';
import { duplicateNameGroups } from '../store/name-groups.js';
import type { QueryContext } from './context.js';

export interface Ranking {
  /** Candidate rows, best first (at most the k asked for). */
  rows: ArrayLike<number>;
  /** How many candidates the ranking has in all, when it knows (null otherwise). */
  total: number | null;
  /** Plan lines for `explain`. */
  plan: string[];
}

/** Returns the best `k` candidates of the query (filters, visibility and excludes already applied). */
export type Ranker = (k: number) => Ranking;

const CAP = SEARCH_LIMITS.scoredDepthCap;

/** FNV-1a over the ranking-relevant part of the request: stable, short, no host crypto needed. */
export function queryFingerprint(mode: SearchMode, request: SearchRequest): string {
  const identity = JSON.stringify([
    mode,
    request.keywords,
    request.describe,
    request.similar_to,
    request.filters,
    [...request.excludes].sort(),
    request.min_score,
    request.search_balance,
    request.dedup,
  ]);
  return `q:${fnv1a(identity).toString(16).padStart(8, '0')}`;
}

/** The 422 of a `search_after` that cannot be used (filter mode and scored modes alike). */
export function cursorError(message: string, cursor: unknown): ValidationError {
  return new ValidationError([{ type: 'value_error', loc: ['body', 'search_after'], msg: `Value error, ${message}`, input: cursor, ctx: { error: message } }], 422);
}

/** The offset a cursor stands for, after checking that it belongs to this query and is within the cap. */
export function cursorOffset(cursor: readonly unknown[] | null, fingerprint: string): number {
  if (cursor === null) return 0;
  const [offset, token] = cursor;
  if (cursor.length !== 2 || typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || typeof token !== 'string') {
    throw cursorError('this cursor does not come from a scored search: send metadata.search_after of the previous page unchanged', cursor);
  }
  if (token !== fingerprint) {
    throw cursorError('this cursor belongs to another query: start again without search_after when the query changes', cursor);
  }
  if (offset >= CAP) {
    throw cursorError(
      `scored searches page at most ${CAP.toLocaleString('en')} rows deep; narrow the filters, or use filter mode (filters only), which has no depth limit`,
      cursor,
    );
  }
  return offset;
}

/** Keeps the best-ranked row of each name group, in rank order. */
function dedupRows(context: QueryContext, rows: ArrayLike<number>): number[] {
  const { groupOf } = duplicateNameGroups(context.store);
  const seen = new Set<number>();
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] ?? 0;
    const group = groupOf[row] ?? 0;
    if (group !== 0) {
      if (seen.has(group)) continue;
      seen.add(group);
    }
    out.push(row);
  }
  return out;
}

export function searchScored(context: QueryContext, request: SearchRequest, mode: SearchMode, ranker: Ranker): SearchResponse {
  const started = context.now();
  const fingerprint = queryFingerprint(mode, request);
  const offset = cursorOffset(request.search_after, fingerprint);
  const size = Math.min(request.size, CAP - offset);
  const wanted = offset + size + 1; // one more tells whether a next page exists

  let ranking = ranker(wanted);
  let ordered: ArrayLike<number> = ranking.rows;
  if (request.dedup) {
    // Dedup drops rows; ask for more candidates until the page is full or the ranking is exhausted.
    for (let k = wanted; ; k *= 2) {
      ordered = dedupRows(context, ranking.rows);
      if (ordered.length >= wanted || ranking.rows.length < k) break;
      ranking = ranker(k * 2);
    }
  }
  const pageRows = Array.from({ length: Math.max(0, Math.min(size, ordered.length - offset)) }, (_, i) => ordered[offset + i] ?? 0);
  const end = offset + pageRows.length;
  const more = ordered.length > end && end < CAP;
  const elapsed = context.now() - started;
  return {
    data: context.store.rows(pageRows, request.columns),
    metadata: {
      total_hits: ranking.total,
      returned: pageRows.length,
      mode,
      elapsed_ms: Math.round(elapsed),
      search_after: more ? [end, fingerprint] : null,
      filters_applied: request.filters,
      explain_plan: request.explain
        ? [
            `mode: ${mode}`,
            ...ranking.plan,
            `page: rows ${offset + 1}–${end}${request.dedup ? ' after dedup by organization name' : ''}; depth cap ${CAP.toLocaleString('en')}`,
            `elapsed ${elapsed.toFixed(3)} ms`,
          ]
        : null,
    },
  };
}
