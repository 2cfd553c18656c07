/**
 * `orgindex refresh` on small workbooks that describe enormous areas: a defined name, merged cells, a data
 * validation or a column definition over the whole grid, rows numbered past it, and saved queries anchored
 * at its edge or beyond, or on the hidden store itself. The real CLI runs in its own process with a small heap and a time limit, so a
 * refresh that expands such an area cell by cell fails here instead of stalling the test run. Every
 * query runs on the embedded sample: no server is needed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { readSavedQueryRows } from '../../src/sheet/saved-query.js';

const BIN = join(__dirname, '../../bin/orgindex.js');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'orgindex-refresh-bounds-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const STATS = { interface: 'v2', route: 'stats', body: { group_by: 'organization_type' } };

function savedQuery(id: string, sheet: string, cell: string, extra: Record<string, unknown> = {}) {
  return { id, sheet, cell, request: STATS, service: null, output: { headers: true, layout: 'crosstab' }, extent: null, last_refreshed: null, status: null, ...extra };
}

interface Patch {
  part: string;
  edit: (xml: string) => string;
}

/** A small workbook (exceljs), then its XML edited as another program could have written it. */
async function makeWorkbook(file: string, queries: ReturnType<typeof savedQuery>[], patches: Patch[] = []): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const leads = workbook.addWorksheet('Leads');
  leads.getCell('A1').value = 'My leads';
  leads.getCell('B2').value = 1200;
  leads.getCell('B3').value = { formula: 'B2*2', result: 2400 };
  workbook.addWorksheet('Counts');
  const store = workbook.addWorksheet('_orgindex', { state: 'hidden' });
  store.addRow(['id', 'where', 'last refreshed (UTC)', 'status', 'saved query']);
  for (const query of queries) store.addRow([query.id, `${query.sheet}!${query.cell}`, '', '', JSON.stringify(query)]);
  const zip = await JSZip.loadAsync(Buffer.from(await workbook.xlsx.writeBuffer()));
  for (const { part, edit } of patches) {
    const xml = await zip.file(part)?.async('string');
    if (xml === undefined) throw new Error(`no ${part}`);
    const edited = edit(xml);
    if (edited === xml) throw new Error(`the patch of ${part} changed nothing`);
    zip.file(part, edited);
  }
  const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
  writeFileSync(file, bytes);
  return bytes;
}

const LEADS = 'xl/worksheets/sheet1.xml';
const STORE = 'xl/worksheets/sheet3.xml';

/** Defined names as Excel writes them, between the sheets and the calculation properties. */
const withNames = (elements: string): Patch => ({ part: 'xl/workbook.xml', edit: (xml) => xml.replace('<calcPr', `<definedNames>${elements}</definedNames><calcPr`) });
const beforeMargins = (part: string, elements: string): Patch => ({ part, edit: (xml) => xml.replace('<pageMargins', `${elements}<pageMargins`) });
const atSheetDataEnd = (part: string, elements: string): Patch => ({ part, edit: (xml) => xml.replace('</sheetData>', `${elements}</sheetData>`) });

/** The CLI in its own process: a heap far below what cell-by-cell expansion of the grid takes, and a time limit. */
function run(file: string, timeout = 60_000) {
  const started = Date.now();
  const result = spawnSync(process.execPath, ['--max-old-space-size=512', BIN, 'refresh', file], { encoding: 'utf8', timeout });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
}

async function partOf(file: string, part: string): Promise<string> {
  return (await (await JSZip.loadAsync(readFileSync(file))).file(part)?.async('string')) ?? '';
}

const rowNumbers = (sheetXml: string): number[] => [...sheetXml.matchAll(/<row\b[^>]*?\br="(\d+)"/g)].map((match) => Number(match[1]));

async function storedQueries(file: string) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const rows: string[][] = [];
  workbook.getWorksheet('_orgindex')?.eachRow((row) => {
    rows.push((row.values as unknown[]).slice(1).map((value) => (typeof value === 'string' ? value : '')));
  });
  return readSavedQueryRows(rows);
}

