/**
 * STAND-IN for Excel's workbook object model (Excel cannot run here): sheets of cells with values,
 * formulas and number formats, merged areas, defined names that move with inserted rows, and the Range /
 * Worksheet / NamedItem members the saved-query code calls. Null objects answer `isNullObject` as
 * Office.js does after a sync; `load` and `sync` do nothing (every property is live).
 */
export interface Cell {
  value: unknown;
  formula?: string;
  format: string;
}

/** Excel's rule for a value written through `values`: text in a "@" cell stays text; otherwise "=…" is a formula and numeric text a number. */
export function setLikeExcel(cell: Cell, value: unknown): void {
  if (typeof value === 'string' && cell.format !== '@' && value.startsWith('=')) cell.formula = value;
  else if (typeof value === 'string' && cell.format !== '@' && value !== '' && Number.isFinite(Number(value))) cell.value = Number(value);
  else {
    cell.value = value;
    delete cell.formula;
  }
}

const letters = (column: number): string => {
  let text = '';
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) text = String.fromCharCode(65 + ((n - 1) % 26)) + text;
  return text;
};
const quoted = (name: string): string => (/^[A-Za-z0-9_]+$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`);

export class WorkbookSheet {
  readonly cells = new Map<string, Cell>();
  readonly merged: { row: number; column: number; rows: number; columns: number }[] = [];
  visibility = 'Visible';
  isNullObject = false;
  constructor(
    public name: string,
    private readonly workbook: StandInWorkbook,
  ) {}
  cell(row: number, column: number): Cell {
    const key = `${String(row)},${String(column)}`;
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { value: '', format: 'General' };
      this.cells.set(key, cell);
    }
    return cell;
  }
  /** A1 address (0-based row and column inside). */
  getRange(address?: string): WorkbookRange {
    if (address === undefined) return new WorkbookRange(this, 0, 0, 1_048_576, 16_384);
    const [from = 'A1', to = from] = address.split(':');
    const parse = (a1: string): [number, number] => {
      const [, columnLetters = 'A', digits = '1'] = /^([A-Z]+)(\d+)$/.exec(a1) ?? [];
      let column = 0;
      for (let i = 0; i < columnLetters.length; i++) column = column * 26 + columnLetters.charCodeAt(i) - 64;
      return [Number(digits) - 1, column - 1];
    };
    const [r1, c1] = parse(from);
    const [r2, c2] = parse(to);
    return new WorkbookRange(this, r1, c1, r2 - r1 + 1, c2 - c1 + 1);
  }
  getUsedRangeOrNullObject(): WorkbookRange {
    let rows = 0;
    let columns = 0;
    for (const [key, cell] of this.cells) {
      if (cell.value === '' && !cell.formula) continue;
      const [r = 0, c = 0] = key.split(',').map(Number);
      rows = Math.max(rows, r + 1);
      columns = Math.max(columns, c + 1);
    }
    const range = new WorkbookRange(this, 0, 0, Math.max(rows, 1), Math.max(columns, 1));
    range.isNullObject = rows === 0;
    return range;
  }
  /** As Excel: rows inserted above `row` move the cells and the defined names below (names spanning it grow). */
  insertRowsAbove(row: number, count: number): void {
    const moved = new Map<string, Cell>();
    for (const [key, cell] of this.cells) {
      const [r = 0, c = 0] = key.split(',').map(Number);
      moved.set(`${String(r >= row ? r + count : r)},${String(c)}`, cell);
    }
    this.cells.clear();
    for (const [key, cell] of moved) this.cells.set(key, cell);
    for (const name of this.workbook.definedNames.values()) {
      if (name.sheet !== this) continue;
      if (name.row >= row) name.row += count;
      else if (name.row + name.rows > row) name.rows += count;
    }
  }
}

export class WorkbookRange {
  isNullObject = false;
  constructor(
    readonly sheet: WorkbookSheet,
    readonly row: number,
    readonly column: number,
    readonly rowCount: number,
    readonly columnCount: number,
  ) {}
  get address(): string {
    const from = `${letters(this.column)}${String(this.row + 1)}`;
    const to = `${letters(this.column + this.columnCount - 1)}${String(this.row + this.rowCount)}`;
    return `${quoted(this.sheet.name)}!${from === to ? from : `${from}:${to}`}`;
  }
  get worksheet(): WorkbookSheet {
    return this.sheet;
  }
  load(): void {}
  getCell(row: number, column: number): WorkbookRange {
    return new WorkbookRange(this.sheet, this.row + row, this.column + column, 1, 1);
  }
  getResizedRange(rows: number, columns: number): WorkbookRange {
    return new WorkbookRange(this.sheet, this.row, this.column, this.rowCount + rows, this.columnCount + columns);
  }
  private grid<T>(read: (cell: Cell) => T): T[][] {
    return Array.from({ length: this.rowCount }, (_, r) => Array.from({ length: this.columnCount }, (_, c) => read(this.sheet.cell(this.row + r, this.column + c))));
  }
  get values(): unknown[][] {
    return this.grid((cell) => cell.value);
  }
  set values(values: unknown[][]) {
    values.forEach((line, r) => {
      line.forEach((value, c) => {
        setLikeExcel(this.sheet.cell(this.row + r, this.column + c), value);
      });
    });
  }
  get formulas(): unknown[][] {
    return this.grid((cell) => cell.formula ?? cell.value);
  }
  set numberFormat(formats: unknown[][]) {
    formats.forEach((line, r) => {
      line.forEach((format, c) => {
        this.sheet.cell(this.row + r, this.column + c).format = String(format);
      });
    });
  }
  /** Contents only (formats stay), as `clear(Excel.ClearApplyTo.contents)`. */
  clear(): void {
    for (const [key, cell] of this.sheet.cells) {
      const [r = 0, c = 0] = key.split(',').map(Number);
      if (r < this.row || r >= this.row + this.rowCount || c < this.column || c >= this.column + this.columnCount) continue;
      cell.value = '';
      delete cell.formula;
    }
  }
  getMergedAreasOrNullObject(): { isNullObject: boolean; address: string; load(): void } {
    const hits = this.sheet.merged.filter((m) => m.row < this.row + this.rowCount && m.row + m.rows > this.row && m.column < this.column + this.columnCount && m.column + m.columns > this.column);
    return { isNullObject: hits.length === 0, address: hits.map((m) => new WorkbookRange(this.sheet, m.row, m.column, m.rows, m.columns).address).join(','), load: () => undefined };
  }
}

interface DefinedName {
  sheet: WorkbookSheet;
  row: number;
  column: number;
  rows: number;
  columns: number;
}

export class StandInWorkbook {
  readonly sheets: WorkbookSheet[] = [];
  readonly definedNames = new Map<string, DefinedName>();
  selection: WorkbookRange;
  constructor(names: string[]) {
    for (const name of names) this.sheets.push(new WorkbookSheet(name, this));
    this.selection = (this.sheets[0] as WorkbookSheet).getRange('A1');
  }
  sheet(name: string): WorkbookSheet {
    const sheet = this.sheets.find((candidate) => candidate.name === name);
    if (!sheet) throw new Error(`no sheet ${name}`);
    return sheet;
  }
  /** The `Excel` global for this workbook: Excel.run and the enums the code uses. */
  install(): void {
    const nullSheet = (): WorkbookSheet => Object.assign(new WorkbookSheet('', this), { isNullObject: true });
    const context = {
      workbook: {
        getSelectedRange: () => this.selection,
        worksheets: {
          getItemOrNullObject: (name: string) => this.sheets.find((sheet) => sheet.name === name) ?? nullSheet(),
          add: (name: string) => {
            const sheet = new WorkbookSheet(name, this);
            this.sheets.push(sheet);
            return sheet;
          },
        },
        names: {
          getItemOrNullObject: (name: string) => {
            const defined = this.definedNames.get(name);
            return {
              isNullObject: !defined,
              getRangeOrNullObject: () => {
                const range = defined ? new WorkbookRange(defined.sheet, defined.row, defined.column, defined.rows, defined.columns) : new WorkbookRange(nullSheet(), 0, 0, 1, 1);
                range.isNullObject = !defined;
                return range;
              },
              delete: () => this.definedNames.delete(name),
            };
          },
          getItem: (name: string) => {
            if (!this.definedNames.has(name)) throw new Error(`ItemNotFound: ${name}`);
            return { delete: () => this.definedNames.delete(name) };
          },
          add: (name: string, range: WorkbookRange) => {
            if (this.definedNames.has(name)) throw new Error(`The name ${name} already exists`);
            this.definedNames.set(name, { sheet: range.sheet, row: range.row, column: range.column, rows: range.rowCount, columns: range.columnCount });
          },
        },
      },
      sync: () => Promise.resolve(),
    };
    Object.assign(globalThis, {
      Excel: {
        run: (callback: (c: typeof context) => Promise<unknown>) => callback(context),
        SheetVisibility: { hidden: 'Hidden', visible: 'Visible' },
        ClearApplyTo: { contents: 'Contents' },
      },
    });
  }
}
