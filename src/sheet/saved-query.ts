/**
 * A saved query's table (src/contract/saved-query.ts), from the same steps as the functions — so a
 * refreshed sheet shows exactly what the formula would. Written as values, not as a custom function's
 * result, so no payload cap applies; failures throw (the refresher reports them per query).
 */
import { cellOf, columnLetters } from './a1.js';
import { DEFAULT_COLUMNS, type SelectableColumn } from '../contract/common.js';
import type * as z from 'zod';
import { messageOf, OrgIndexError } from '../contract/errors.js';
import { SavedQuerySchema, type RefreshSchedule, type SavedQuery } from '../contract/saved-query.js';
import type { SearchRequestInput } from '../contract/v2/search.js';
import { SEARCH_LIMITS } from '../contract/v2/search.js';
import { ArgumentError, errorCellOf, errorText, PANE_REMEDIES, type Remedies, type Table } from './cells.js';
import { fetchTable, planFetch } from './fetch-plan.js';
import { backendCall } from './effects.js';
import { rowsFor } from './fetch-rows.js';
import { searchRows, type SheetSteps } from './formula-steps.js';
import { searchTable, statsTable } from './tables.js';

const columnsOf = (body: Record<string, unknown>): SelectableColumn[] => (Array.isArray(body.columns) && body.columns.length > 0 ? (body.columns as SelectableColumn[]) : [...DEFAULT_COLUMNS]);

export function* savedQuerySteps(query: SavedQuery): SheetSteps<Table> {
  const { request, output } = query;
  switch (request.route) {
    case 'search': {
      const body: SearchRequestInput = request.body;
      const rows = request.rows ?? (typeof body.size === 'number' ? body.size : SEARCH_LIMITS.sizeDefault);
      return searchTable(yield* searchRows({ ...body, size: Math.min(rows, SEARCH_LIMITS.sizeMax) }, rows, Number.POSITIVE_INFINITY), columnsOf(request.body), output.headers);
    }
    case 'stats':
      return statsTable(yield* backendCall('stats', request.body, 'stats'), output.layout, output.headers);
    case 'fetch': {
      const columns = columnsOf(request.body);
      const plan = planFetch(Array.isArray(request.body.domains) ? (request.body.domains as unknown[]) : []);
      const { found, failed } = yield* rowsFor(plan.domains, columns);
      if (failed.size > 0) throw failed.values().next().value;
      return fetchTable(plan, found, columns, output.headers);
    }
  }
}

/**
 * The name of the cells a saved query owns — a named range in Sheets, a defined name in Excel — which the
 * spreadsheet moves with inserted rows and columns and renamed sheets (letters, digits, underscores).
 */
export const ownedRangeName = (id: string): string => `ORGINDEX_${id.replace(/[^A-Za-z0-9]/g, '_')}`;

/**
 * Why an answer of rows × columns written from the cell `from` may not be written: the first cell it
 * would cover that the query does not own (its `owned` extent from `from`) and that is not empty — or null.
 */
export function answerConflict(answer: { rows: number; columns: number; from: string }, owned: { rows: number; columns: number }, isEmpty: (row: number, column: number) => boolean): string | null {
  const { row, column } = cellOf(answer.from) ?? { row: 1, column: 1 };
  for (let r = 0; r < answer.rows; r++) {
    for (let c = 0; c < answer.columns; c++) {
      if ((r < owned.rows && c < owned.columns) || isEmpty(r, c)) continue;
      const name = `${columnLetters(column + c)}${String(row + r)}`;
      return `The answer (${String(answer.rows)} × ${String(answer.columns)} cells from ${answer.from}) would overwrite ${name}: clear or move that cell, or move the saved query`;
    }
  }
  return null;
}

/** Why an answer may not be written into merged cells (one wording for every refresher). */
export const mergedConflict = (answer: { rows: number; columns: number; from: string }, at: string): string =>
  `The answer (${String(answer.rows)} × ${String(answer.columns)} cells from ${answer.from}) would write into the merged cells at ${at}: unmerge them, or move the saved query`;

/** Why a saved query cannot run: its sheet is gone (one wording for every refresher). */
export const sheetGone = (sheet: string): string => `The sheet "${sheet}" no longer exists (renamed or deleted): remove the saved query and insert it again`;

