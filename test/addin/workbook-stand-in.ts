/**
 * STAND-IN for Excel (Excel cannot run here): a workbook, and the Office.js proxy objects through which
 * the add-in's `Excel.run` code reaches it. Tests arrange and inspect the workbook directly
 * (StandInWorkbook, WorkbookSheet: plain data); the code under test sees only the `Excel` global that
 * `install()` defines, and through it only proxies.
 *
 * Modelled on Office.js's documented request model:
 * - Batches. Property writes and method calls on a proxy are queued; they reach the workbook, in order, at
 *   `context.sync()` or at the sync `Excel.run` makes once its callback resolves (a callback that throws
 *   loses what it had not synced). A callback that returns no promise fails with RunMustReturnPromise.
 * - Loading. Reading a property that no `load` + sync brought in throws RichApi.Error PropertyNotLoaded,
 *   as Office does. `load` takes 'values, address', ['values'], { select: … } or nothing (every property
 *   modelled). What a sync loads is the workbook as of that sync: later writes do not show until the next
 *   load. A property the code set reads back as set. `isNullObject` can be read once a sync has followed
 *   the proxy's creation. A collection's `items` come only from `load` ('items', 'items/name' or 'name').
 *   `toJSON()` gives what was loaded.
 * - Null objects (the *OrNullObject methods): their properties read as undefined, whatever is reached
 *   from them is a null object too, and their methods do nothing.
 * - Failures at sync, under Excel's codes: ItemNotFound (getItem of a missing sheet or name,
 *   getIntersection of disjoint ranges, getSpillingToRange off a spill's anchor), InvalidArgument (an
 *   array not of the range's shape, a bad address or size), ItemAlreadyExists (a sheet or name added
 *   twice). The commands queued before the failing one took effect; those after it are dropped.
 * - Lifetime. After its `Excel.run` ends a proxy keeps what it loaded, but any new command on it throws
 *   InvalidObjectPath; a proxy handed to another context's method throws InvalidRequestContext.
 * - The workbook: cells with a value, formula and number format; Excel's typed input through `values`
 *   and `formulas` (text in a "@" cell stays text, else "=…" is a formula and numeric text a number);
 *   used ranges (the bounding box of cells with values or formulas, and of formatted cells unless
 *   valuesOnly); merged areas; dynamic-array spills; tables and charts (recorded, not drawn); defined
 *   names; sheet and defined names found regardless of case; inserted rows moving cells, merged areas,
 *   spills and defined names; the selection; recalculations asked for.
 *
 * - Typed cell values (`Range.valuesAsJson`, ExcelApi 1.16): a write is checked against the documented
 *   JSON shape (cell-value-shape.ts) and refused with InvalidArgument, naming the reasons; an entity
 *   cell reads back through `values` and `formulas` as "#VALUE!" (its documented basic value) and
 *   through `valuesAsJson` as written, with Excel's basicValue / basicType. Plain cells read back as
 *   { type: String | Double | Boolean | Empty, basicValue }.
 * - Requirement sets: `excelApi` (default "1.16") is what the `Office` global's
 *   `context.requirements.isSetSupported('ExcelApi', …)` answers, and a member above it (valuesAsJson
 *   below 1.16) fails at sync with ApiNotFound.
 *
 * Not modelled: formulas are never calculated (a test sets the value a formula shows); formats other than
 * number formats; events; `trackedObjects`; `set()`; `load` paths other than a collection's items
 * ('format/font/name'); ClientResult methods (getCount …); requirement sets other than ExcelApi; range
 * addresses that are not A1 or A1:B2 (whole columns or rows). Members the add-in does not use are absent,
 * and loading a property this stand-in does not model throws, naming it.
 */
import { cellOf, columnLetters } from '../../src/sheet/a1.js';
import { atLeast, cellValueProblems } from './cell-value-shape.js';
import { installOfficeRequirements } from './excel-stand-in.js';

export interface Cell {
  value: unknown;
  formula?: string;
  format: string;
  /** A typed value written through valuesAsJson that is no plain value (an entity). */
  json?: Record<string, unknown>;
}

/** A rectangle of cells (0-based). */
export interface Rect {
  row: number;
  column: number;
  rows: number;
  columns: number;
}

/** A rectangle on one sheet: what a Range proxy stands for. */
export interface Area extends Rect {
  sheet: WorkbookSheet;
}

const ROWS = 1_048_576;
const COLUMNS = 16_384;
const BLANK: Readonly<Cell> = { value: '', format: 'General' };

/** What Office.js throws: a RichApi.Error with a code. */
class OfficeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RichApi.Error';
  }
}

const notLoaded = (property: string): OfficeError =>
  new OfficeError('PropertyNotLoaded', `The property '${property}' is not available. Before reading the property's value, call the load method on the containing object and call "context.sync()" on the associated request context.`);
