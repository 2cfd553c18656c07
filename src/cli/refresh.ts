/**
 * `orgindex refresh WORKBOOK.xlsx`: re-runs every saved query of a workbook (the hidden worksheet
 * `_orgindex`, see src/sheet/saved-query.ts) and writes its values in place, without Excel — for cron
 * and CI schedulers. exceljs reads and writes the workbook (it keeps the other cells, formulas, styles and
 * sheets; SheetJS's community edition drops styles). Per query, as the Sheets refresher does: the same
 * table as the functions; a query fails — and nothing of it changes — rather than overwrite a cell it did
 * not write last time or run on another service than the one it was saved against. The workbook is
 * written to a temporary file beside it and renamed over it, so a crash never leaves half a workbook.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import ExcelJS from 'exceljs';
import { createRemoteClient } from '../client/transports/ky.js';
import type { SavedQuery } from '../contract/saved-query.js';
import { createDefaultLocalIndex } from '../engine/local-index.js';
import { localBackend, remoteBackend, type SheetBackend } from '../sheet/backend.js';
import { ResultCache } from '../sheet/cache.js';
import { isErrorCell, type CellValue } from '../sheet/cells.js';
import { clientOptionsOf, DEFAULT_CONNECTION } from '../sheet/connection.js';
import { SheetFunctions } from '../sheet/functions.js';
import { readSavedQueryRows, refreshMessageOf, SAVED_QUERY_HEADER, SAVED_QUERY_SHEET, savedQueryRow, serviceName, serviceOf, targetOf, type StoredQuery } from '../sheet/saved-query.js';

export interface RefreshOptions {
  /** The v2 base URL; without it, the embedded 50,000-organization sample answers. */
  baseUrl?: string;
  apiKey?: string;
  now?: () => Date;
}

export interface QueryOutcome {
  id: string;
  target: string;
  ok: boolean;
  /** "ok (6 × 2)", or why it failed. */
  message: string;
}

export class RefreshUsageError extends Error {}

type Written = string | number | boolean | null;

const written = (cell: CellValue): Written => (isErrorCell(cell) ? `${cell.error} ${cell.message}` : cell);

function backendOf(service: string | null, apiKey: string | undefined): SheetBackend {
  if (service === null) return localBackend(() => createDefaultLocalIndex());
  return remoteBackend(createRemoteClient(clientOptionsOf({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: service, apiKey: apiKey ?? '' })));
}

/** Empty as a refresh sees it: no value and no formula. */
const isEmpty = (cell: ExcelJS.Cell): boolean => cell.value === null || cell.value === undefined || cell.value === '';

/** Writes one query's table at its cell; the query as it is to be stored after. */
function writeQuery(workbook: ExcelJS.Workbook, query: SavedQuery, table: CellValue[][], at: string): SavedQuery {
  const sheet = workbook.getWorksheet(query.sheet);
  if (!sheet) throw new Error(`The sheet "${query.sheet}" does not exist in this workbook (renamed or deleted): remove the saved query and insert it again`);
  const anchor = sheet.getCell(query.cell);
  const top = Number(anchor.row);
  const left = Number(anchor.col);
  const width = Math.max(0, ...table.map((row) => row.length));
  const rows = width === 0 ? 0 : table.length;
  const previous = query.extent ?? { rows: 0, columns: 0 };
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < width; c++) {
      if (r < previous.rows && c < previous.columns) continue;
      const cell = sheet.getCell(top + r, left + c);
      if (!isEmpty(cell)) throw new Error(`The answer (${String(rows)} × ${String(width)} cells from ${query.cell}) would overwrite ${cell.address}: clear or move that cell, or move the saved query`);
    }
  }
  // Cleared value by value: the cells keep their styles.
  for (let r = 0; r < previous.rows; r++) for (let c = 0; c < previous.columns; c++) sheet.getCell(top + r, left + c).value = null;
  table.forEach((row, r) => {
    for (let c = 0; c < width; c++) sheet.getCell(top + r, left + c).value = written(row[c] ?? null);
  });
  return { ...query, extent: { rows, columns: width }, last_refreshed: at, status: 'ok' };
}

function readQueries(sheet: ExcelJS.Worksheet): StoredQuery[] {
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const values: unknown[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      values[column - 1] = cell.text;
    });
    rows.push(Array.from(values, (value) => value ?? ''));
  });
  return readSavedQueryRows(rows);
}

function writeQueries(sheet: ExcelJS.Worksheet, stored: readonly StoredQuery[]): void {
  // Unreadable rows keep their text, so a hand-made mistake can still be mended.
  const previous = new Map<string, ExcelJS.CellValue[]>();
  sheet.eachRow((row) => previous.set(row.getCell(1).text, (row.values as ExcelJS.CellValue[]).slice(1)));
  const lines: ExcelJS.CellValue[][] = [SAVED_QUERY_HEADER, ...stored.map((entry) => (entry.query ? savedQueryRow(entry.query) : (previous.get(entry.id) ?? [entry.id])))];
  const last = Math.max(sheet.rowCount, lines.length);
  for (let r = 1; r <= last; r++) {
    const row = sheet.getRow(r);
    const line = lines[r - 1] ?? [];
    const width = Math.max(row.cellCount, line.length);
    for (let c = 1; c <= width; c++) row.getCell(c).value = line[c - 1] ?? null;
  }
}

/** Refreshes every saved query of the workbook and writes it back atomically; one outcome per query. */
export async function refreshWorkbook(file: string, options: RefreshOptions = {}): Promise<QueryOutcome[]> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.readFile(file);
  } catch (error) {
    throw new RefreshUsageError(`${file} cannot be read as an .xlsx workbook: ${(error as Error).message}`);
  }
  const sheet = workbook.getWorksheet(SAVED_QUERY_SHEET);
  if (!sheet) throw new RefreshUsageError(`${file} has no saved queries (no worksheet "${SAVED_QUERY_SHEET}"): insert some with the Excel add-in's "Insert as refreshable values"`);
  const stored = readQueries(sheet);
  const service = serviceOf(options.baseUrl);
  const backend = backendOf(service, options.apiKey);
  const functions = new SheetFunctions({ backend: () => backend, cache: new ResultCache({ now: () => Date.now() }), schedule: (run, ms) => setTimeout(run, ms) });
  const now = options.now ?? (() => new Date());
  const outcomes: QueryOutcome[] = [];
  const after: StoredQuery[] = [];
  for (const entry of stored) {
    const { query } = entry;
    if (!query) {
      outcomes.push({ id: entry.id, target: '?', ok: false, message: entry.problem ?? 'unreadable' });
      after.push(entry);
      continue;
    }
    try {
      if (query.service !== service) throw new Error(`This query was saved against ${serviceName(query.service)}; this run uses ${serviceName(service)}. Give --base-url ${query.service ?? '(none)'} or remove the query and insert it again.`);
      const refreshed = writeQuery(workbook, query, await functions.savedQuery(query), now().toISOString());
      outcomes.push({ id: query.id, target: targetOf(query), ok: true, message: `ok (${String(refreshed.extent?.rows ?? 0)} × ${String(refreshed.extent?.columns ?? 0)})` });
      after.push({ ...entry, query: refreshed });
    } catch (error) {
      const message = refreshMessageOf(error);
      outcomes.push({ id: query.id, target: targetOf(query), ok: false, message });
      after.push({ ...entry, query: { ...query, status: message } });
    }
  }
  writeQueries(sheet, after);
  // Beside the workbook (same file system, so the rename is atomic), then over it.
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await workbook.xlsx.writeFile(temporary);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return outcomes;
}
