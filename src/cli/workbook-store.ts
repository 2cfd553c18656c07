/**
 * An .xlsx workbook's saved queries as the command line reads and writes them — `orgindex refresh` and
 * `orgindex query` alike, in the format the Excel add-in writes: one row per query in the hidden worksheet
 * `_orgindex` (src/sheet/saved-query.ts) and the cells a query owns as a defined name `ORGINDEX_<id>`.
 * A workbook is opened behind the guards of workbook-guard.ts (its defined names kept away from exceljs)
 * and written back atomically: to a temporary file beside it (same mode, synced to disk), then renamed
 * over it unless it changed meanwhile — a crash never leaves half a workbook, and an edit saved from Excel
 * during the run is never overwritten. A new workbook is linked into place only if no file took its name.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import ExcelJS from 'exceljs';
import { cellOf, columnLetters } from '../sheet/a1.js';
import { readSavedQueryRows, SAVED_QUERY_HEADER, SAVED_QUERY_SHEET, savedQueryRow, type StoredQuery } from '../sheet/saved-query.js';
import { DefinedNames, prepareWorkbook, withDefinedNames } from './workbook-guard.js';
import { UsageError } from './usage.js';
import { messageOf } from '../contract/errors.js';

/** A workbook as read, with what writing it back needs. */
export interface OpenedWorkbook {
  /** The file as the user named it, for messages. */
  file: string;
  /** The real file (a symbolic link stays a link to the rewritten workbook). */
  path: string;
  /** The file's state when read; null for a workbook this run creates. */
  before: Stats | null;
  workbook: ExcelJS.Workbook;
  names: DefinedNames;
  /** The command, as refusals name it ("orgindex refresh"). */
  command: string;
}

/**
 * Opens a workbook to rewrite it: refused (UsageError) when it is missing (unless `create`), open
 * in Excel, unreadable, or holds what the rewrite would drop or expand past the bounds of workbook-guard.ts.
 */
