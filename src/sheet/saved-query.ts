/**
 * A saved query's table (src/contract/saved-query.ts), from the same steps as the functions — so a
 * refreshed sheet shows exactly what the formula would. Written as values, not as a custom function's
 * result, so no payload cap applies; failures throw (the refresher reports them per query).
 */
import { DEFAULT_COLUMNS, type SelectableColumn } from '../contract/common.js';
import type { RefreshSchedule, SavedQuery } from '../contract/saved-query.js';
import type { SearchRequestInput } from '../contract/v2/search.js';
import { SEARCH_LIMITS } from '../contract/v2/search.js';
import type { StatsRequestInput } from '../contract/v2/stats.js';
import type { Table } from './cells.js';
import { fetchTable, planFetch } from './fetch-plan.js';
import { answer, searchRows, type RowsAnswer, type SheetSteps } from './steps.js';
import { searchTable, statsTable } from './tables.js';

const columnsOf = (body: Record<string, unknown>): SelectableColumn[] => (Array.isArray(body.columns) && body.columns.length > 0 ? (body.columns as SelectableColumn[]) : [...DEFAULT_COLUMNS]);

export function* savedQuerySteps(query: SavedQuery): SheetSteps<Table> {
  const { request, output } = query;
  switch (request.route) {
    case 'search': {
      const body = request.body as SearchRequestInput;
      const rows = request.rows ?? (typeof body.size === 'number' ? body.size : SEARCH_LIMITS.sizeDefault);
      return searchTable(yield* searchRows({ ...body, size: Math.min(rows, SEARCH_LIMITS.sizeMax) }, rows, Number.POSITIVE_INFINITY), columnsOf(request.body), output.headers);
    }
    case 'stats':
      return statsTable(yield* answer('stats', 'stats', request.body as StatsRequestInput), output.layout, output.headers);
    case 'fetch': {
      const columns = columnsOf(request.body);
      const plan = planFetch(Array.isArray(request.body.domains) ? (request.body.domains as unknown[]) : []);
      const { found, failed } = (yield { type: 'rows', domains: plan.chunks.flat(), columns }) as RowsAnswer;
      if (failed.size > 0) throw failed.values().next().value;
      return fetchTable(plan, found, columns, output.headers);
    }
  }
}

/** Where a saved query writes, as a user reads it: 'Sheet 1'!B2. */
export function targetOf(query: Pick<SavedQuery, 'sheet' | 'cell'>): string {
  return `'${query.sheet.replace(/'/g, "''")}'!${query.cell}`;
}

/** What a saved query asks, in a few words ("search · 25 rows", "stats by country × organization_type", "fetch · 12 domains"). */
export function describeSavedQuery(query: SavedQuery): string {
  const { request } = query;
  const body = request.body;
  switch (request.route) {
    case 'search': {
      const rows = request.rows ?? (typeof body.size === 'number' ? body.size : SEARCH_LIMITS.sizeDefault);
      return `search · ${rows.toLocaleString('en-US')} rows`;
    }
    case 'stats':
      return `stats by ${[body.group_by, body.group_by_secondary].filter((g) => typeof g === 'string').join(' × ') || '?'}`;
    case 'fetch':
      return `fetch · ${(Array.isArray(body.domains) ? body.domains.length : 0).toLocaleString('en-US')} domains`;
  }
}

/** A saved query as the task pane / sidebar lists it. */
export interface SavedQuerySummary {
  id: string;
  target: string;
  description: string;
  last_refreshed: string | null;
  status: string | null;
}

export function summaryOf(query: SavedQuery): SavedQuerySummary {
  return { id: query.id, target: targetOf(query), description: describeSavedQuery(query), last_refreshed: query.last_refreshed, status: query.status };
}

/** A schedule as a host shows it: the time zone its hour is read in, and whether it runs as the current user. */
export interface ScheduleView extends RefreshSchedule {
  timeZone: string;
  /** Triggers belong to whoever set them: false when another user's account runs this schedule. */
  mine: boolean;
}