const notFound = (): OfficeError => new OfficeError('ItemNotFound', "The requested resource doesn't exist.");
const invalid = (why: string): OfficeError => new OfficeError('InvalidArgument', `The argument is invalid or missing or has an incorrect format: ${why}.`);
const exists = (what: string): OfficeError => new OfficeError('ItemAlreadyExists', `The resource with the same name or identifier already exists: ${what}.`);

const apiNotFound = (member: string, version: string): OfficeError => new OfficeError('ApiNotFound', `The API you are trying to use could not be found: ${member} needs ExcelApi ${version}.`);

/** Excel's rule for typed input: text in a "@" cell stays text; otherwise "=…" is a formula and numeric text a number. */
function setLikeExcel(cell: Cell, value: unknown): void {
  delete cell.formula;
  delete cell.json;
  if (typeof value === 'string' && cell.format !== '@' && value.startsWith('=')) cell.formula = value;
  else if (typeof value === 'string' && cell.format !== '@' && value.trim() !== '' && Number.isFinite(Number(value))) cell.value = Number(value);
  else cell.value = value;
}

const cellKey = (row: number, column: number): string => `${String(row)},${String(column)}`;
const cellAt = (key: string): [number, number] => {
  const [row = 0, column = 0] = key.split(',').map(Number);
  return [row, column];
};
const contains = (rect: Rect, row: number, column: number): boolean => row >= rect.row && row < rect.row + rect.rows && column >= rect.column && column < rect.column + rect.columns;

function intersect(a: Rect, b: Rect): Rect | null {
  const row = Math.max(a.row, b.row);
  const column = Math.max(a.column, b.column);
  const rows = Math.min(a.row + a.rows, b.row + b.rows) - row;
  const columns = Math.min(a.column + a.columns, b.column + b.columns) - column;
  return rows > 0 && columns > 0 ? { row, column, rows, columns } : null;
}

/** A1 form of a rectangle: "B2", or "B2:C4". */
function a1(rect: Rect): string {
  const corner = (row: number, column: number): string => `${columnLetters(column + 1)}${String(row + 1)}`;
  const from = corner(rect.row, rect.column);
  const to = corner(rect.row + rect.rows - 1, rect.column + rect.columns - 1);
  return from === to ? from : `${from}:${to}`;
}

