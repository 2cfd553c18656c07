/**
 * STAND-IN for SpreadsheetApp (and the bits of Charts / HtmlService the script uses): one or more grids of
 * cells with values, number formats and formulas, the Range members the script calls, a menu and sidebar
 * recorder. Sheets itself cannot run here; this records what the script would do to a spreadsheet, with
 * Sheets' rule that a string written through setValues is read as typed input unless the cell is plain text,
 * a sheet's size (1,000 rows × 26 columns until grown; a range beyond it throws), named ranges that
 * move and grow with inserted rows and follow a renamed sheet, and sheet-level developer metadata.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cellOf, columnLetters } from '../../src/sheet/a1.js';

interface Cell {
  value: unknown;
  format: string;
  formula: string;
  note?: string;
}

/** A named range: the area it covers, on its sheet (kept by the spreadsheet, moved by the sheet). */
export interface NamedArea {
  name: string;
  sheet: StandInSheet;
  row: number;
  col: number;
  rows: number;
  cols: number;
}

export class StandInSheet {
  readonly cells = new Map<string, Cell>();
  readonly charts: { type: string; range: string; title: string }[] = [];
  maxRows = 1_000;
  maxColumns = 26;
  /** The spreadsheet's named ranges (shared; set by the spreadsheet). */
  areas: NamedArea[] = [];
  /** Developer metadata on this sheet (a sheet-level location). */
  readonly metadata: { id: number; key: string; value: string; visibility: string }[] = [];
  private static nextMetadataId = 1;
  addDeveloperMetadata(key: string, value: string, visibility: string): this {
    this.metadata.push({ id: StandInSheet.nextMetadataId++, key, value, visibility });
    return this;
  }
  getDeveloperMetadata() {
    return this.metadata.map((entry) => ({
      getId: () => entry.id,
      getKey: () => entry.key,
      getValue: () => entry.value,
      getVisibility: () => entry.visibility,
      setValue: (value: string) => {
        entry.value = value;
      },
      remove: () => {
        this.metadata.splice(this.metadata.indexOf(entry), 1);
      },
    }));
  }
  constructor(public name: string) {}
  setName(name: string): this {
    this.name = name;
    return this;
  }
  getMaxRows(): number {
    return this.maxRows;
  }
  getMaxColumns(): number {
    return this.maxColumns;
  }
  insertRowsAfter(_after: number, count: number): void {
    this.maxRows += count;
  }
  insertColumnsAfter(_after: number, count: number): void {
    this.maxColumns += count;
  }
  /** Inserts rows above `before`: cells below move down, named ranges move (or grow, when the rows land inside them). */
  insertRowsBefore(before: number, count: number): void {
    const moved = new Map<string, Cell>();
    for (const [key, cell] of this.cells) {
      const [row = 0, col = 0] = key.split(',').map(Number);
      moved.set(`${row >= before ? row + count : row},${col}`, cell);
    }
    this.cells.clear();
    for (const [key, cell] of moved) this.cells.set(key, cell);
    this.maxRows += count;
    for (const area of this.areas.filter((a) => a.sheet === this)) {
      if (area.row >= before) area.row += count;
      else if (area.row + area.rows > before) area.rows += count;
    }
  }
  cell(row: number, col: number): Cell {
    const key = `${row},${col}`;
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { value: '', format: 'General', formula: '' };
      this.cells.set(key, cell);
    }
    return cell;
  }
  getName(): string {
    return this.name;
  }
  /** Set by the spreadsheet (activate / insertSheet). */
  onActivate: (sheet: StandInSheet) => void = () => undefined;
  activate(): this {
    this.onActivate(this);
    return this;
  }
  /** Deletes rows, moving the rows below up (as Sheets does; named ranges here are not on deleted rows). */
  deleteRows(start: number, count: number): void {
    this.maxRows -= count;
    const moved = new Map<string, Cell>();
    for (const [key, cell] of this.cells) {
      const [row = 0, col = 0] = key.split(',').map(Number);
      if (row >= start && row < start + count) continue;
      moved.set(`${row >= start + count ? row - count : row},${col}`, cell);
    }
    this.cells.clear();
    for (const [key, cell] of moved) this.cells.set(key, cell);
  }
  getLastRow(): number {
    let last = 0;
    for (const [key, cell] of this.cells) if (cell.value !== '' || cell.formula) last = Math.max(last, Number(key.split(',')[0]));
    return last;
  }
  getLastColumn(): number {
    let last = 0;
    for (const [key, cell] of this.cells) if (cell.value !== '' || cell.formula) last = Math.max(last, Number(key.split(',')[1]));
    return last;
  }
  getRange(rowOrA1: number | string, col = 1, rows = 1, cols = 1): StandInRange {
    if (typeof rowOrA1 === 'string') {
      const [from = 'A1', to = from] = rowOrA1.replace(/^.*!/, '').split(':');
      const parse = (a1: string): [number, number] => {
        const cell = cellOf(a1);
        return cell ? [cell.row, cell.column] : [0, 0];
      };
      const [r1, c1] = parse(from);
      const [r2, c2] = parse(to);
      return this.range(r1, c1, r2 - r1 + 1, c2 - c1 + 1);
    }
    return this.range(rowOrA1, col, rows, cols);
  }
  /** As Sheets: a range past the sheet's last row or column does not exist. */
  range(row: number, col: number, rows: number, cols: number): StandInRange {
    if (row < 1 || col < 1 || rows < 1 || cols < 1 || row + rows - 1 > this.maxRows || col + cols - 1 > this.maxColumns) throw new Error('Exception: The coordinates of the range are outside the dimensions of the sheet.');
    return new StandInRange(this, row, col, rows, cols);
  }
  getDataRange(): StandInRange {
    return new StandInRange(this, 1, 1, Math.max(1, this.getLastRow()), Math.max(1, this.getLastColumn()));
  }
  newChart() {
    const chart = { type: '', range: '', title: '' };
    const builder = {
      setChartType: (type: string) => ((chart.type = type), builder),
      addRange: (range: StandInRange) => ((chart.range = range.getA1Notation()), builder),
      setOption: (name: string, value: string) => ((chart.title = name === 'title' ? value : chart.title), builder),
      setPosition: () => builder,
      build: () => chart,
    };
    return builder;
  }
  insertChart(chart: { type: string; range: string; title: string }): void {
    this.charts.push(chart);
  }
}

