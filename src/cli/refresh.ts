/**
 * `orgindex refresh WORKBOOK.xlsx`: re-runs every saved query of a workbook (the hidden worksheet
 * `_orgindex`, see src/sheet/saved-query.ts) and writes its values in place, without Excel — for cron
 * and CI schedulers. exceljs reads and writes the workbook (it keeps the other cells, formulas, styles and
 * sheets; SheetJS's community edition drops styles) — and a workbook holding parts exceljs cannot write
 * back (charts, pivot tables, macros …) is refused before anything runs. Per query, as the Sheets
 * refresher does: the same table as the functions; the cells a query owns are a defined name
 * `ORGINDEX_<id>`, which Excel moves with inserted rows and renamed sheets; a query fails — and nothing of
 * it changes — rather than overwrite a cell it does not own, write into merged cells, or run on another
 * service than the one it was saved against. The workbook is written to a temporary file beside it
 * (same mode, synced to disk) and renamed over it, unless it changed meanwhile: a crash never leaves half
 * a workbook, and an edit saved during the run is never overwritten.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { createRemoteClient } from '../client/transports/ky.js';
import type { SavedQuery } from '../contract/saved-query.js';
import { createDefaultLocalIndex } from '../engine/local-index.js';
import { localBackend, remoteBackend, type SheetBackend } from '../sheet/backend.js';
import { ResultCache } from '../sheet/cache.js';
import { isErrorCell, type CellValue } from '../sheet/cells.js';
import { clientOptionsOf, DEFAULT_CONNECTION } from '../sheet/connection.js';
import { SheetFunctions } from '../sheet/functions.js';
import { answerConflict, columnNumber, mergedConflict, ownedRangeName, readSavedQueryRows, refreshMessageOf, SAVED_QUERY_HEADER, SAVED_QUERY_SHEET, savedQueryRow, serviceName, serviceOf, targetOf, type StoredQuery } from '../sheet/saved-query.js';

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

/** The functions of one refresh run: the service (or the embedded sample, built only when asked), no cache across runs. */
export function refreshFunctions(service: string | null, apiKey: string | undefined): SheetFunctions {
  const backend = backendOf(service, apiKey);
  return new SheetFunctions({ backend: () => backend, cache: new ResultCache({ now: () => Date.now() }), schedule: (run, ms) => setTimeout(run, ms) });
}

/** Empty as a refresh sees it: no value and no formula. */
const isEmpty = (cell: ExcelJS.Cell): boolean => cell.value === null || cell.value === undefined || cell.value === '';

const quoted = (sheet: string): string => `'${sheet.replace(/'/g, "''")}'`;

interface Area {
  sheet: string;
  top: number;
  left: number;
  rows: number;
  columns: number;
}

/** The area of a defined name ("'My sheet'!$B$2:$C$4" or "Leads!$B$2"), or null. */
function areaOf(workbook: ExcelJS.Workbook, name: string): Area | null {
  const [range] = workbook.definedNames.getRanges(name).ranges;
  const match = range ? /^(?:'((?:[^']|'')+)'|([^!]+))!\$?([A-Z]+)\$?(\d+)(?::\$?([A-Z]+)\$?(\d+))?$/.exec(range) : null;
  if (!match) return null;
  const [, quotedName, plainName, fromColumn = 'A', fromRow = '1', toColumn = fromColumn, toRow = fromRow] = match;
  const left = columnNumber(fromColumn);
  const top = Number(fromRow);
  return { sheet: quotedName?.replace(/''/g, "'") ?? plainName ?? '', top, left, rows: Number(toRow) - top + 1, columns: columnNumber(toColumn) - left + 1 };
}

function claim(workbook: ExcelJS.Workbook, name: string, sheet: ExcelJS.Worksheet, top: number, left: number, rows: number, columns: number): void {
  for (const range of workbook.definedNames.getRanges(name).ranges) workbook.definedNames.remove(range, name);
  const from = sheet.getCell(top, left).address;
  const to = sheet.getCell(top + Math.max(rows, 1) - 1, left + Math.max(columns, 1) - 1).address;
  const absolute = (address: string): string => address.replace(/^([A-Z]+)(\d+)$/, '$$$1$$$2');
  workbook.definedNames.add(`${quoted(sheet.name)}!${absolute(from)}${from === to ? '' : `:${absolute(to)}`}`, name);
}

