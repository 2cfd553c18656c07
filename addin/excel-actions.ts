/**
 * What the add-in does to a workbook, with Excel.run: shared by the task pane's Host and the ribbon
 * commands. Error cells are written as readable text ("#N/A example.com is not in the index").
 */
import { rectangle, type Table } from '../src/sheet/cells.js';
import { isOrgCard, type CardTable, type OrgCard } from '../src/sheet/org-card.js';
import type { AddinRuntime } from './addin-runtime.js';
import { entitiesSupported, orgEntity } from './entity.js';
import { hasExcelApi } from './requirements.js';

/**
 * Writes values so that text stays text: Excel reads a string written through `values` like typed input
 * — "=HYPERLINK(…)" from a crawled name would become a live formula, NACE "38.10" the number 38.1,
 * "06635003" 6635003, "10.11" a date in some locales. Text cells get the text format "@" first.
 */
export function writeValues(range: Excel.Range, values: (string | number | boolean)[][], formats?: unknown[][]): void {
  range.numberFormat = values.map((row, r) => row.map((value, c) => (typeof value === 'string' ? '@' : ((formats?.[r]?.[c] as string | undefined) ?? 'General'))));
  range.values = values;
}

/** "'My sheet'!A2:A9" → the worksheet and the address within it. */
function rangeAt(context: Excel.RequestContext, address: string): Excel.Range {
  const at = address.lastIndexOf('!');
  if (at < 0) return context.workbook.worksheets.getActiveWorksheet().getRange(address);
  const sheet = address.slice(0, at).replace(/^'(.*)'$/, '$1').replace(/''/g, "'");
  return context.workbook.worksheets.getItem(sheet).getRange(address.slice(at + 1));
}

export async function insertFormula(formula: string): Promise<void> {
  await Excel.run(async (context) => {
    context.workbook.getSelectedRange().getCell(0, 0).formulas = [[formula]];
    await context.sync();
  });
}

/** The table at the selected cell; as an Excel table (header row first) when asked. */
export async function insertValues(table: Table, asTable: boolean): Promise<Excel.Range> {
  return Excel.run(async (context) => {
    const values = rectangle(table);
    const target = context.workbook.getSelectedRange().getCell(0, 0).getResizedRange(values.length - 1, (values[0]?.length ?? 1) - 1);
    writeValues(target, values);
    if (asTable && values.length > 1) target.worksheet.tables.add(target, true);
    target.load('address');
    await context.sync();
    return target;
  });
}

/** The first column of the selection, cut to the used range (a whole-column selection is a million cells). */
export async function readSelectedColumn(): Promise<{ address: string; values: unknown[] }> {
  return Excel.run(async (context) => {
    const selected = context.workbook.getSelectedRange();
    const used = selected.worksheet.getUsedRange(true);
    const column = selected.getColumn(0).getIntersectionOrNullObject(used);
    column.load(['values', 'address']);
    await context.sync();
    if (column.isNullObject) return { address: '', values: [] };
    return { address: column.address, values: column.values.map((row) => row[0] as unknown) };
  });
}

export async function writeBeside(address: string, offset: number, table: Table): Promise<void> {
  if (table.length === 0) return;
  await Excel.run(async (context) => {
    const values = rectangle(table);
    writeValues(rangeAt(context, address).getCell(offset, 1).getResizedRange(values.length - 1, (values[0]?.length ?? 1) - 1), values);
    await context.sync();
  });
}

/**
 * Cards written over their domains, one run of consecutive cards at a time through `valuesAsJson`
 * (ExcelApi 1.16). A cell holding a formula keeps it (a card would replace the formula), as do the
 * cells without a card. Returns how many cards were written.
 */