test('a 7 KB workbook with defined names over the whole grid refreshes in seconds; those names are written back exactly as they were', async () => {
  const file = join(dir, 'names.xlsx');
  const names = [
    '<definedName name="Everything">Leads!$A$1:$XFD$1048576</definedName>',
    '<definedName name="Growing" comment="rows in use">OFFSET(Leads!$A$1,0,0,COUNTA(Leads!$A:$A),1)</definedName>',
    '<definedName name="WholeColumn">Leads!$B:$B</definedName>',
    // A name a query owns, grown (by hand, or by inserted columns) to the whole sheet.
    '<definedName name="ORGINDEX_grown">Counts!$A$1:$XFD$1048576</definedName>',
  ];
  await makeWorkbook(file, [savedQuery('counts', 'Counts', 'D2'), savedQuery('grown', 'Counts', 'A1', { extent: { rows: 3, columns: 2 }, last_refreshed: '2025-01-01T00:00:00.000Z', status: 'ok' })], [withNames(names.join(''))]);
  expect(statSync(file).size).toBeLessThan(10_000);

  const result = run(file);
  expect({ code: result.code, signal: result.signal }).toEqual({ code: 1, signal: null });
  expect(result.stderr).toMatch(/^1 of 2 saved queries refreshed in \S+names\.xlsx; 1 failed\n$/);
  expect(result.ms).toBeLessThan(30_000);
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines[0]).toMatch(/^ok {6}'Counts'!D2 {2}\(\d+ × 2\)$/);
  expect(lines[1]).toBe("FAILED  'Counts'!A1  Its defined name ORGINDEX_grown covers Counts!$A$1:$XFD$1048576 (17,179,869,184 cells), more than a saved query writes (at most 1,048,576 cells): delete that name (Formulas › Name Manager) to write the query at its cell again");

  const workbookXml = await partOf(file, 'xl/workbook.xml');
  for (const name of names) expect(workbookXml).toContain(name);
  expect(workbookXml).toMatch(/<definedName name="ORGINDEX_counts">'Counts'!\$D\$2:\$E\$\d+<\/definedName>/);
  expect(workbookXml.match(/<definedName\b/g)).toHaveLength(5);
  // The failed query changed nothing: A1 of Counts is still empty.
  expect(rowNumbers(await partOf(file, 'xl/worksheets/sheet2.xml'))[0]).toBe(2);
}, 90_000);

test('merged cells, data validations or column definitions over the grid, and rows past it, are refused before the workbook is read (exit 2, file unchanged)', async () => {
  const cases: [string, Patch, string][] = [
    ['merged', beforeMargins(LEADS, '<mergeCells count="1"><mergeCell ref="A5:XFD1048576"/></mergeCells>'), "names.xlsx has merged cells over 'Leads'!A5:XFD1048576 (17,179,803,648 cells), more than orgindex refresh reads (100,000 merged cells in a workbook): unmerge them in Excel, then refresh again"],
    ['validated', beforeMargins(LEADS, '<dataValidations count="1"><dataValidation type="whole" sqref="C1:C10 A1:XFD1048576"><formula1>1</formula1></dataValidation></dataValidations>'), "has a data validation over 'Leads'!A1:XFD1048576 (17,179,869,184 cells), more than orgindex refresh reads (2,097,152 validated cells in a workbook): limit the validation to the rows in use in Excel, then refresh again"],
    ['columns', { part: LEADS, edit: (xml) => xml.replace('<sheetData>', '<cols><col min="1" max="200000000" width="9"/></cols><sheetData>') }, "defines columns 1 to 200,000,000 on the sheet 'Leads' (xl/worksheets/sheet1.xml), past Excel's last column XFD (16,384)"],
    ['rows', atSheetDataEnd(LEADS, '<row r="999999999"><c r="A999999999"><v>1</v></c></row>'), "has a row numbered 999,999,999 on the sheet 'Leads' (xl/worksheets/sheet1.xml), past Excel's last row 1,048,576"],
  ];
  for (const [name, patch, message] of cases) {
    const file = join(dir, `${name}.xlsx`);
    const bytes = await makeWorkbook(file, [savedQuery('counts', 'Counts', 'A1')], [patch]);
    const result = run(file, 20_000);
    expect({ name, code: result.code, signal: result.signal, stdout: result.stdout }).toEqual({ name, code: 2, signal: null, stdout: '' });
    expect(result.stderr).toContain(message.replace('names.xlsx', `${name}.xlsx`));
    expect(readFileSync(file).equals(bytes)).toBe(true);
  }
}, 180_000);