export class StandInRange {
  constructor(
    readonly sheet: StandInSheet,
    readonly row: number,
    readonly col: number,
    readonly rows: number,
    readonly cols: number,
  ) {}
  private grid<T>(read: (cell: Cell) => T): T[][] {
    return Array.from({ length: this.rows }, (_, r) => Array.from({ length: this.cols }, (_, c) => read(this.sheet.cell(this.row + r, this.col + c))));
  }
  private each(values: unknown[][], write: (cell: Cell, value: unknown) => void): void {
    if (values.length !== this.rows || values.some((row) => row.length !== this.cols)) throw new Error(`Exception: The number of rows or columns in the data does not match the range (${this.getA1Notation()})`);
    values.forEach((row, r) => { row.forEach((value, c) => { write(this.sheet.cell(this.row + r, this.col + c), value); }); });
  }
  getSheet(): StandInSheet {
    return this.sheet;
  }
  getRow(): number {
    return this.row;
  }
  getColumn(): number {
    return this.col;
  }
  getNumRows(): number {
    return this.rows;
  }
  getNumColumns(): number {
    return this.cols;
  }
  getLastColumn(): number {
    return this.col + this.cols - 1;
  }
  getA1Notation(): string {
    const start = `${columnLetters(this.col)}${this.row}`;
    return this.rows === 1 && this.cols === 1 ? start : `${start}:${columnLetters(this.col + this.cols - 1)}${this.row + this.rows - 1}`;
  }
  setNote(note: string): this {
    this.sheet.cell(this.row, this.col).note = note;
    return this;
  }
  getNote(): string {
    return this.sheet.cell(this.row, this.col).note ?? '';
  }
  getCell(row: number, col: number): StandInRange {
    return this.sheet.range(this.row + row - 1, this.col + col - 1, 1, 1);
  }
  offset(rows: number, cols: number, height = this.rows, width = this.cols): StandInRange {
    return this.sheet.range(this.row + rows, this.col + cols, height, width);
  }
  setNumberFormat(format: string): this {
    this.grid((cell) => (cell.format = format));
    return this;
  }
  getValues(): unknown[][] {
    return this.grid((cell) => cell.value);
  }
  setValues(values: unknown[][]): this {
    this.each(values, (cell, value) => {
      // Sheets' rule: text in a plain-text cell stays text; otherwise "=…" is a formula and numeric text a number.
      if (typeof value === 'string' && cell.format !== '@' && value.startsWith('=')) cell.formula = value;
      else if (typeof value === 'string' && cell.format !== '@' && value !== '' && Number.isFinite(Number(value))) cell.value = Number(value);
      else {
        cell.value = value;
        cell.formula = '';
      }
    });
    return this;
  }
  getNumberFormats(): string[][] {
    return this.grid((cell) => cell.format);
  }
  setNumberFormats(formats: string[][]): this {
    this.each(formats, (cell, format) => (cell.format = String(format)));
    return this;
  }
  getFormulas(): string[][] {
    return this.grid((cell) => cell.formula);
  }
  setFormula(formula: string): this {
    const cell = this.sheet.cell(this.row, this.col);
    cell.formula = formula;
    cell.value = `(computed: ${formula})`;
    return this;
  }
  clearContent(): this {
    this.grid((cell) => Object.assign(cell, { value: '', formula: '' }));
    return this;
  }
}

