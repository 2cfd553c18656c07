/**
 * Walking `search_after` pages, as a pure state machine both drivers use. Stops when the server returns
 * a null cursor, when the caller's row limit is reached, or at the 10,000-row depth cap of scored modes
 * (the last page is shortened so the walk ends exactly at the cap and says so). A walk resumed from a
 * caller's `search_after` counts depth from the resume point: the cursor is opaque, so the server remains
 * the judge of the real cap.
 */
import { SEARCH_LIMITS, type SearchMode, type SearchRequestInput, type SearchResponse } from '../contract/v2/search.js';

type Cursor = NonNullable<SearchRequestInput['search_after']> | null;

export interface PaginationOptions {
  /** Stop after this many rows in all (default: no limit besides the depth cap). */
  maxRows?: number;
}

export interface PaginationState {
  readonly base: SearchRequestInput;
  readonly pageSize: number;
  readonly maxRows: number;
  readonly cursor: Cursor;
  readonly fetched: number;
  readonly pages: number;
  readonly mode: SearchMode | null;
  readonly totalHits: number | null;
  readonly done: boolean;
  /** Why the walk ended: the server had no further page, the caller's limit, or the depth cap. */
  readonly stoppedBy: 'end' | 'max_rows' | 'depth_cap' | null;
}

export function startPagination(request: SearchRequestInput, options: PaginationOptions = {}): PaginationState {
  return {
    base: request,
    pageSize: request.size ?? SEARCH_LIMITS.sizeDefault,
    maxRows: options.maxRows ?? Number.POSITIVE_INFINITY,
    cursor: request.search_after ?? null,
    fetched: 0,
    pages: 0,
    mode: null,
    totalHits: null,
    done: false,
    stoppedBy: null,
  };
}

function depthLimit(state: PaginationState): number {
  return state.mode === null || state.mode === 'filter' ? Number.POSITIVE_INFINITY : SEARCH_LIMITS.scoredDepthCap;
}

/** The body of the next page, or null when the walk is over. */
export function nextPageRequest(state: PaginationState): SearchRequestInput | null {
  if (state.done) return null;
  const room = Math.min(state.maxRows, depthLimit(state)) - state.fetched;
  if (room < 1) return null;
  // The page size is not clamped: a bad size reaches validation and comes back as a 422, not as no rows.
  return { ...state.base, size: Math.min(state.pageSize, room), search_after: state.cursor };
}

/** The state after a page arrived. */
export function advancePagination(state: PaginationState, page: SearchResponse): PaginationState {
  const fetched = state.fetched + page.data.length;
  const mode = page.metadata.mode;
  const cursor = page.metadata.search_after;
  const next = { ...state, fetched, mode, cursor, pages: state.pages + 1, totalHits: page.metadata.total_hits ?? state.totalHits };
  let stoppedBy: PaginationState['stoppedBy'] = null;
  if (cursor === null || page.data.length === 0) stoppedBy = 'end';
  else if (fetched >= state.maxRows) stoppedBy = 'max_rows';
  else if (fetched >= depthLimit(next)) stoppedBy = 'depth_cap';
  return { ...next, done: stoppedBy !== null, stoppedBy };
}