test('a query whose anchor or answer would leave the grid fails before any cell is written; a row at 1,048,576 in the store is fine', async () => {
  const file = join(dir, 'edges.xlsx');
  await makeWorkbook(
    file,
    [savedQuery('far-down', 'Leads', 'A2000000'), savedQuery('far-right', 'Leads', 'XFD9999999'), savedQuery('last-column', 'Leads', 'XFD5'), savedQuery('last-rows', 'Leads', 'C1048575'), savedQuery('fits', 'Leads', 'XFC1048560')],
    // A formatted last row on the store (a height set on it) makes its row count the grid's.
    [atSheetDataEnd(STORE, '<row r="1048576" ht="20" customHeight="1"/>')],
  );
  const before = rowNumbers(await partOf(file, LEADS));
  const result = run(file);
  expect({ code: result.code, signal: result.signal }).toEqual({ code: 1, signal: null });
  expect(result.stderr).toMatch(/^1 of 5 saved queries refreshed in \S+edges\.xlsx; 4 failed\n$/);
  expect(result.ms).toBeLessThan(30_000);
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines.slice(0, 4)).toEqual([
    "FAILED  'Leads'!A2000000  The saved query's cell A2000000 is outside Excel's grid (A1:XFD1048576): remove the saved query and insert it again inside the sheet",
    "FAILED  'Leads'!XFD9999999  The saved query's cell XFD9999999 is outside Excel's grid (A1:XFD1048576): remove the saved query and insert it again inside the sheet",
    expect.stringMatching(/^FAILED {2}'Leads'!XFD5 {2}The answer \(\d+ × 2 cells from XFD5\) would end at XFE\d+, outside Excel's grid \(A1:XFD1048576\): move the saved query$/),
    expect.stringMatching(/^FAILED {2}'Leads'!C1048575 {2}The answer \(\d+ × 2 cells from C1048575\) would end at D10485\d\d, outside Excel's grid \(A1:XFD1048576\): move the saved query$/),
  ]);
  expect(lines[4]).toMatch(/^ok {6}'Leads'!XFC1048560 {2}\(\d+ × 2\)$/);

  // Nothing of the failed queries was written: the sheet has its rows as before, and those of the one that fit.
  const rows = rowNumbers(await partOf(file, LEADS));
  expect(rows.filter((row) => row < 1048560)).toEqual(before);
  expect(Math.max(...rows)).toBeLessThanOrEqual(1_048_576);
  expect((await storedQueries(file)).map((entry) => [entry.id, entry.query?.extent ?? null])).toEqual([
    ['far-down', null],
    ['far-right', null],
    ['last-column', null],
    ['last-rows', null],
    ['fits', { rows: expect.any(Number) as number, columns: 2 }],
  ]);
}, 90_000);

test('a query pointing into the hidden store (its saved sheet, or its defined name in any case) fails, naming it; nothing is written there; the others refresh', async () => {
  const file = join(dir, 'store.xlsx');
  await makeWorkbook(
    file,
    [savedQuery('in-store', '_orgindex', 'A10'), savedQuery('named-into-store', 'Counts', 'D2', { extent: { rows: 3, columns: 2 }, last_refreshed: '2025-01-01T00:00:00.000Z', status: 'ok' }), savedQuery('counts', 'Counts', 'A1')],
    [withNames('<definedName name="ORGINDEX_named_into_store">_ORGINDEX!$H$1:$I$3</definedName>')],
  );
  const result = run(file);
  expect({ code: result.code, signal: result.signal }).toEqual({ code: 1, signal: null });
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines.slice(0, 2)).toEqual([
    `FAILED  '_orgindex'!A10  The saved query "in-store" would write on the sheet "_orgindex", which keeps the saved queries themselves: nothing was written there; remove the saved query and insert it again on another sheet`,
    `FAILED  'Counts'!D2  The saved query "named-into-store" would write on the sheet "_orgindex", which keeps the saved queries themselves: nothing was written there; remove the saved query and insert it again on another sheet`,
  ]);
  expect(lines[2]).toMatch(/^ok {6}'Counts'!A1 {2}\(\d+ × 2\)$/);

  // The store holds its header and the three queries' rows, nothing else; the name is as it was.
  expect(rowNumbers(await partOf(file, STORE))).toEqual([1, 2, 3, 4]);
  expect((await storedQueries(file)).map((entry) => [entry.id, entry.query?.status?.slice(0, 35)])).toEqual([
    ['in-store', 'The saved query "in-store" would wr'],
    ['named-into-store', 'The saved query "named-into-store" '],
    ['counts', 'ok'],
  ]);
  expect(await partOf(file, 'xl/workbook.xml')).toContain('<definedName name="ORGINDEX_named_into_store">_ORGINDEX!$H$1:$I$3</definedName>');
}, 90_000);