export async function openWorkbook(file: string, options: { command: string; create?: boolean }): Promise<OpenedWorkbook> {
  const { command } = options;
  const exists = existsSync(file);
  if (!exists && !options.create) throw new UsageError(`${file} does not exist`);
  if (!exists && !existsSync(dirname(resolve(file)))) throw new UsageError(`${file} cannot be created: the folder ${dirname(resolve(file))} does not exist`);
  const path = exists ? realpathSync(file) : resolve(file);
  if (existsSync(join(dirname(path), `~$${basename(path)}`))) throw new UsageError(`${file} is open in Excel (its lock file ~$${basename(path)} exists): close it first, or its next save would undo what ${command} writes`);
  const workbook = new ExcelJS.Workbook();
  if (!exists) return { file, path, before: null, workbook, names: new DefinedNames(), command };
  const before = statSync(path);
  const bytes = readFileSync(path);
  try {
    const prepared = await prepareWorkbook(bytes, file, command);
    await workbook.xlsx.load(prepared.readable as unknown as ArrayBuffer);
    return { file, path, before, workbook, names: prepared.names, command };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file} cannot be read as an .xlsx workbook: ${messageOf(error)}`, { cause: error });
  }
}

/** Writes the workbook back (its defined names included), atomically. */
export async function saveWorkbook(opened: OpenedWorkbook): Promise<void> {
  writeAtomically(opened, await withDefinedNames(Buffer.from(await opened.workbook.xlsx.writeBuffer()), opened.names));
}

/**
 * Beside the workbook (same file system, so the rename is atomic), with its mode, synced to disk, then
 * renamed over it — unless the workbook changed since it was read (saved from Excel during the run). A new
 * workbook takes the mode new files get, and is linked into place: a file that appeared meanwhile stays.
 */
function writeAtomically({ path, before, file, command }: OpenedWorkbook, bytes: Buffer): void {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, bytes, { flag: 'wx', mode: before ? 0o600 : 0o666 });
    if (before) chmodSync(temporary, before.mode & 0o7777);
    const handle = openSync(temporary, 'r');
    fsyncSync(handle);
    closeSync(handle);
    if (before) {
      const now = statSync(path);
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) throw new UsageError(`${file} changed while ${command} ran (saved from Excel?): nothing written; run it again`);
      renameSync(temporary, path);
    } else {
      try {
        linkSync(temporary, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`${file} was created by something else while ${command} ran: nothing written; run it again`);
        throw error;
      }
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  // The rename itself reaches the disk with the directory.
  const directory = openSync(dirname(path), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}

/** A row of the store: the query read from it, and the row as it was (an unreadable row is written back unchanged). */
export interface StoreEntry {
  stored: StoredQuery;
  raw: ExcelJS.CellValue[];
}

/** The store's rows, or none when the workbook has no `_orgindex` sheet. */
export function readQueries(sheet: ExcelJS.Worksheet | undefined): StoreEntry[] {
  if (!sheet) return [];
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

/** The store's sheet, created hidden (after the other sheets) when the workbook has none yet. */
export const storeSheet = (workbook: ExcelJS.Workbook): ExcelJS.Worksheet => workbook.getWorksheet(SAVED_QUERY_SHEET) ?? workbook.addWorksheet(SAVED_QUERY_SHEET, { state: 'hidden' });

export function writeQueries(sheet: ExcelJS.Worksheet, entries: readonly StoreEntry[]): void {
  const lines: ExcelJS.CellValue[][] = [SAVED_QUERY_HEADER, ...entries.map(({ stored, raw }) => (stored.query ? savedQueryRow(stored.query) : raw))];
  // Only the rows holding values are visited past the lines: the sheet may reach row 1,048,576.
  sheet.eachRow({ includeEmpty: false }, (row, r) => {
    if (r > lines.length) {
      row.eachCell((cell) => {
        cell.value = null;
      });
    }
  });
  lines.forEach((line, index) => {
    const row = sheet.getRow(index + 1);
    const width = Math.max(row.cellCount, line.length);
    for (let c = 1; c <= width; c++) row.getCell(c).value = line[c - 1] ?? null;
  });
}

export const quoted = (sheet: string): string => `'${sheet.replace(/'/g, "''")}'`;

export const addressOf = (row: number, column: number): string => `${columnLetters(column)}${String(row)}`;

export interface Area {
  sheet: string;
  top: number;
  left: number;
  rows: number;
  columns: number;
}

/** The area of a defined name's formula ("'My sheet'!$B$2:$C$4" or "Leads!$B$2"), or null for anything else. */
export function areaOf(text: string | null): Area | null {
  const match = text === null ? null : /^(?:'((?:[^']|'')+)'|([^!]+))!([^!]+)$/.exec(text);
  if (!match) return null;
  const [, quotedName, plainName, reference = ''] = match;
  const ends = reference.split(':');
  const [from, to = from] = ends.map((end) => cellOf(end));
  if (ends.length > 2 || !from || !to) return null;
  const [top, bottom] = [from.row, to.row].sort((a, b) => a - b) as [number, number];
  const [left, right] = [from.column, to.column].sort((a, b) => a - b) as [number, number];
  return { sheet: quotedName?.replace(/''/g, "'") ?? plainName ?? '', top, left, rows: bottom - top + 1, columns: right - left + 1 };
}

/** Points the defined name at rows × columns from (top, left) of the sheet: at least its top-left cell. */
export function claim(names: DefinedNames, name: string, sheet: ExcelJS.Worksheet, top: number, left: number, rows: number, columns: number): void {
  const from = `$${columnLetters(left)}$${String(top)}`;
  const to = `$${columnLetters(left + Math.max(columns, 1) - 1)}$${String(top + Math.max(rows, 1) - 1)}`;
  names.set(name, `${quoted(sheet.name)}!${from}${from === to ? '' : `:${to}`}`);
}
