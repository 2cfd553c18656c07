/**
 * `orgindex refresh --google-sheet ID --credentials service-account.json`: the saved queries of a Google
 * Sheet, refreshed without Sheets open, through the Sheets API v4 (googleapis' `@googleapis/sheets`).
 * The Sheets project keeps each query as document-visible developer metadata on its sheet and the cells
 * it owns as a named range `ORGINDEX_<id>` (appsscript/src/saved-queries.ts); this does what its refresher
 * does, in a fixed number of API calls however many queries there are (Google limits requests per
 * minute; a 429 is retried with exponential backoff, a read also after a 5xx; a failed write fails the run's
 * queries with the reason, never the whole report):
 *  1. spreadsheets.get — sheets, merges, developer metadata, named ranges;
 *  2. values.batchGet — what is in the cells each answer will cover (a query never overwrites a cell it
 *     does not own, nor writes into merged cells; it fails naming the cell);
 *  3. spreadsheets.batchUpdate — sheets grown to fit (absolute sizes), and the cells to be written claimed
 *     (named ranges over old and new extents, status "writing"), so a run killed midway leaves queries
 *     that own them; answers overlapping each other or another query's cells fail before this;
 *  4. values.batchClear of the old extents, 5. values.batchUpdate of the new values (RAW: text stays text,
 *     "=…" never becomes a formula);
 *  6. spreadsheets.batchUpdate — named ranges to the new extents, each query's extent, time and status.
 * The service account needs edit access to the spreadsheet (share it with the account's address). It signs
 * its own access tokens (a JWT with the spreadsheets scope): no token endpoint is called.
 */
import { readFileSync } from 'node:fs';
import { auth as googleAuth, sheets as sheetsApi, type sheets_v4 } from '@googleapis/sheets';
import type { SavedQuery } from '../contract/saved-query.js';
import { plainValue } from '../sheet/cells.js';
import { cellOf, columnLetters } from '../sheet/a1.js';
import { answerConflict, mergedConflict, storedForm, ownedRangeName, parseStoredQuery, refreshMessageOf, serviceOf, sheetGone, targetOf, type StoredQuery } from '../sheet/saved-query.js';
import type { SheetFunctions } from '../sheet/functions.js';
import { CLI_REMEDIES, refreshFunctions, type QueryOutcome, type RefreshOptions } from './refresh.js';
import { UsageError } from './usage.js';
import { sameService, serviceMismatch } from './services.js';
import { messageOf } from '../contract/errors.js';

const SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
const QUERY_PREFIX = 'orgindex.query.';

export interface GoogleSheetOptions extends RefreshOptions {
  /** A service-account key file (JSON). */
  credentials: string;
  /** Another root for the Sheets API (a proxy; the tests' loopback stand-in). */
  apiRoot?: string;
  /** First retry delay in ms (doubles each time); 1 s by default. */
  retryDelayMs?: number;
}

type Written = string | number | boolean;

const a1 = (title: string, top: number, left: number, rows: number, columns: number): string =>
  `'${title.replace(/'/g, "''")}'!${columnLetters(left)}${String(top)}${rows > 1 || columns > 1 ? `:${columnLetters(left + columns - 1)}${String(top + rows - 1)}` : ''}`;

/** A 0-based, end-exclusive grid range of 1-based top / left and a size. */
const gridRange = (sheetId: number, top: number, left: number, rows: number, columns: number): sheets_v4.Schema$GridRange => ({
  sheetId,
  startRowIndex: top - 1,
  endRowIndex: top - 1 + Math.max(rows, 1),
  startColumnIndex: left - 1,
  endColumnIndex: left - 1 + Math.max(columns, 1),
});

