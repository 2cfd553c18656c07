/// <reference types="google-apps-script" />
/**
 * What the sidebar and the menu do to the spreadsheet, with SpreadsheetApp: insert a formula or values,
 * read a selected column and write beside it, insert a chart, refresh the OrgIndex formulas, pin values.
 * Text is written with the plain-text format first: Sheets reads a string set through setValues like
 * typed input, so a crawled name "=IMPORTXML(…)" would become a formula and NACE "38.10" a number.
 */
import { rectangle, type Table } from '../../src/sheet/cells.js';
import { documentCache } from './runtime.js';

export type Written = string | number | boolean;

/** Text cells get the plain-text format first; other cells keep `formats` (when pinning) or get the automatic one. */
export function writeValues(range: GoogleAppsScript.Spreadsheet.Range, values: Written[][], formats?: string[][]): void {
  range.setNumberFormats(values.map((row, r) => row.map((value, c) => (typeof value === 'string' ? '@' : (formats?.[r]?.[c] ?? 'General')))));
  range.setValues(values);
}

/** The selection; its typing says never null, but a sheet without a selection (a chart selected) has none. */
function activeRange(): GoogleAppsScript.Spreadsheet.Range | null {
  return SpreadsheetApp.getActiveRange();
}

export function activeCell(): GoogleAppsScript.Spreadsheet.Range {
  const range = activeRange();
  if (!range) throw new Error('Select a cell first');
  return range.getCell(1, 1);
}

/** Formulas that call OrgIndex (the Sheets names). */
const ORG_FORMULA = /\bORG(SEARCH|FETCH|STATS|ASK)\s*\(/i;

export function insertFormula(formula: string): void {
  activeCell().setFormula(formula);
}

export function insertValues(table: Table): string {
  const values = rectangle(table);
  const target = activeCell().offset(0, 0, values.length, values[0]?.length ?? 1);
  writeValues(target, values);
  return target.getA1Notation();
}

export function readSelectedColumn(): { address: string; values: unknown[] } {
  const range = activeRange();
  if (!range) return { address: '', values: [] };
  const sheet = range.getSheet();
  // A whole-column selection (A:A) ends at the sheet's last row with content.
  const rows = Math.max(0, Math.min(range.getNumRows(), sheet.getLastRow() - range.getRow() + 1));
  if (rows === 0) return { address: '', values: [] };
  const column = sheet.getRange(range.getRow(), range.getColumn(), rows, 1);
  return { address: `'${sheet.getName().replace(/'/g, "''")}'!${column.getA1Notation()}`, values: column.getValues().map((row) => row[0] as unknown) };
}

export function writeBeside(address: string, offset: number, table: Table): void {
  if (table.length === 0) return;
  const values = rectangle(table);
  const start = SpreadsheetApp.getActiveSpreadsheet().getRange(address);
  writeValues(start.offset(offset, 1, values.length, values[0]?.length ?? 1), values);
}

export function insertChart(table: Table, title: string): void {
  const address = insertValues(table);
  const sheet = activeCell().getSheet();
  const range = sheet.getRange(address);
  const chart = sheet.newChart().setChartType(Charts.ChartType.COLUMN).addRange(range).setOption('title', title).setPosition(range.getRow(), range.getLastColumn() + 2, 0, 0).build();
  sheet.insertChart(chart);
}

/**
 * Refresh: forget cached answers, then make Sheets recalculate every OrgIndex formula of the spreadsheet
 * (custom functions recalculate only when their formula changes: each one is cleared and written back).
 */
export function refresh(): number {
  documentCache().clear(Date.now());
  let count = 0;
  for (const sheet of SpreadsheetApp.getActiveSpreadsheet().getSheets()) {
    const range = sheet.getDataRange();
    const formulas = range.getFormulas();
    formulas.forEach((row, r) => {
      row.forEach((formula, c) => {
        if (!ORG_FORMULA.test(formula)) return;
        const cell = range.getCell(r + 1, c + 1);
        cell.clearContent();
        SpreadsheetApp.flush();
        cell.setFormula(formula);
        count++;
      });
    });
  }
  return count;
}

/** The selected cells' formulas replaced by their values (text kept as text). */
export function pinSelection(): number {
  const range = activeRange();
  if (!range) return 0;
  // Numbers and dates keep their formats.
  writeValues(range, range.getValues() as Written[][], range.getNumberFormats());
  return range.getNumRows() * range.getNumColumns();
}

/** The sidebar's sheet operations by name. */
export function perform(op: string, payload: Record<string, unknown>): unknown {
  switch (op) {
    case 'insertFormula':
      insertFormula(String(payload.formula));
      return null;
    case 'insertValues':
      return insertValues(payload.table as Table);
    case 'readSelectedColumn':
      return readSelectedColumn();
    case 'writeBeside':
      writeBeside(String(payload.address), Number(payload.offset), payload.table as Table);
      return null;
    case 'insertChart':
      insertChart(payload.table as Table, String(payload.title));
      return null;
    case 'refresh':
      return refresh();
    case 'pinSelection':
      return pinSelection();
    default:
      throw new Error(`Unknown sidebar operation "${op}"`);
  }
}