/** Writes one query's table where its defined name (else its sheet and cell) says; the query as it is to be stored after. */
function writeQuery(workbook: ExcelJS.Workbook, query: SavedQuery, table: CellValue[][], at: string): SavedQuery {
  const name = ownedRangeName(query.id);
  const owned = areaOf(workbook, name);
  const sheet = workbook.getWorksheet(owned?.sheet ?? query.sheet);
  if (!sheet) throw new Error(`The sheet "${owned?.sheet ?? query.sheet}" does not exist in this workbook (renamed or deleted): remove the saved query and insert it again`);
  const anchor = owned ? sheet.getCell(owned.top, owned.left) : sheet.getCell(query.cell);
  const top = Number(anchor.row);
  const left = Number(anchor.col);
  const width = Math.max(0, ...table.map((row) => row.length));
  const rows = width === 0 ? 0 : table.length;
  // What the query owns: its defined name's cells when it wrote something last time; else nothing.
  const previous = owned && query.extent && query.extent.rows > 0 ? { rows: owned.rows, columns: owned.columns } : { rows: 0, columns: 0 };
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < width; c++) {
      const cell = sheet.getCell(top + r, left + c);
      if (cell.isMerged) throw new Error(mergedConflict({ rows, columns: width, from: anchor.address }, cell.address));
    }
  }
  const conflict = answerConflict({ rows, columns: width, from: anchor.address }, previous, (r, c) => isEmpty(sheet.getCell(top + r, left + c)));
  if (conflict) throw new Error(conflict);
  // Cleared value by value: the cells keep their styles.
  for (let r = 0; r < previous.rows; r++) for (let c = 0; c < previous.columns; c++) sheet.getCell(top + r, left + c).value = null;
  table.forEach((row, r) => {
    for (let c = 0; c < width; c++) sheet.getCell(top + r, left + c).value = written(row[c] ?? null);
  });
  claim(workbook, name, sheet, top, left, rows, width);
  return { ...query, sheet: sheet.name, cell: anchor.address, extent: { rows, columns: width }, last_refreshed: at, status: 'ok' };
}

/** The stored queries, each with its row as read (an unreadable row is written back as it was). */
function readQueries(sheet: ExcelJS.Worksheet): { stored: StoredQuery; raw: ExcelJS.CellValue[] }[] {
  const rows: unknown[][] = [];
  const raws: ExcelJS.CellValue[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const values: unknown[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      values[column - 1] = cell.text;
    });
    rows.push(Array.from(values, (value) => value ?? ''));
    raws.push((row.values as ExcelJS.CellValue[]).slice(1));
  });
  return readSavedQueryRows(rows).map((stored) => ({ stored, raw: raws[stored.row] ?? [] }));
}

function writeQueries(sheet: ExcelJS.Worksheet, entries: readonly { stored: StoredQuery; raw: ExcelJS.CellValue[] }[]): void {
  const lines: ExcelJS.CellValue[][] = [SAVED_QUERY_HEADER, ...entries.map(({ stored, raw }) => (stored.query ? savedQueryRow(stored.query) : raw))];
  const last = Math.max(sheet.rowCount, lines.length);
  for (let r = 1; r <= last; r++) {
    const row = sheet.getRow(r);
    const line = lines[r - 1] ?? [];
    const width = Math.max(row.cellCount, line.length);
    for (let c = 1; c <= width; c++) row.getCell(c).value = line[c - 1] ?? null;
  }
}