/** A stored status is cut to this length, so a long failure message never makes a query too large to store. */
export const MAX_STATUS_CHARS = 500;

/** The query as stored: its status cut to MAX_STATUS_CHARS. */
export function storedForm(query: SavedQuery): SavedQuery {
  const status = query.status && query.status.length > MAX_STATUS_CHARS ? `${query.status.slice(0, MAX_STATUS_CHARS - 1)}\u2026` : query.status;
  return { ...query, status };
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

/** A stored saved query, or why it cannot be run (edited by hand, or written by a newer version). */
export interface StoredQuery {
  id: string;
  query: SavedQuery | null;
  problem: string | null;
  /** Where it was read from, for stores that are rows (0-based, among the rows read). */
  row: number;
}

export const zodMessage = (error: z.ZodError): string => error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ');

/** Reads a saved query's stored JSON (document property, workbook row). */
export function parseStoredQuery(id: string, json: string, row = 0): StoredQuery {
  try {
    const parsed = SavedQuerySchema.safeParse(JSON.parse(json));
    return parsed.success ? { id, query: parsed.data, problem: null, row } : { id, query: null, problem: `The saved query is not valid: ${zodMessage(parsed.error)}`, row };
  } catch {
    return { id, query: null, problem: 'The saved query is not valid JSON', row };
  }
}

/**
 * A workbook keeps its saved queries in a hidden worksheet (the Excel add-in writes it, `orgindex refresh`
 * reads and rewrites it): one row per query — id, where, last refreshed, status for a reader, then the
 * query's JSON, continued in the next columns when longer than a cell holds (Excel: 32,767 characters).
 */
export const SAVED_QUERY_SHEET = '_orgindex';
export const SAVED_QUERY_HEADER = ['id', 'where', 'last refreshed (UTC)', 'status', 'saved query (JSON; continues in the next columns)'];
const JSON_COLUMN = 4;
const CELL_CHARS = 32_000;

export function savedQueryRow(saved: SavedQuery): string[] {
  const query = storedForm(saved);
  const json = JSON.stringify(query);
  const parts: string[] = [];
  for (let i = 0; i < json.length; i += CELL_CHARS) parts.push(json.slice(i, i + CELL_CHARS));
  return [query.id, targetOf(query), query.last_refreshed ?? '', query.status ?? '', ...parts];
}

/**
 * Why a saved query may not write on `sheet`: the store of saved queries, whose rows the refresh rewrites —
 * an answer there would overwrite the store, or be wiped by it while reported as refreshed. Excel compares
 * sheet names ignoring case.
 */
export function storeSheetConflict(id: string, sheet: string): string | null {
  if (sheet.toLowerCase() !== SAVED_QUERY_SHEET) return null;
  return `The saved query "${id}" would write on the sheet "${SAVED_QUERY_SHEET}", which keeps the saved queries themselves: nothing was written there; remove the saved query and insert it again on another sheet`;
}

/** The stored queries of the hidden worksheet's rows (the header and empty rows skipped). */
export function readSavedQueryRows(rows: readonly (readonly unknown[])[]): StoredQuery[] {
  const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '');
  return rows.flatMap((row, index) => {
    const id = text(row[0]).trim();
    if (id === SAVED_QUERY_HEADER[0]) return [];
    const json = row.slice(JSON_COLUMN).map(text).join('');
    if (id === '' && json.trim() === '') return [];
    return [parseStoredQuery(id || `row ${String(index + 1)}`, json, index)];
  });
}

/** A service as SavedQuery.service records it: the root URL without trailing "/" or "/v2"; null for the sample. */
export function serviceOf(url: string | null | undefined): string | null {
  const root = (url ?? '').trim().replace(/\/+$/, '').replace(/\/v2$/i, '');
  return root === '' ? null : root;
}

export const serviceName = (service: string | null): string => service ?? 'the built-in sample';

/**
 * A refresh failure in words: service and argument errors as the cells word them (with the remedies of
 * where the refresh runs), the refresher's own refusals as they are.
 */
export function refreshMessageOf(error: unknown, remedies: Remedies = PANE_REMEDIES): string {
  if (!(error instanceof OrgIndexError || error instanceof ArgumentError)) return messageOf(error);
  return errorText(errorCellOf(error, Date.now(), remedies));
}
