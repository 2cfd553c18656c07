/**
 * `orgindex refresh WORKBOOK.xlsx`: re-runs every saved query of a workbook (the hidden worksheet
 * `_orgindex`, see src/sheet/saved-query.ts) and writes its values in place, without Excel — for cron
 * and CI schedulers. exceljs reads and writes the workbook (it keeps the other cells, formulas, styles and
 * sheets; SheetJS's community edition drops styles) — and a workbook holding parts exceljs cannot write
 * back (charts, pivot tables, macros …), or that exceljs would expand cell by cell past the bounds of
 * workbook-guard.ts, is refused before anything runs; defined names are kept away from exceljs and
 * written back as they were. Per query, as the Sheets refresher does: the same table as the functions;
 * the cells a query owns are a defined name `ORGINDEX_<id>`, which Excel moves with inserted rows and
 * renamed sheets; a query fails — and nothing of it changes — rather than overwrite a cell it does not
 * own, write into merged cells, outside Excel's grid or on the hidden store itself, or run on another
 * service than the one it was saved against. The workbook is opened and written back atomically by
 * workbook-store.ts.
 */
import type ExcelJS from 'exceljs';
import { createRemoteClient } from '../client/transports/ky.js';
import type { SavedQuery } from '../contract/saved-query.js';
import { createDefaultEngine } from '../engine/engine.js';
import { localBackend, remoteBackend, type SheetBackend } from '../sheet/backend.js';
import { ResultCache } from '../sheet/cache.js';
import { errorText, isErrorCell, type CellValue, type Remedies } from '../sheet/cells.js';
import { clientOptionsOf, DEFAULT_CONNECTION } from '../sheet/connection.js';
import { SheetFunctions } from '../sheet/functions.js';
import { cellOf } from '../sheet/a1.js';
import { answerConflict, mergedConflict, ownedRangeName, storeSheetConflict, refreshMessageOf, SAVED_QUERY_SHEET, serviceOf, sheetGone, targetOf } from '../sheet/saved-query.js';
import { sameService, serviceMismatch } from './services.js';
import { GRID, LIMITS, printable, type DefinedNames } from './workbook-guard.js';
import { UsageError } from './usage.js';
import { addressOf, areaOf, claim, openWorkbook, readQueries, saveWorkbook, writeQueries, type StoreEntry } from './workbook-store.js';

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

type Written = string | number | boolean | null;

const written = (cell: CellValue): Written => (isErrorCell(cell) ? errorText(cell) : cell);

function backendOf(service: string | null, apiKey: string | undefined): SheetBackend {
  if (service === null) return localBackend(() => createDefaultEngine());
  return remoteBackend(createRemoteClient(clientOptionsOf({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: service, apiKey: apiKey ?? '' })));
}

/**
 * What a refresh's messages tell its reader — in a terminal or a cron log, where there is no Connection
 * tab — to do: the ways refresh-command.ts reads the key.
 */
export const CLI_REMEDIES: Remedies = { apiKey: 'check the API key: set ORGINDEX_API_KEY, or give --key-file FILE' };

/** The functions of one refresh run: the service (or the embedded sample, built only when asked), no cache across runs. */
export function refreshFunctions(service: string | null, apiKey: string | undefined): SheetFunctions {
  const backend = backendOf(service, apiKey);
  return new SheetFunctions({ backend: () => backend, cache: new ResultCache({ now: () => Date.now() }), schedule: (run, ms) => setTimeout(run, ms), remedies: CLI_REMEDIES });
}

/** Empty as a refresh sees it: no cell, no value and no formula. */
const isEmpty = (cell: ExcelJS.Cell | undefined): boolean => cell === undefined || cell.value === null || cell.value === undefined || cell.value === '';

/** A cell if it exists: looking never creates one (nor its row), so a failed query leaves nothing behind. */
const existing = (sheet: ExcelJS.Worksheet, row: number, column: number): ExcelJS.Cell | undefined => sheet.findRow(row)?.findCell(column);

const inGrid = (row: number, column: number): boolean => row >= 1 && row <= GRID.rows && column >= 1 && column <= GRID.columns;