function clientOf(options: GoogleSheetOptions): sheets_v4.Sheets {
  let key: { client_email?: string; private_key?: string; private_key_id?: string };
  try {
    key = JSON.parse(readFileSync(options.credentials, 'utf8')) as typeof key;
  } catch (error) {
    throw new UsageError(`${options.credentials} cannot be read as a service-account key file: ${messageOf(error)}`, { cause: error });
  }
  if (!key.client_email || !key.private_key) throw new UsageError(`${options.credentials} is not a service-account key file (no client_email / private_key)`);
  const auth = new googleAuth.JWT({ email: key.client_email, key: key.private_key, ...(key.private_key_id ? { keyId: key.private_key_id } : {}), scopes: [SCOPE] });
  // Self-signed access tokens carrying the scope: Google's APIs accept them from service accounts, and no token endpoint is called.
  auth.useJWTAccessWithScope = true;
  return sheetsApi({
    version: 'v4',
    auth,
    ...(options.apiRoot ? { rootUrl: options.apiRoot.replace(/\/*$/, '/') } : {}),
    retryConfig: {
      retry: 5,
      // 429 means the request was not applied: every call may repeat it. A read may also repeat after a
      // 5xx or no answer; a write may not (it may have been applied), so that run fails and says so.
      shouldRetry: (error) => {
        const status = error.response?.status;
        const attempt = error.config.retryConfig?.currentRetryAttempt ?? 0;
        if (attempt >= 5) return false;
        if (status === 429) return true;
        return error.config.method === 'GET' && (status === undefined || status >= 500);
      },
      // 1, 2, 4, 8, 16 s (and a little jitter): Google's per-minute quotas refill within the minute.
      retryBackoff: async (error) => {
        const attempt = error.config.retryConfig?.currentRetryAttempt ?? 1;
        const base = options.retryDelayMs ?? 1_000;
        await new Promise((resolve) => setTimeout(resolve, base * 2 ** Math.max(0, attempt - 1) * (1 + Math.random() * 0.1)));
      },
    },
  });
}

interface Placed {
  query: SavedQuery;
  metadataId: number;
  sheet: sheets_v4.Schema$SheetProperties;
  namedRangeId: string | null;
  top: number;
  left: number;
  /** What the query owns now (its named range), or nothing. */
  owned: { rows: number; columns: number };
  values: Written[][];
}

/** Where each stored query writes, and what its named range owns. */
function place(spreadsheet: sheets_v4.Schema$Spreadsheet, query: SavedQuery, metadataId: number, values: Written[][]): Placed {
  const named = (spreadsheet.namedRanges ?? []).find((range) => range.name === ownedRangeName(query.id));
  const byId = (id: number | null | undefined) => spreadsheet.sheets?.find((sheet) => sheet.properties?.sheetId === (id ?? 0))?.properties;
  const sheet = named ? byId(named.range?.sheetId) : spreadsheet.sheets?.find((candidate) => candidate.properties?.title === query.sheet)?.properties;
  if (!sheet) throw new Error(sheetGone(query.sheet));
  const cell = cellOf(query.cell) ?? { row: 1, column: 1 };
  const top = named ? (named.range?.startRowIndex ?? 0) + 1 : cell.row;
  const left = named ? (named.range?.startColumnIndex ?? 0) + 1 : cell.column;
  const owned =
    named && query.extent && query.extent.rows > 0
      ? { rows: (named.range?.endRowIndex ?? 0) - (named.range?.startRowIndex ?? 0), columns: (named.range?.endColumnIndex ?? 0) - (named.range?.startColumnIndex ?? 0) }
      : { rows: 0, columns: 0 };
  return { query, metadataId, sheet, namedRangeId: named?.namedRangeId ?? null, top, left, owned, values };
}

/** Fails the query when its answer would cover a cell it does not own, or merged cells. */
function assertFree(placed: Placed, merges: sheets_v4.Schema$GridRange[], current: unknown[][]): void {
  const rows = placed.values.length;
  const columns = placed.values[0]?.length ?? 0;
  const from = `${columnLetters(placed.left)}${String(placed.top)}`;
  const top = placed.top - 1;
  const left = placed.left - 1;
  const merge = merges.find((m) => (m.startRowIndex ?? 0) < top + rows && (m.endRowIndex ?? 0) > top && (m.startColumnIndex ?? 0) < left + columns && (m.endColumnIndex ?? 0) > left);
  if (merge) throw new Error(mergedConflict({ rows, columns, from }, `${columnLetters(Math.max(merge.startColumnIndex ?? 0, left) + 1)}${String(Math.max(merge.startRowIndex ?? 0, top) + 1)}`));
  const conflict = answerConflict({ rows, columns, from }, placed.owned, (r, c) => { const value = current[r]?.[c]; return value === undefined || value === ''; });
  if (conflict) throw new Error(conflict);
}

const metadataUpdate = (metadataId: number, query: SavedQuery): sheets_v4.Schema$Request => {
  return { updateDeveloperMetadata: { dataFilters: [{ developerMetadataLookup: { metadataId } }], developerMetadata: { metadataValue: JSON.stringify(storedForm(query)) }, fields: 'metadataValue' } };
};

const namedRangeRequest = (placed: Placed, rows: number, columns: number): sheets_v4.Schema$Request => {
  const range = gridRange(placed.sheet.sheetId ?? 0, placed.top, placed.left, rows, columns);
  return placed.namedRangeId
    ? { updateNamedRange: { namedRange: { namedRangeId: placed.namedRangeId, name: ownedRangeName(placed.query.id), range }, fields: 'range' } }
    : { addNamedRange: { namedRange: { name: ownedRangeName(placed.query.id), range } } };
};

/** A saved query as the sheet's developer metadata holds it. */
interface StoredEntry {
  stored: StoredQuery;
  metadataId: number;
}

type Outcomes = Map<string, QueryOutcome>;

const fail = (outcomes: Outcomes, query: SavedQuery, error: unknown): void => {
  outcomes.set(query.id, { id: query.id, target: targetOf(query), ok: false, message: refreshMessageOf(error, CLI_REMEDIES) });
};

/** 1. The spreadsheet (sheets, merges, developer metadata, named ranges) and the saved queries in its metadata; none is a usage error. */
async function readSpreadsheet(api: sheets_v4.Sheets, spreadsheetId: string): Promise<{ spreadsheet: sheets_v4.Schema$Spreadsheet; stored: StoredEntry[] }> {
  const { data: spreadsheet } = await api.spreadsheets.get({
    spreadsheetId,
    fields: 'sheets(properties(sheetId,title,gridProperties(rowCount,columnCount)),merges,developerMetadata),namedRanges',
  });
  const stored: StoredEntry[] = (spreadsheet.sheets ?? []).flatMap((sheet) =>
    (sheet.developerMetadata ?? [])
      .filter((metadata) => metadata.metadataKey?.startsWith(QUERY_PREFIX))
      .map((metadata) => ({ stored: parseStoredQuery((metadata.metadataKey ?? '').slice(QUERY_PREFIX.length), metadata.metadataValue ?? ''), metadataId: metadata.metadataId ?? 0 })),
  );
  if (stored.length === 0) throw new UsageError(`The Google Sheet ${spreadsheetId} has no saved queries (insert them from the OrgIndex sidebar: "Insert as refreshable values")`);
  return { spreadsheet, stored };
}

/** Each readable query answered by the service and placed on its sheet; an unreadable one, or one that fails, goes to `outcomes`. */
async function answerQueries(spreadsheet: sheets_v4.Schema$Spreadsheet, stored: readonly StoredEntry[], options: GoogleSheetOptions, outcomes: Outcomes): Promise<Placed[]> {
  const service = serviceOf(options.baseUrl);
  const functions: SheetFunctions = refreshFunctions(service, options.apiKey);
  const placed: Placed[] = [];
  for (const { stored: entry, metadataId } of stored) {
    const { query } = entry;
    if (!query) {
      outcomes.set(entry.id, { id: entry.id, target: '?', ok: false, message: entry.problem ?? 'unreadable' });
      continue;
    }
    try {
      if (!sameService(query.service, service)) throw new Error(serviceMismatch(query.service, service));
      const table = await functions.savedQuery(query);
      const width = Math.max(0, ...table.map((row) => row.length));
      placed.push(place(spreadsheet, query, metadataId, width === 0 ? [] : table.map((row) => Array.from({ length: width }, (_, c) => plainValue(row[c] ?? null)))));
    } catch (error) {
      fail(outcomes, query, error);
    }
  }
  return placed;
}

interface Area {
  sheetId: number;
  top: number;
  left: number;
  rows: number;
  columns: number;
}

const overlaps = (a: Area, b: Area): boolean =>
  a.sheetId === b.sheetId && a.top < b.top + b.rows && b.top < a.top + a.rows && a.left < b.left + b.columns && b.left < a.left + a.columns;

/**
 * 2. What the answers will cover, in one read; the queries whose answers may be written. Checked against
 * the sheet as read, and against each other: two answers (or an answer and another query's cells) on the
 * same cells would overwrite each other, both "ok". The later one fails.
 */
async function writableOf(api: sheets_v4.Sheets, spreadsheetId: string, spreadsheet: sheets_v4.Schema$Spreadsheet, stored: readonly StoredEntry[], placed: readonly Placed[], outcomes: Outcomes): Promise<Placed[]> {
  const toCheck = placed.filter((p) => p.values.length > 0);
  // Clipped to the grid: the API refuses a range past it, and cells beyond it are empty anyway.
  const inGrid = (p: Placed): string => {
    const grid = p.sheet.gridProperties;
    const rows = Math.max(1, Math.min(p.values.length, (grid?.rowCount ?? 0) - p.top + 1));
    const columns = Math.max(1, Math.min(p.values[0]?.length ?? 1, (grid?.columnCount ?? 0) - p.left + 1));
    return a1(p.sheet.title ?? '', p.top, p.left, rows, columns);
  };
  const current = toCheck.length === 0 ? [] : ((await api.spreadsheets.values.batchGet({ spreadsheetId, ranges: toCheck.map(inGrid), valueRenderOption: 'FORMULA' })).data.valueRanges ?? []);
  const taken: (Area & { id: string })[] = (spreadsheet.namedRanges ?? []).flatMap((named) => {
    const owner = stored.find(({ stored: entry }) => ownedRangeName(entry.id) === named.name);
    const range = named.range;
    return owner && range ? [{ sheetId: range.sheetId ?? 0, top: (range.startRowIndex ?? 0) + 1, left: (range.startColumnIndex ?? 0) + 1, rows: (range.endRowIndex ?? 0) - (range.startRowIndex ?? 0), columns: (range.endColumnIndex ?? 0) - (range.startColumnIndex ?? 0), id: owner.stored.id }] : [];
  });
  return placed.filter((p) => {
    const index = toCheck.indexOf(p);
    try {
      if (index >= 0) assertFree(p, spreadsheet.sheets?.find((s) => s.properties?.sheetId === p.sheet.sheetId)?.merges ?? [], (current[index]?.values ?? []) as unknown[][]);
      const area = { sheetId: p.sheet.sheetId ?? 0, top: p.top, left: p.left, rows: Math.max(p.values.length, 1), columns: Math.max(p.values[0]?.length ?? 0, 1), id: p.query.id };
      const other = taken.find((candidate) => candidate.id !== p.query.id && overlaps(area, candidate));
      if (other) throw new Error(`The answer would cover cells of the saved query ${other.id} (${a1(p.sheet.title ?? '', other.top, other.left, other.rows, other.columns)}): move one of the two queries`);
      taken.push(area);
      return true;
    } catch (error) {
      fail(outcomes, p.query, error);
      return false;
    }
  });
}

/** The sheets too small for the answers, grown to fit: absolute sizes (not "append n rows"), so the same request applied twice grows a sheet once. */
function growRequests(spreadsheet: sheets_v4.Schema$Spreadsheet, writable: readonly Placed[]): sheets_v4.Schema$Request[] {
  const growth = new Map<number, { rows: number; columns: number }>();
  for (const p of writable) {
    const needed = growth.get(p.sheet.sheetId ?? 0) ?? { rows: p.sheet.gridProperties?.rowCount ?? 0, columns: p.sheet.gridProperties?.columnCount ?? 0 };
    growth.set(p.sheet.sheetId ?? 0, { rows: Math.max(needed.rows, p.top + p.values.length - 1), columns: Math.max(needed.columns, p.left + (p.values[0]?.length ?? 0) - 1) });
  }
  return [...growth].flatMap(([sheetId, size]) => {
    const grid = spreadsheet.sheets?.find((s) => s.properties?.sheetId === sheetId)?.properties?.gridProperties;
    if (size.rows <= (grid?.rowCount ?? 0) && size.columns <= (grid?.columnCount ?? 0)) return [];
    return [{ updateSheetProperties: { properties: { sheetId, gridProperties: { rowCount: Math.max(size.rows, grid?.rowCount ?? 0), columnCount: Math.max(size.columns, grid?.columnCount ?? 0) } }, fields: 'gridProperties(rowCount,columnCount)' } }];
  });
}

/**
 * 3. Sheets grown and the cells to be written claimed (status "writing") before any is written, 4. old
 * extents cleared, 5. new values written. Resolves to the queries written: none when the API failed
 * meanwhile (they fail saying so; whatever was claimed stays claimed, and the next run owns it).
 */
async function writeAnswers(api: sheets_v4.Sheets, spreadsheetId: string, spreadsheet: sheets_v4.Schema$Spreadsheet, writable: Placed[], outcomes: Outcomes): Promise<Placed[]> {
  if (writable.length === 0) return writable;
  const grow = growRequests(spreadsheet, writable);
  const claims = writable.flatMap((p) => {
    const rows = Math.max(p.values.length, p.owned.rows);
    const columns = Math.max(p.values[0]?.length ?? 0, p.owned.columns);
    return [namedRangeRequest(p, rows, columns), metadataUpdate(p.metadataId, { ...p.query, extent: { rows, columns }, status: 'writing' })];
  });
  try {
    const { data } = await api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests: [...grow, ...claims] } });
    // A named range just added has an id now: the final update names it.
    (data.replies ?? []).slice(grow.length).forEach((reply) => {
      const added = reply.addNamedRange?.namedRange;
      const owner = writable.find((p) => ownedRangeName(p.query.id) === added?.name);
      if (owner && added?.namedRangeId) owner.namedRangeId = added.namedRangeId;
    });
    const cleared = writable.filter((p) => p.owned.rows > 0).map((p) => a1(p.sheet.title ?? '', p.top, p.left, p.owned.rows, p.owned.columns));
    if (cleared.length > 0) await api.spreadsheets.values.batchClear({ spreadsheetId, requestBody: { ranges: cleared } });
    const data5 = writable.filter((p) => p.values.length > 0).map((p) => ({ range: a1(p.sheet.title ?? '', p.top, p.left, p.values.length, p.values[0]?.length ?? 1), values: p.values }));
    if (data5.length > 0) await api.spreadsheets.values.batchUpdate({ spreadsheetId, requestBody: { valueInputOption: 'RAW', data: data5 } });
    return writable;
  } catch (error) {
    const message = `The Sheets API failed during the write: ${messageOf(error)}. The cells stay claimed by their queries; run the refresh again.`;
    for (const p of writable) outcomes.set(p.query.id, { id: p.query.id, target: targetOf(p.query), ok: false, message });
    return [];
  }
}

/** 6. Named ranges to the new extents, and every query's state stored: where it wrote and when, or why it failed. */
async function stamp(api: sheets_v4.Sheets, spreadsheetId: string, stored: readonly StoredEntry[], completed: readonly Placed[], outcomes: Outcomes, at: string): Promise<void> {
  const finals: sheets_v4.Schema$Request[] = [];
  for (const p of completed) {
    const rows = p.values.length;
    const columns = p.values[0]?.length ?? 0;
    finals.push(namedRangeRequest(p, rows, columns), metadataUpdate(p.metadataId, { ...p.query, sheet: p.sheet.title ?? p.query.sheet, cell: `${columnLetters(p.left)}${String(p.top)}`, extent: { rows, columns }, last_refreshed: at, status: 'ok' }));
    outcomes.set(p.query.id, { id: p.query.id, target: targetOf({ sheet: p.sheet.title ?? p.query.sheet, cell: `${columnLetters(p.left)}${String(p.top)}` }), ok: true, message: `ok (${String(rows)} × ${String(columns)})` });
  }
  for (const { stored: entry, metadataId } of stored) {
    const outcome = outcomes.get(entry.id);
    if (entry.query && outcome && !outcome.ok) finals.push(metadataUpdate(metadataId, { ...entry.query, status: outcome.message }));
  }
  if (finals.length === 0) return;
  try {
    await api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests: finals } });
  } catch (error) {
    // The values are written; only the stamps are missing (the next run stamps them).
    for (const outcome of outcomes.values()) if (outcome.ok) outcome.message = `${outcome.message}; not stamped: ${messageOf(error)}`;
  }
}

/** Refreshes every saved query of the Google Sheet; one outcome per query. */
export async function refreshGoogleSheet(spreadsheetId: string, options: GoogleSheetOptions): Promise<QueryOutcome[]> {
  const api = clientOf(options);
  const { spreadsheet, stored } = await readSpreadsheet(api, spreadsheetId);
  const outcomes: Outcomes = new Map();
  const placed = await answerQueries(spreadsheet, stored, options, outcomes);
  const writable = await writableOf(api, spreadsheetId, spreadsheet, stored, placed, outcomes);
  const completed = await writeAnswers(api, spreadsheetId, spreadsheet, writable, outcomes);
  await stamp(api, spreadsheetId, stored, completed, outcomes, (options.now ?? (() => new Date()))().toISOString());
  return stored.map(({ stored: entry }) => outcomes.get(entry.id) ?? { id: entry.id, target: '?', ok: false, message: 'not refreshed' });
}