/** Parts of an .xlsx that exceljs does not write back: a refresh would silently drop them. */
const UNKEPT_PARTS: [RegExp, string][] = [
  [/^xl\/charts\//, 'charts'],
  [/^xl\/chartsheets\//, 'chart sheets'],
  [/^xl\/pivot(Tables|Cache)\//, 'pivot tables'],
  [/^xl\/(slicers|slicerCaches|timelines|timelineCaches)\//, 'slicers or timelines'],
  [/^xl\/externalLinks\//, 'links to other workbooks'],
  [/^xl\/vbaProject\.bin$/, 'macros'],
  [/^xl\/(activeX|ctrlProps|embeddings)\//, 'controls or embedded objects'],
  [/^xl\/(webextensions|threadedComments|persons|model|customData)\//, 'add-in data, threaded comments or a data model'],
  [/^xl\/(queryTables\/|connections\.xml$)/, 'data connections'],
  [/^(customXml\/|docProps\/custom\.xml$)/, 'custom properties (sensitivity labels)'],
];

/** Refuses a workbook the rewrite would damage: the parts above, legacy sheet passwords, sheet-scoped names. */
async function assertKeepable(bytes: Buffer, file: string): Promise<void> {
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.values(zip.files).filter((entry) => !entry.dir).map((entry) => entry.name);
  const found = new Map<string, string>();
  for (const name of names) for (const [pattern, what] of UNKEPT_PARTS) if (pattern.test(name) && !found.has(what)) found.set(what, name);
  const workbookXml = (await zip.file('xl/workbook.xml')?.async('string')) ?? '';
  if (/<definedName\b[^>]*\blocalSheetId=/.test(workbookXml)) found.set('names scoped to one sheet', 'xl/workbook.xml');
  if (/<workbookProtection\b/.test(workbookXml)) found.set('workbook protection', 'xl/workbook.xml');
  for (const name of names.filter((entry) => /^xl\/worksheets\/sheet\d+\.xml$/.test(entry))) {
    if (/<sheetProtection\b[^>]*\bpassword=/.test((await zip.file(name)?.async('string')) ?? '')) found.set('sheet protection with a legacy password', name);
  }
  if (found.size > 0) {
    throw new RefreshUsageError(`${file} holds ${[...found].map(([what, part]) => `${what} (${part})`).join(', ')}, which orgindex refresh could not keep: it rewrites the workbook with exceljs. Keep these in another workbook that links to this one, or refresh from Excel.`);
  }
}

/** Refreshes every saved query of the workbook and writes it back atomically; one outcome per query. */
export async function refreshWorkbook(file: string, options: RefreshOptions = {}): Promise<QueryOutcome[]> {
  if (!existsSync(file)) throw new RefreshUsageError(`${file} does not exist`);
  // The real file: a symbolic link stays a link to the refreshed workbook.
  const path = realpathSync(file);
  if (existsSync(join(dirname(path), `~$${basename(path)}`))) throw new RefreshUsageError(`${file} is open in Excel (its lock file ~$${basename(path)} exists): close it first, or its next save would undo the refresh`);
  const before = statSync(path);
  const bytes = readFileSync(path);
  const workbook = new ExcelJS.Workbook();
  try {
    await assertKeepable(bytes, file);
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    if (error instanceof RefreshUsageError) throw error;
    throw new RefreshUsageError(`${file} cannot be read as an .xlsx workbook: ${(error as Error).message}`);
  }
  const sheet = workbook.getWorksheet(SAVED_QUERY_SHEET);
  if (!sheet) throw new RefreshUsageError(`${file} has no saved queries (no worksheet "${SAVED_QUERY_SHEET}"; README: "orgindex refresh" describes its rows)`);
  const entries = readQueries(sheet);
  const service = serviceOf(options.baseUrl);
  const functions = refreshFunctions(service, options.apiKey);
  const now = options.now ?? (() => new Date());
  const outcomes: QueryOutcome[] = [];
  const after: { stored: StoredQuery; raw: ExcelJS.CellValue[] }[] = [];
  for (const entry of entries) {
    const { query } = entry.stored;
    if (!query) {
      outcomes.push({ id: entry.stored.id, target: '?', ok: false, message: entry.stored.problem ?? 'unreadable' });
      after.push(entry);
      continue;
    }
    try {
      if (query.service !== service) throw new Error(`This query was saved against ${serviceName(query.service)}; this run uses ${serviceName(service)}. Give --base-url ${query.service ?? '(none)'} or remove the query and insert it again.`);
      const refreshed = writeQuery(workbook, query, await functions.savedQuery(query), now().toISOString());
      outcomes.push({ id: query.id, target: targetOf(refreshed), ok: true, message: `ok (${String(refreshed.extent?.rows ?? 0)} × ${String(refreshed.extent?.columns ?? 0)})` });
      after.push({ ...entry, stored: { ...entry.stored, query: refreshed } });
    } catch (error) {
      const message = refreshMessageOf(error);
      outcomes.push({ id: query.id, target: targetOf(query), ok: false, message });
      after.push({ ...entry, stored: { ...entry.stored, query: { ...query, status: message } } });
    }
  }
  writeQueries(sheet, after);
  await writeAtomically(path, workbook, before, file);
  return outcomes;
}

/**
 * Beside the workbook (same file system, so the rename is atomic), with its mode, synced to disk, then
 * renamed over it — unless the workbook changed since it was read (saved from Excel during the run).
 */
async function writeAtomically(path: string, workbook: ExcelJS.Workbook, before: { mtimeMs: number; size: number; mode: number }, file: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await workbook.xlsx.writeFile(temporary);
    chmodSync(temporary, before.mode & 0o7777);
    const handle = openSync(temporary, 'r');
    fsyncSync(handle);
    closeSync(handle);
    const now = statSync(path);
    if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) throw new RefreshUsageError(`${file} changed while it was being refreshed (saved from Excel?): nothing written; run the refresh again`);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  // The rename itself reaches the disk with the directory.
  const directory = openSync(dirname(path), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}