export function spreadsheetStandIn() {
  const sheets = [new StandInSheet('Sheet1')];
  const first = sheets[0] as StandInSheet;
  const state = { active: first.getRange(1, 1), activeSheet: first, menus: [] as { name: string; items: [string, string][] }[], sidebars: [] as { file: string; title: string; content: string }[], toasts: [] as string[], formulaWrites: 0 };
  const activate = (sheet: StandInSheet) => {
    state.activeSheet = sheet;
  };
  const areas: NamedArea[] = [];
  first.onActivate = activate;
  first.areas = areas;
  const areaRange = (area: NamedArea) => area.sheet.range(area.row, area.col, area.rows, area.cols);
  const spreadsheet = {
    getSheets: () => sheets,
    getSheetByName: (name: string) => sheets.find((sheet) => sheet.name === name) ?? null,
    getActiveSheet: () => state.activeSheet,
    /** As Sheets does, the new sheet becomes the active one. */
    insertSheet: (name: string, index = sheets.length) => {
      if (sheets.some((sheet) => sheet.name === name)) throw new Error(`Exception: A sheet with the name "${name}" already exists.`);
      const sheet = new StandInSheet(name);
      sheet.onActivate = activate;
      sheet.areas = areas;
      sheets.splice(index, 0, sheet);
      state.activeSheet = sheet;
      return sheet;
    },
    getSpreadsheetTimeZone: () => 'Europe/Berlin',
    getRangeByName: (name: string) => {
      const area = areas.find((a) => a.name === name);
      return area ? areaRange(area) : null;
    },
    setNamedRange: (name: string, range: StandInRange) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`Exception: Invalid named range name: ${name}`);
      if (areas.some((a) => a.name === name)) throw new Error(`Exception: A named range "${name}" already exists`);
      areas.push({ name, sheet: range.sheet, row: range.row, col: range.col, rows: range.rows, cols: range.cols });
    },
    getNamedRanges: () =>
      areas.map((area) => ({
        getName: () => area.name,
        getRange: () => areaRange(area),
        setRange: (range: StandInRange) => Object.assign(area, { sheet: range.sheet, row: range.row, col: range.col, rows: range.rows, cols: range.cols }),
      })),
    removeNamedRange: (name: string) => {
      const index = areas.findIndex((a) => a.name === name);
      if (index < 0) throw new Error(`Exception: Named range ${name} does not exist`);
      areas.splice(index, 1);
    },
    namedAreas: areas,
    getName: () => 'Stand-in spreadsheet',
    getUrl: () => 'https://docs.google.com/spreadsheets/d/stand-in/edit',
    getRange: (a1: string) => {
      const name = a1.includes('!') ? a1.slice(0, a1.lastIndexOf('!')).replace(/^'(.*)'$/, '$1') : first.name;
      return (sheets.find((sheet) => sheet.name === name) ?? first).getRange(a1);
    },
    toast: (message: string) => state.toasts.push(message),
  };
  const SpreadsheetApp = {
    DeveloperMetadataVisibility: { DOCUMENT: 'DOCUMENT', PROJECT: 'PROJECT' },
    getActiveRange: () => state.active,
    getActiveSpreadsheet: () => spreadsheet,
    flush: () => undefined,
    getUi: () => ({
      createMenu: (name: string) => {
        const menu = { name, items: [] as [string, string][] };
        const builder = { addItem: (label: string, fn: string) => (menu.items.push([label, fn]), builder), addToUi: () => state.menus.push(menu) };
        return builder;
      },
      showSidebar: (output: { title: string; file: string; content: string }) => state.sidebars.push(output),
    }),
  };
  const HtmlService = {
    createHtmlOutputFromFile: (file: string) => ({
      file,
      title: '',
      content: readFileSync(join(process.cwd(), 'dist/appsscript', `${file}.html`), 'utf8'),
      setTitle(title: string) {
        return Object.assign(this, { title });
      },
      getContent() {
        return this.content;
      },
      setContent(content: string) {
        return Object.assign(this, { content });
      },
    }),
  };
  return { globals: { SpreadsheetApp, HtmlService, Charts: { ChartType: { COLUMN: 'COLUMN' } } }, sheet: first, state };
}