export async function writeCards(address: string, offset: number, cards: CardTable): Promise<number> {
  if (cards.length === 0) return 0;
  return Excel.run(async (context) => {
    const column = rangeAt(context, address);
    const cells = column.getCell(offset, 0).getResizedRange(cards.length - 1, 0);
    cells.load('formulas');
    await context.sync();
    const runs: { start: number; cards: OrgCard[] }[] = [];
    cards.forEach((row, i) => {
      const cell = row[0];
      const formula: unknown = cells.formulas[i]?.[0];
      if (!isOrgCard(cell) || (typeof formula === 'string' && formula.startsWith('='))) return;
      const last = runs[runs.length - 1];
      if (last && last.start + last.cards.length === i) last.cards.push(cell);
      else runs.push({ start: i, cards: [cell] });
    });
    for (const run of runs) {
      column.getCell(offset + run.start, 0).getResizedRange(run.cards.length - 1, 0).valuesAsJson = run.cards.map((card) => [orgEntity(card)]);
    }
    await context.sync();
    return runs.reduce((sum, run) => sum + run.cards.length, 0);
  });
}

export async function insertChart(table: Table, title: string): Promise<void> {
  await insertTableChart(table, title, Excel.ChartType.columnClustered);
}

/**
 * The count table and Excel's filled map of it (ExcelApi 1.9). Excel shades the regions it finds by
 * name through Bing, so it needs a connection, and it draws countries and states, not municipalities.
 */
export async function insertMapChart(table: Table, title: string): Promise<void> {
  if (!hasExcelApi('1.9', true)) {
    throw new Error('This Excel cannot draw map charts (they need Excel 2019, Microsoft 365 or Excel on the web): the map in this pane shows the counts instead');
  }
  await insertTableChart(table, title, Excel.ChartType.regionMap);
}

async function insertTableChart(table: Table, title: string, type: Excel.ChartType): Promise<void> {
  const range = await insertValues(table, false);
  await Excel.run(async (context) => {
    const target = rangeAt(context, range.address);
    const chart = target.worksheet.charts.add(type, target, Excel.ChartSeriesBy.columns);
    chart.title.text = title;
    await context.sync();
  });
}

/** Forgets cached answers, then recalculates so every OrgIndex formula asks again. */
export async function refresh(runtime: AddinRuntime): Promise<void> {
  await runtime.functions.clearCache();
  await Excel.run(async (context) => {
    context.workbook.application.calculate(Excel.CalculationType.full);
    await context.sync();
  });
}

const isEntity = (json: Excel.CellValue): json is Excel.EntityCellValue => (json as { type?: unknown }).type === 'Entity';

/**
 * The selected formulas replaced by their values. A selection inside a spill (anchor or not) pins the
 * whole spill — pinning part of it would leave the anchor on #SPILL!. Text is written as text (see
 * writeValues), organization cards stay cards (where Excel has data types), and a whole-column
 * selection is cut to the used range (a selection outside it is left alone).
 */
export async function pinSelection(): Promise<void> {
  const cards = entitiesSupported();
  await Excel.run(async (context) => {
    const selected = context.workbook.getSelectedRange();
    const parent = selected.getCell(0, 0).getSpillParentOrNullObject();
    const used = selected.worksheet.getUsedRange(true);
    await context.sync();
    const spill = parent.isNullObject ? null : parent.getSpillingToRange();
    // Excel fails getIntersection on disjoint ranges; a selection outside the used range has nothing to pin.
    const target = spill ?? selected.getIntersectionOrNullObject(used);
    target.load(cards ? ['values', 'numberFormat', 'valuesAsJson'] : ['values', 'numberFormat']);
    await context.sync();
    if (target.isNullObject) return;
    // Numbers and dates keep their formats.
    writeValues(target, target.values as (string | number | boolean)[][], target.numberFormat);
    // `values` reads a card as "#VALUE!": its cells get the card itself back (Excel sets the basic value).
    if (cards) {
      target.valuesAsJson.forEach((row, r) => {
        row.forEach((json, c) => {
          if (!isEntity(json)) return;
          const { basicValue: _value, basicType: _type, ...card } = json;
          target.getCell(r, c).valuesAsJson = [[card]];
        });
      });
    }
    await context.sync();
  });
}