/** Writes one query's table where its defined name (else its sheet and cell) says; the query as it is to be stored after. */
function writeQuery(workbook: ExcelJS.Workbook, names: DefinedNames, query: SavedQuery, table: CellValue[][], at: string): SavedQuery {
  const name = ownedRangeName(query.id);
  const text = names.text(name);
  const owned = areaOf(text);
  // What the refresher walks to clear it: bounded, whatever the name was made to cover.
  if (owned && owned.rows * owned.columns > LIMITS.ownedCells) {
    throw new Error(`Its defined name ${name} covers ${printable(text ?? '')} (${(owned.rows * owned.columns).toLocaleString('en-US')} cells), more than a saved query writes (at most ${LIMITS.ownedCells.toLocaleString('en-US')} cells): delete that name (Formulas › Name Manager) to write the query at its cell again`);
  }
  const sheet = workbook.getWorksheet(owned?.sheet ?? query.sheet);
  if (!sheet) throw new Error(sheetGone(owned?.sheet ?? query.sheet));
  const cell = cellOf(query.cell) ?? { row: 1, column: 1 };
  const top = owned ? owned.top : cell.row;
  const left = owned ? owned.left : cell.column;
  const from = addressOf(top, left);
  if (!inGrid(top, left)) throw new Error(`The saved query's cell ${from} is outside Excel's grid (${GRID.range}): remove the saved query and insert it again inside the sheet`);
  const width = Math.max(0, ...table.map((row) => row.length));
  const rows = width === 0 ? 0 : table.length;
  const answer = { rows, columns: width, from };
  // Checked before any cell is touched: nothing of a failed query is written.
  const [lastRow, lastColumn] = [top + Math.max(rows, 1) - 1, left + Math.max(width, 1) - 1];
  if (!inGrid(lastRow, lastColumn)) throw new Error(`The answer (${String(rows)} × ${String(width)} cells from ${from}) would end at ${addressOf(lastRow, lastColumn)}, outside Excel's grid (${GRID.range}): move the saved query`);
  // What the query owns: its defined name's cells when it wrote something last time; else nothing.
  const previous = owned && query.extent && query.extent.rows > 0 ? { rows: owned.rows, columns: owned.columns } : { rows: 0, columns: 0 };
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < width; c++) {
      if (existing(sheet, top + r, left + c)?.isMerged) throw new Error(mergedConflict(answer, addressOf(top + r, left + c)));
    }
  }
  const conflict = answerConflict(answer, previous, (r, c) => isEmpty(existing(sheet, top + r, left + c)));
  if (conflict) throw new Error(conflict);
  // Cleared value by value: the cells keep their styles.
  for (let r = 0; r < previous.rows; r++) {
    const row = sheet.findRow(top + r);
    for (let c = 0; row && c < previous.columns; c++) {
      const cell = row.findCell(left + c);
      if (cell) cell.value = null;
    }
  }
  table.forEach((row, r) => {
    for (let c = 0; c < width; c++) sheet.getCell(top + r, left + c).value = written(row[c] ?? null);
  });
  claim(names, name, sheet, top, left, rows, width);
  return { ...query, sheet: sheet.name, cell: from, extent: { rows, columns: width }, last_refreshed: at, status: 'ok' };
}

/** Refreshes every saved query of the workbook and writes it back atomically; one outcome per query. */
export async function refreshWorkbook(file: string, options: RefreshOptions = {}): Promise<QueryOutcome[]> {
  const opened = await openWorkbook(file, { command: 'orgindex refresh' });
  const { workbook, names } = opened;
  const sheet = workbook.getWorksheet(SAVED_QUERY_SHEET);
  if (!sheet) throw new UsageError(`${file} has no saved queries (no worksheet "${SAVED_QUERY_SHEET}"; docs/automation.md, "orgindex refresh WORKBOOK.xlsx", describes its rows)`);
  const entries = readQueries(sheet);
  const service = serviceOf(options.baseUrl);
  const functions = refreshFunctions(service, options.apiKey);
  const now = options.now ?? (() => new Date());
  const outcomes: QueryOutcome[] = [];
  const after: StoreEntry[] = [];
  for (const entry of entries) {
    const { query } = entry.stored;
    if (!query) {
      outcomes.push({ id: entry.stored.id, target: '?', ok: false, message: printable(entry.stored.problem ?? 'unreadable') });
      after.push(entry);
      continue;
    }
    try {
      if (!sameService(query.service, service)) throw new Error(serviceMismatch(query.service, service));
      // Where its defined name (else its saved sheet) points, checked before the service is asked.
      const own = storeSheetConflict(query.id, areaOf(names.text(ownedRangeName(query.id)))?.sheet ?? query.sheet);
      if (own !== null) throw new Error(own);
      const refreshed = writeQuery(workbook, names, query, await functions.savedQuery(query), now().toISOString());
      outcomes.push({ id: query.id, target: printable(targetOf(refreshed)), ok: true, message: `ok (${String(refreshed.extent?.rows ?? 0)} × ${String(refreshed.extent?.columns ?? 0)})` });
      after.push({ ...entry, stored: { ...entry.stored, query: refreshed } });
    } catch (error) {
      // Printed as well as stored: nothing the workbook holds reaches a terminal as control characters.
      const message = printable(refreshMessageOf(error, CLI_REMEDIES));
      outcomes.push({ id: query.id, target: printable(targetOf(query)), ok: false, message });
      after.push({ ...entry, stored: { ...entry.stored, query: { ...query, status: message } } });
    }
  }
  writeQueries(sheet, after);
  await saveWorkbook(opened);
  return outcomes;
}