const quoted = (name: string): string => (/^[A-Za-z0-9_]+$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`);

/** "Sheet1!B2:C4", as Excel writes an address (the sheet quoted where its name needs it). */
const addressOf = (area: Area): string => `${quoted(area.sheet.name)}!${a1(area)}`;

/** Checks an area against the grid's bounds (Excel: InvalidArgument). */
function checked(area: Area): Area {
  if (area.rows < 1 || area.columns < 1 || area.row < 0 || area.column < 0 || area.row + area.rows > ROWS || area.column + area.columns > COLUMNS) throw invalid(`no range of ${String(area.rows)} × ${String(area.columns)} cells at row ${String(area.row + 1)}, column ${String(area.column + 1)}`);
  return area;
}

function parseA1(sheet: WorkbookSheet, address: string): Area {
  const corner = (text: string): [number, number] => {
    const cell = cellOf(text);
    if (!cell) throw invalid(`the address "${address}"`);
    return [cell.row - 1, cell.column - 1];
  };
  const [from = '', to = from] = address.split(':');
  const [r1, c1] = corner(from);
  const [r2, c2] = corner(to);
  return checked({ sheet, row: Math.min(r1, r2), column: Math.min(c1, c2), rows: Math.abs(r2 - r1) + 1, columns: Math.abs(c2 - c1) + 1 });
}

/** The area's cells as rows, read without creating any. */
function grid<T>(area: Area, read: (cell: Readonly<Cell>) => T): T[][] {
  return Array.from({ length: area.rows }, (_, r) => Array.from({ length: area.columns }, (_, c) => read(area.sheet.peek(area.row + r, area.column + c))));
}

/** A write of a 2-D array (its shape must be the area's) or of one value for every cell. */
function fill(area: Area, input: unknown, property: string, put: (cell: Cell, value: unknown) => void): void {
  const rows = Array.isArray(input) ? (input as unknown[]) : null;
  if (rows && (rows.length !== area.rows || rows.some((line) => !Array.isArray(line) || line.length !== area.columns)))
    throw invalid(`the ${property} array is not ${String(area.rows)} × ${String(area.columns)}, the size of ${addressOf(area)}`);
  for (let r = 0; r < area.rows; r++) {
    for (let c = 0; c < area.columns; c++) put(area.sheet.cell(area.row + r, area.column + c), rows ? (rows[r] as unknown[])[c] : input);
  }
}

/** Range.clear: 'Contents', 'Formats' or (the default) 'All'. */
function clearArea(area: Area, applyTo: string): void {
  for (const [key, cell] of area.sheet.cells) {
    const [row, column] = cellAt(key);
    if (!contains(area, row, column)) continue;
    if (applyTo !== 'Formats') {
      cell.value = '';
      delete cell.formula;
      delete cell.json;
    }
    if (applyTo !== 'Contents') cell.format = 'General';
  }
}

export interface TableRecord {
  name: string;
  address: string;
  hasHeaders: boolean;
}

export interface ChartRecord {
  name: string;
  type: string;
  source: string;
  seriesBy: string;
  title: string;
}

export class WorkbookSheet {
  readonly cells = new Map<string, Cell>();
  readonly merged: Rect[] = [];
  /** Dynamic-array spills: the anchor is the top-left cell. */
  readonly spills: Rect[] = [];
  readonly tables: TableRecord[] = [];
  readonly charts: ChartRecord[] = [];
  visibility = 'Visible';
  constructor(
    public name: string,
    readonly workbook: StandInWorkbook,
  ) {}
  /** A cell to arrange or inspect (created blank). */
  cell(row: number, column: number): Cell {
    const key = cellKey(row, column);
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { value: '', format: 'General' };
      this.cells.set(key, cell);
    }
    return cell;
  }
  /** A cell as it is, without creating it. */
  peek(row: number, column: number): Readonly<Cell> {
    return this.cells.get(cellKey(row, column)) ?? BLANK;
  }
  /** "B3" or "B3:C8"; the whole sheet without an address. */
  area(address?: string): Area {
    return address === undefined ? { sheet: this, row: 0, column: 0, rows: ROWS, columns: COLUMNS } : parseA1(this, address);
  }
  valuesAt(address: string): unknown[][] {
    return grid(this.area(address), (cell) => cell.value);
  }
  /** Excel's used range: the bounding box of cells with values or formulas (and formats, unless valuesOnly); null on a blank sheet. */
  usedArea(valuesOnly = false): Area | null {
    let top = ROWS;
    let left = COLUMNS;
    let bottom = -1;
    let right = -1;
    for (const [key, cell] of this.cells) {
      if (cell.value === '' && cell.formula === undefined && (valuesOnly || cell.format === 'General')) continue;
      const [row, column] = cellAt(key);
      top = Math.min(top, row);
      left = Math.min(left, column);
      bottom = Math.max(bottom, row);
      right = Math.max(right, column);
    }
    return bottom < 0 ? null : { sheet: this, row: top, column: left, rows: bottom - top + 1, columns: right - left + 1 };
  }
  usedValues(): unknown[][] {
    const used = this.usedArea(true);
    return used ? grid(used, (cell) => cell.value) : [];
  }
  /** As Excel: rows inserted above `row` move the cells, merged areas, spills and defined names below it (those spanning it grow). */
  insertRowsAbove(row: number, count: number): void {
    const moved = [...this.cells].map(([key, cell]) => {
      const [r, c] = cellAt(key);
      return [cellKey(r >= row ? r + count : r, c), cell] as const;
    });
    this.cells.clear();
    for (const [key, cell] of moved) this.cells.set(key, cell);
    const shift = (rect: Rect): void => {
      if (rect.row >= row) rect.row += count;
      else if (rect.row + rect.rows > row) rect.rows += count;
    };
    this.merged.forEach(shift);
    this.spills.forEach(shift);
    for (const name of this.workbook.definedNames.values()) if (name.sheet === this) shift(name);
  }
}

export class StandInWorkbook {
  readonly sheets: WorkbookSheet[] = [];
  /** Defined names as they were written. */
  readonly definedNames = new Map<string, Area>();
  selection: Area;
  /** The recalculations asked for (Excel.CalculationType values). */
  readonly calculations: string[] = [];
  /** The ExcelApi requirement set this Excel supports. */
  excelApi = '1.16';
  constructor(names: string[]) {
    for (const name of names) this.sheets.push(new WorkbookSheet(name, this));
    this.selection = this.sheet(names[0] ?? '').area('A1');
  }
  sheet(name: string): WorkbookSheet {
    const sheet = this.findSheet(name);
    if (!sheet) throw new Error(`no sheet ${name}`);
    return sheet;
  }
  findSheet(name: string): WorkbookSheet | undefined {
    return this.sheets.find((sheet) => sheet.name.toLowerCase() === name.toLowerCase());
  }
  /** The defined name as written, found regardless of case. */
  findName(name: string): string | undefined {
    return [...this.definedNames.keys()].find((key) => key.toLowerCase() === name.toLowerCase());
  }
  /** The `Excel` global for this workbook: Excel.run and the enums the add-in uses. */
  install(): void {
    Object.assign(globalThis, {
      Excel: {
        run: (batch: (context: RequestContext) => unknown) => this.run(batch),
        SheetVisibility: { visible: 'Visible', hidden: 'Hidden', veryHidden: 'VeryHidden' },
        ClearApplyTo: { all: 'All', formats: 'Formats', contents: 'Contents' },
        ChartType: { columnClustered: 'ColumnClustered', regionMap: 'RegionMap' },
        ChartSeriesBy: { auto: 'Auto', columns: 'Columns', rows: 'Rows' },
        CalculationType: { recalculate: 'Recalculate', full: 'Full', fullRebuild: 'FullRebuild' },
      },
    });
    installOfficeRequirements(() => this.excelApi);
  }
  /** Excel.run: a fresh context, the sync once the callback resolves, and proxies that expire with the run. */
  async run(batch: (context: RequestContext) => unknown): Promise<unknown> {
    const context = new RequestContext(this);
    try {
      const pending = batch(context);
      if (!(pending instanceof Promise)) throw new OfficeError('RunMustReturnPromise', 'The batch function passed to the ".run" method didn\'t return a promise.');
      const result: unknown = await pending;
      await context.sync();
      return result;
    } finally {
      context.end();
    }
  }
}

/** A queued command: it acts on the workbook during a sync and returns what to apply to the proxies once the whole batch succeeded. */
type Command = () => (() => void) | undefined;
type LoadOption = string | string[] | { select?: string | string[] };
/** Where a proxy's object comes from: resolved at sync (after the commands queued before it), or already known. */
type Source<T> = { resolve: () => T | null } | { target: T };

class RequestContext {
  readonly workbook: WorkbookProxy;
  private queue: Command[] = [];
  private ended = false;
  constructor(readonly book: StandInWorkbook) {
    this.workbook = new WorkbookProxy(this, 'workbook', { target: book });
  }
  enqueue(path: string, command: Command): void {
    if (this.ended)
      throw new OfficeError('InvalidObjectPath', `The object path '${path}' isn't working for what you're trying to do. If you're using the object across multiple "context.sync" calls and outside the sequential execution of a ".run" batch, please use the "context.trackedObjects.add()" and "context.trackedObjects.remove()" methods to manage the object's lifetime.`);
    this.queue.push(command);
  }
  async sync(): Promise<void> {
    const commands = this.queue;
    this.queue = [];
    // The batch travels to Excel and back: nothing of it happens before the caller yields.
    await Promise.resolve();
    const results = commands.map((command) => command());
    for (const apply of results) apply?.();
  }
  end(): void {
    this.ended = true;
  }
}

/** How a write of a scalar property acts on the workbook; null for a read-only one. */
type Writer<T> = ((target: T, value: unknown) => void) | null;

/** A proxy: what the add-in holds instead of a workbook object. */
abstract class ProxyObject<T> {
  /** The scalar properties `load` can bring in (set on each class's prototype by `scalars`). */
  declare protected readonly properties: readonly string[];
  /** The object the path led to during a sync (null for a null object); undefined before. */
  private host: T | null | undefined;
  /** Whether it is a null object, as the proxy knows it after a sync. */
  private nullKnown: boolean | undefined;
  protected readonly loaded = new Map<string, unknown>();

  constructor(
    readonly context: RequestContext,
    readonly path: string,
    source: Source<T>,
  ) {
    if ('target' in source) {
      this.host = source.target;
      this.nullKnown = false;
    } else {
      context.enqueue(path, () => {
        const target = source.resolve();
        this.host = target;
        return () => {
          this.nullKnown = target === null;
        };
      });
    }
  }

  /**
   * Declares a proxy class's scalar properties: each throws PropertyNotLoaded until a load brings it in;
   * a write (where `writers` gives one) is queued and reads back as written, as Office.js keeps it.
   */
  static scalars<T>(Proxy: abstract new (context: RequestContext, path: string, source: Source<T>) => ProxyObject<T>, writers: Record<string, Writer<T>>): void {
    Object.defineProperty(Proxy.prototype, 'properties', { value: Object.keys(writers) });
    for (const [name, write] of Object.entries(writers)) {
      Object.defineProperty(Proxy.prototype, name, {
        get(this: ProxyObject<T>) {
          return this.read(name);
        },
        set: write
          ? function (this: ProxyObject<T>, value: unknown) {
              this.command(name, (target) => {
                write(target, value);
              });
              this.loaded.set(name, value);
            }
          : undefined,
      });
    }
  }

  get isNullObject(): boolean {
    if (this.nullKnown === undefined) throw notLoaded('isNullObject');
    return this.nullKnown;
  }

  /** The object during a sync. */
  protected target(): T | null {
    if (this.host === undefined) throw new Error(`stand-in: ${this.path} was used before a sync resolved it`);
    return this.host;
  }

  private read(property: string): unknown {
    if (this.loaded.has(property)) return this.loaded.get(property);
    if (this.nullKnown === true) return undefined;
    throw notLoaded(property);
  }

  /** Queues work on the object (nothing, on a null object). */
  protected command(member: string, act: (target: T) => void): void {
    this.context.enqueue(`${this.path}.${member}`, () => {
      const target = this.target();
      if (target !== null) act(target);
      return undefined;
    });
  }

  /** A proxy for what `find` reaches from this object at sync; from a null object, a null object. */
  protected child<U, P>(Proxy: new (context: RequestContext, path: string, source: Source<U>) => P, member: string, find: (target: T) => U | null): P {
    return new Proxy(this.context, `${this.path}.${member}`, {
      resolve: () => {
        const target = this.target();
        return target === null ? null : find(target);
      },
    });
  }

  /** A proxy passed as an argument: Office refuses one from another request context. */
  protected argument<U>(proxy: ProxyObject<U>): () => U | null {
    if (proxy.context !== this.context) throw new OfficeError('InvalidRequestContext', 'Cannot use the object across different request contexts.');
    return () => proxy.target();
  }

  load(option?: LoadOption): this {
    const wanted = this.selection(option);
    this.context.enqueue(`${this.path}.load()`, () => {
      const target = this.target();
      if (target === null) return undefined;
      const values = this.snapshots(target, wanted);
      return () => {
        for (const [property, value] of values) this.loaded.set(property, value);
      };
    });
    return this;
  }

  /** Loads at once, from an object already resolved: a collection's items as the collection loads. */
  loadAtOnce(names: readonly string[]): void {
    const target = this.target();
    if (target === null) return;
    for (const [property, value] of this.snapshots(target, this.selection(names.length > 0 ? [...names] : undefined))) this.loaded.set(property, value);
  }

  toJSON(): Record<string, unknown> {
    return Object.fromEntries([...this.loaded].map(([property, value]) => [property, Array.isArray(value) ? value.map((item: unknown) => (item instanceof ProxyObject ? item.toJSON() : item)) : value]));
  }

  /** A collection reads 'name' as its items' name. */
  protected qualified(name: string): string {
    return name;
  }

  protected abstract snapshot(target: T, property: string, below: string[]): unknown;

  private snapshots(target: T, wanted: Map<string, string[]>): [string, unknown][] {
    return [...wanted].map(([property, below]) => [property, this.snapshot(target, property, below)]);
  }

  /** The properties a load option names, each with the paths asked beneath it ('items/name' → items: [name]). */
  private selection(option?: LoadOption): Map<string, string[]> {
    const select = typeof option === 'object' && !Array.isArray(option) ? option.select : option;
    const names = select === undefined ? [...this.properties] : typeof select === 'string' ? select.split(',') : select;
    const wanted = new Map<string, string[]>();
    for (const name of names.map((text) => text.trim())) {
      // Office loads isNullObject with every sync; asking for it changes nothing.
      if (name === '' || name === 'isNullObject') continue;
      const [property = '', ...below] = this.qualified(name).split('/');
      if (!this.properties.includes(property)) throw new Error(`stand-in: ${this.path} has no property '${property}' modelled`);
      const paths = wanted.get(property) ?? [];
      if (below.length > 0) paths.push(below.join('/'));
      wanted.set(property, paths);
    }
    return wanted;
  }
}
ProxyObject.scalars(ProxyObject, {});

/** A collection: `items` only from a load; getItem fails at sync where getItemOrNullObject gives a null object. */
abstract class CollectionProxy<T, I, P extends ProxyObject<I>> extends ProxyObject<T> {
  declare readonly items: P[];
  protected abstract readonly Item: new (context: RequestContext, path: string, source: Source<I>) => P;
  protected abstract members(target: T): I[];
  protected override qualified(name: string): string {
    return name === 'items' || name.startsWith('items/') ? name : `items/${name}`;
  }
  protected snapshot(target: T, _property: string, below: string[]): P[] {
    return this.members(target).map((member, i) => {
      const item = new this.Item(this.context, `${this.path}.items[${String(i)}]`, { target: member });
      item.loadAtOnce(below);
      return item;
    });
  }
  protected lookup(member: string, find: (target: T) => I | undefined, orNull: boolean): P {
    return this.child(this.Item, member, (target) => {
      const found = find(target);
      if (found === undefined && !orNull) throw notFound();
      return found ?? null;
    });
  }
}
ProxyObject.scalars(CollectionProxy, { items: null });

class RangeProxy extends ProxyObject<Area> {
  declare readonly address: string;
  declare readonly rowCount: number;
  declare readonly columnCount: number;
  declare readonly rowIndex: number;
  declare readonly columnIndex: number;
  declare values: unknown[][];
  declare formulas: unknown[][];
  declare numberFormat: unknown[][];
  declare valuesAsJson: unknown[][];
  private sheet: WorksheetProxy | undefined;
  get worksheet(): WorksheetProxy {
    this.sheet ??= this.child(WorksheetProxy, 'worksheet', (area) => area.sheet);
    return this.sheet;
  }
  getCell(row: number, column: number): RangeProxy {
    return this.child(RangeProxy, 'getCell()', (area) => checked({ sheet: area.sheet, row: area.row + row, column: area.column + column, rows: 1, columns: 1 }));
  }
  getColumn(column: number): RangeProxy {
    return this.child(RangeProxy, 'getColumn()', (area) => {
      if (column < 0 || column >= area.columns) throw invalid(`column ${String(column)} of ${addressOf(area)}`);
      return { ...area, column: area.column + column, columns: 1 };
    });
  }
  getResizedRange(rows: number, columns: number): RangeProxy {
    return this.child(RangeProxy, 'getResizedRange()', (area) => checked({ ...area, rows: area.rows + rows, columns: area.columns + columns }));
  }
  getIntersection(other: RangeProxy): RangeProxy {
    return this.intersection('getIntersection()', other, false);
  }
  getIntersectionOrNullObject(other: RangeProxy): RangeProxy {
    return this.intersection('getIntersectionOrNullObject()', other, true);
  }
  getSpillParentOrNullObject(): RangeProxy {
    return this.child(RangeProxy, 'getSpillParentOrNullObject()', (area) => {
      const cell = this.single(area);
      const spill = cell.sheet.spills.find((candidate) => contains(candidate, cell.row, cell.column));
      return spill ? { sheet: cell.sheet, row: spill.row, column: spill.column, rows: 1, columns: 1 } : null;
    });
  }
  getSpillingToRange(): RangeProxy {
    return this.child(RangeProxy, 'getSpillingToRange()', (area) => {
      const cell = this.single(area);
      const spill = cell.sheet.spills.find((candidate) => candidate.row === cell.row && candidate.column === cell.column);
      if (!spill) throw notFound();
      return { sheet: cell.sheet, ...spill };
    });
  }
  getMergedAreasOrNullObject(): RangeAreasProxy {
    return this.child(RangeAreasProxy, 'getMergedAreasOrNullObject()', (area) => {
      const hits = area.sheet.merged.filter((merged) => intersect(merged, area));
      return hits.length > 0 ? hits.map((merged) => ({ sheet: area.sheet, ...merged })) : null;
    });
  }
  clear(applyTo = 'All'): void {
    this.command('clear()', (area) => {
      clearArea(area, applyTo);
    });
  }
  protected snapshot(area: Area, property: string): unknown {
    switch (property) {
      case 'address':
        return addressOf(area);
      case 'values':
        return grid(area, (cell) => cell.value);
      case 'formulas':
        return grid(area, (cell) => cell.formula ?? cell.value);
      case 'valuesAsJson':
        requires(area, 'Range.valuesAsJson', '1.16');
        return grid(area, jsonOf);
      case 'numberFormat':
        return grid(area, (cell) => cell.format);
      case 'rowCount':
        return area.rows;
      case 'columnCount':
        return area.columns;
      case 'rowIndex':
        return area.row;
      default:
        return area.column;
    }
  }
  /** The spill methods fail on more than one cell, as Excel's do. */
  private single(area: Area): Area {
    if (area.rows !== 1 || area.columns !== 1) throw invalid(`${addressOf(area)} is not one cell`);
    return area;
  }
  private intersection(member: string, other: RangeProxy, orNull: boolean): RangeProxy {
    const second = this.argument(other);
    return this.child(RangeProxy, member, (area) => {
      const b = second();
      const hit = b && b.sheet === area.sheet ? intersect(area, b) : null;
      if (!hit && !orNull) throw notFound();
      return hit && { sheet: area.sheet, ...hit };
    });
  }
}
ProxyObject.scalars(RangeProxy, {
  address: null,
  rowCount: null,
  columnCount: null,
  rowIndex: null,
  columnIndex: null,
  values: (area, values) => {
    fill(area, values, 'values', setLikeExcel);
  },
  formulas: (area, formulas) => {
    fill(area, formulas, 'formulas', setLikeExcel);
  },
  numberFormat: (area, formats) => {
    fill(area, formats, 'numberFormat', (cell, format) => {
      cell.format = String(format);
    });
  },
  valuesAsJson: (area, values) => {
    requires(area, 'Range.valuesAsJson', '1.16');
    // The whole array is checked before any cell changes: Excel refuses the write as one.
    const cells = Array.isArray(values) ? (values as unknown[]).flat() : [values];
    const problems = cells.flatMap((value) => cellValueProblems(value, area.sheet.workbook.excelApi));
    if (problems.length > 0) throw invalid(`valuesAsJson: ${problems.join('; ')}`);
    fill(area, values, 'valuesAsJson', (cell, value) => {
      setTyped(cell, value as Record<string, unknown>);
    });
  },
});

/** A member above the workbook's ExcelApi fails, as an older Excel's does. */
function requires(area: Area, member: string, version: string): void {
  if (!atLeast(area.sheet.workbook.excelApi, version)) throw apiNotFound(member, version);
}

/** A typed value written: plain types become the cell's value (a string stays text), the rest is kept as JSON. */
function setTyped(cell: Cell, value: Record<string, unknown>): void {
  delete cell.formula;
  delete cell.json;
  if (value.type === 'String' || value.type === 'Double' || value.type === 'Boolean') cell.value = value.basicValue;
  else if (value.type === 'Empty') cell.value = '';
  else {
    cell.value = '#VALUE!';
    cell.json = { ...value, basicValue: '#VALUE!', basicType: 'Error' };
  }
}

/** A cell as valuesAsJson reads it. */
function jsonOf(cell: Readonly<Cell>): unknown {
  if (cell.json) return cell.json;
  const value = cell.value;
  if (value === '' || value === null || value === undefined) return { type: 'Empty', basicValue: '' };
  if (typeof value === 'number') return { type: 'Double', basicValue: value };
  if (typeof value === 'boolean') return { type: 'Boolean', basicValue: value };
  return { type: 'String', basicValue: typeof value === 'string' ? value : JSON.stringify(value) };
}

/** The areas of a RangeAreas (merged areas), as `address` gives them: "Sheet1!A1:B2, Sheet1!D4". */
class RangeAreasProxy extends ProxyObject<Area[]> {
  declare readonly address: string;
  declare readonly areaCount: number;
  protected snapshot(areas: Area[], property: string): unknown {
    return property === 'address' ? areas.map(addressOf).join(', ') : areas.length;
  }
}
ProxyObject.scalars(RangeAreasProxy, { address: null, areaCount: null });

class WorksheetProxy extends ProxyObject<WorkbookSheet> {
  declare readonly name: string;
  declare readonly position: number;
  declare visibility: string;
  private tableCollection: TableCollectionProxy | undefined;
  private chartCollection: ChartCollectionProxy | undefined;
  get tables(): TableCollectionProxy {
    this.tableCollection ??= this.child(TableCollectionProxy, 'tables', (sheet) => sheet);
    return this.tableCollection;
  }
  get charts(): ChartCollectionProxy {
    this.chartCollection ??= this.child(ChartCollectionProxy, 'charts', (sheet) => sheet);
    return this.chartCollection;
  }
  getRange(address?: string): RangeProxy {
    return this.child(RangeProxy, 'getRange()', (sheet) => sheet.area(address));
  }
  /** On a blank sheet Excel answers A1. */
  getUsedRange(valuesOnly = false): RangeProxy {
    return this.child(RangeProxy, 'getUsedRange()', (sheet) => sheet.usedArea(valuesOnly) ?? sheet.area('A1'));
  }
  getUsedRangeOrNullObject(valuesOnly = false): RangeProxy {
    return this.child(RangeProxy, 'getUsedRangeOrNullObject()', (sheet) => sheet.usedArea(valuesOnly));
  }
  protected snapshot(sheet: WorkbookSheet, property: string): unknown {
    if (property === 'name') return sheet.name;
    return property === 'visibility' ? sheet.visibility : sheet.workbook.sheets.indexOf(sheet);
  }
}
ProxyObject.scalars(WorksheetProxy, {
  name: null,
  position: null,
  visibility: (sheet, visibility) => {
    sheet.visibility = String(visibility);
  },
});

class WorksheetCollectionProxy extends CollectionProxy<StandInWorkbook, WorkbookSheet, WorksheetProxy> {
  protected readonly Item = WorksheetProxy;
  protected members(book: StandInWorkbook): WorkbookSheet[] {
    return book.sheets;
  }
  getItem(name: string): WorksheetProxy {
    return this.lookup('getItem()', (book) => book.findSheet(name), false);
  }
  getItemOrNullObject(name: string): WorksheetProxy {
    return this.lookup('getItemOrNullObject()', (book) => book.findSheet(name), true);
  }
  getActiveWorksheet(): WorksheetProxy {
    return this.child(WorksheetProxy, 'getActiveWorksheet()', (book) => book.selection.sheet);
  }
  add(name: string): WorksheetProxy {
    return this.child(WorksheetProxy, 'add()', (book) => {
      if (book.findSheet(name)) throw exists(`a sheet named ${name}`);
      const sheet = new WorkbookSheet(name, book);
      book.sheets.push(sheet);
      return sheet;
    });
  }
}

/** A defined name; the proxy's object is the name as written. */
class NamedItemProxy extends ProxyObject<string> {
  declare readonly name: string;
  declare readonly value: string;
  getRange(): RangeProxy {
    return this.child(RangeProxy, 'getRange()', (name) => {
      const area = this.context.book.definedNames.get(name);
      if (!area) throw notFound();
      return { ...area };
    });
  }
  getRangeOrNullObject(): RangeProxy {
    return this.child(RangeProxy, 'getRangeOrNullObject()', (name) => {
      const area = this.context.book.definedNames.get(name);
      return area ? { ...area } : null;
    });
  }
  delete(): void {
    this.command('delete()', (name) => {
      this.context.book.definedNames.delete(name);
    });
  }
  protected snapshot(name: string, property: string): unknown {
    const area = this.context.book.definedNames.get(name);
    return property === 'name' ? name : area && `=${addressOf(area)}`;
  }
}
ProxyObject.scalars(NamedItemProxy, { name: null, value: null });

class NamedItemCollectionProxy extends CollectionProxy<StandInWorkbook, string, NamedItemProxy> {
  protected readonly Item = NamedItemProxy;
  protected members(book: StandInWorkbook): string[] {
    return [...book.definedNames.keys()];
  }
  getItem(name: string): NamedItemProxy {
    return this.lookup('getItem()', (book) => book.findName(name), false);
  }
  getItemOrNullObject(name: string): NamedItemProxy {
    return this.lookup('getItemOrNullObject()', (book) => book.findName(name), true);
  }
  add(name: string, reference: RangeProxy): NamedItemProxy {
    const range = this.argument(reference);
    return this.child(NamedItemProxy, 'add()', (book) => {
      if (book.findName(name)) throw exists(`a name ${name}`);
      const area = range();
      if (!area) throw invalid(`the reference of ${name} is a null object`);
      book.definedNames.set(name, { ...area });
      return name;
    });
  }
}

/** Tables and charts: a name, and a record of what was added. */
class RecordProxy<T extends { name: string }> extends ProxyObject<T> {
  declare readonly name: string;
  protected snapshot(record: T): unknown {
    return record.name;
  }
}
ProxyObject.scalars<{ name: string }>(RecordProxy, { name: null });

class TableCollectionProxy extends CollectionProxy<WorkbookSheet, TableRecord, RecordProxy<TableRecord>> {
  protected readonly Item = RecordProxy<TableRecord>;
  protected members(sheet: WorkbookSheet): TableRecord[] {
    return sheet.tables;
  }
  add(source: RangeProxy, hasHeaders: boolean): RecordProxy<TableRecord> {
    const range = this.argument(source);
    return this.child(RecordProxy<TableRecord>, 'add()', (sheet) => {
      const area = range();
      if (!area) throw invalid('the table range is a null object');
      const table = { name: `Table${String(sheet.workbook.sheets.reduce((count, each) => count + each.tables.length, 1))}`, address: addressOf(area), hasHeaders };
      sheet.tables.push(table);
      return table;
    });
  }
}

class ChartTitleProxy extends ProxyObject<ChartRecord> {
  declare text: string;
  protected snapshot(chart: ChartRecord): unknown {
    return chart.title;
  }
}
ProxyObject.scalars(ChartTitleProxy, {
  text: (chart, text) => {
    chart.title = String(text);
  },
});

class ChartProxy extends RecordProxy<ChartRecord> {
  private chartTitle: ChartTitleProxy | undefined;
  get title(): ChartTitleProxy {
    this.chartTitle ??= this.child(ChartTitleProxy, 'title', (chart) => chart);
    return this.chartTitle;
  }
}

class ChartCollectionProxy extends CollectionProxy<WorkbookSheet, ChartRecord, ChartProxy> {
  protected readonly Item = ChartProxy;
  protected members(sheet: WorkbookSheet): ChartRecord[] {
    return sheet.charts;
  }
  add(type: string, source: RangeProxy, seriesBy = 'Auto'): ChartProxy {
    const range = this.argument(source);
    return this.child(ChartProxy, 'add()', (sheet) => {
      const area = range();
      if (!area) throw invalid('the chart source is a null object');
      const chart = { name: `Chart ${String(sheet.charts.length + 1)}`, type, source: addressOf(area), seriesBy, title: '' };
      sheet.charts.push(chart);
      return chart;
    });
  }
}

/** Objects with nothing to load: only methods and navigation. */
abstract class MethodsOnly<T> extends ProxyObject<T> {
  protected snapshot(): unknown {
    return undefined;
  }
}

class ApplicationProxy extends MethodsOnly<StandInWorkbook> {
  calculate(calculationType: string): void {
    this.command('calculate()', (book) => {
      book.calculations.push(calculationType);
    });
  }
}

class WorkbookProxy extends MethodsOnly<StandInWorkbook> {
  readonly worksheets = new WorksheetCollectionProxy(this.context, 'workbook.worksheets', { target: this.context.book });
  readonly names = new NamedItemCollectionProxy(this.context, 'workbook.names', { target: this.context.book });
  readonly application = new ApplicationProxy(this.context, 'workbook.application', { target: this.context.book });
  getSelectedRange(): RangeProxy {
    return this.child(RangeProxy, 'getSelectedRange()', (book) => ({ ...book.selection }));
  }
}
