/**
 * `orgindex refresh WORKBOOK.xlsx` end to end: a workbook made with SheetJS (two saved queries, an invalid
 * one, and unrelated content on three sheets), the real CLI in its own process against the real server
 * in its own process, and the workbook reopened with SheetJS: values refreshed, everything else the same
 * in content, last refreshed stamped, the invalid query reported while the others refresh. Then the hard
 * cases: rows inserted above a query, an answer that shrinks, unreadable rows, file mode and
 * symbolic links, parts the rewrite could not keep, a workbook open in Excel, merged cells.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import * as XLSX from 'xlsx';
import { readSavedQueryRows } from '../../src/sheet/saved-query.js';
import { startServerProcess, type ServedProcess } from '../support/server-process.js';

const BIN = join(__dirname, '../../bin/orgindex.js');
let server: ServedProcess;
let dir: string;
beforeAll(async () => {
  server = await startServerProcess();
  dir = mkdtempSync(join(tmpdir(), 'orgindex-refresh-'));
}, 60_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const SEARCH_BODY = { filters: { country: ['Deutschland'] }, columns: ['domain', 'name'], size: 5 };
const STATS_BODY = { group_by: 'organization_type', filters: { country: ['Deutschland'] } };

function savedQuery(id: string, sheet: string, cell: string, request: Record<string, unknown>, service: string | null) {
  return { id, sheet, cell, request, service, output: { headers: true, layout: 'crosstab' }, extent: null, last_refreshed: null, status: null };
}

function queryRow(query: ReturnType<typeof savedQuery>): string[] {
  return [query.id, `${query.sheet}!${query.cell}`, '', '', JSON.stringify(query)];
}

/** A workbook as an analyst would have it: content around and between the queries' targets. */
function makeWorkbook(file: string, queries: ReturnType<typeof savedQuery>[]): void {
  const workbook = XLSX.utils.book_new();
  const leads = XLSX.utils.aoa_to_sheet([['My leads', null, null, 'budget'], [null, null, null, 1200], [null, null, null, 800]]);
  leads.E4 = { t: 'n', f: 'SUM(D2:D3)', v: 2000 };
  leads['!ref'] = 'A1:E20';
  XLSX.utils.book_append_sheet(workbook, leads, 'Leads');
  const counts = XLSX.utils.aoa_to_sheet([[null, null, null, null, 'source: OrgIndex']]);
  XLSX.utils.book_append_sheet(workbook, counts, 'Counts');
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([['region', 'target'], ['North', 12], ['South', 7.5], ['=not a formula', true]]), 'Notes');
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([['id', 'where', 'last refreshed (UTC)', 'status', 'saved query'], ...queries.map(queryRow)]), '_orgindex');
  workbook.Workbook = { Sheets: [{ Hidden: 0 }, { Hidden: 0 }, { Hidden: 0 }, { Hidden: 1 }] };
  XLSX.writeFile(workbook, file);
}

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, 'refresh', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${server.url}/v2${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': server.key }, body: JSON.stringify(body) });
  return (await response.json()) as T;
}

/** Every cell of every sheet but the listed areas: value and formula. */
function cellsOutside(workbook: XLSX.WorkBook, skip: { sheet: string; range: string }[]): Record<string, unknown> {
  const cells: Record<string, unknown> = {};
  for (const name of workbook.SheetNames.filter((sheet) => sheet !== '_orgindex')) {
    const sheet = workbook.Sheets[name] as XLSX.WorkSheet;
    for (const address of Object.keys(sheet).filter((key) => !key.startsWith('!'))) {
      const { r, c } = XLSX.utils.decode_cell(address);
      const skipped = skip.some((area) => {
        const range = XLSX.utils.decode_range(area.range);
        return area.sheet === name && r >= range.s.r && r <= range.e.r && c >= range.s.c && c <= range.e.c;
      });
      const cell = sheet[address] as XLSX.CellObject;
      if (!skipped && (cell.v !== undefined || cell.f !== undefined)) cells[`${name}!${address}`] = { v: cell.v, f: cell.f };
    }
  }
  return cells;
}

test('refresh writes the saved queries\' values in place, keeps everything else, stamps them, and reports an invalid one (exit 1)', async () => {
  const file = join(dir, 'leads.xlsx');
  makeWorkbook(file, [
    savedQuery('search-1', 'Leads', 'B6', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 5 }, server.url),
    savedQuery('broken', 'Leads', 'H2', { interface: 'v2', route: 'search', body: { filters: { contry: ['Deutschland'] } } }, server.url),
    savedQuery('stats-1', 'Counts', 'A1', { interface: 'v2', route: 'stats', body: STATS_BODY }, server.url),
  ]);
  const before = XLSX.readFile(file, { cellFormula: true });

  const result = run([file, '--base-url', server.url], { ORGINDEX_API_KEY: server.key });
  expect(result.code).toBe(1);
  expect(result.stdout.split('\n').filter(Boolean)).toEqual([
    "ok      'Leads'!B6  (6 × 2)",
    expect.stringMatching(/^FAILED {2}'Leads'!H2 {2}#VALUE! filters.*contry/),
    expect.stringMatching(/^ok {6}'Counts'!A1 {2}\(\d+ × 2\)$/),
  ]);
  expect(result.stderr).toContain('2 of 3 saved queries refreshed');
  // Written beside the workbook, then renamed over it: nothing left behind.
  expect(readdirSync(dir).filter((name) => name.includes('leads'))).toEqual(['leads.xlsx']);

  const after = XLSX.readFile(file, { cellFormula: true });
  const search = await post<{ data: { domain: string; name: string }[] }>('/search', SEARCH_BODY);
  expect(XLSX.utils.sheet_to_json(after.Sheets.Leads as XLSX.WorkSheet, { header: 1, range: 'B6:C11', defval: '' })).toEqual([['domain', 'name'], ...search.data.map((row) => [row.domain, row.name])]);
  const stats = await post<{ data: { group: string; count: number }[] }>('/stats', STATS_BODY);
  const countRows = XLSX.utils.sheet_to_json<unknown[]>(after.Sheets.Counts as XLSX.WorkSheet, { header: 1, range: `A1:B${String(stats.data.length + 1)}`, defval: '' });
  expect(countRows[0]).toEqual(['organization_type', 'count']);
  expect(countRows.slice(1).reduce((sum, row) => sum + Number(row[1]), 0)).toBe(stats.data.reduce((sum, row) => sum + row.count, 0));

  // Everything else: same sheets in the same order, the store still hidden, every other cell's value and formula.
  expect(after.SheetNames).toEqual(before.SheetNames);
  expect(after.Workbook?.Sheets?.map((sheet) => sheet.Hidden)).toEqual([0, 0, 0, 1]);
  const targets = [{ sheet: 'Leads', range: 'B6:C11' }, { sheet: 'Counts', range: `A1:B${String(stats.data.length + 1)}` }];
  expect(cellsOutside(after, targets)).toEqual(cellsOutside(before, targets));

  // Stamped: extent, time and status in the hidden store (and readable in its first columns).
  const rows = XLSX.utils.sheet_to_json<unknown[]>(after.Sheets._orgindex as XLSX.WorkSheet, { header: 1, defval: '' });
  const stored = readSavedQueryRows(rows);
  expect(stored.map((entry) => [entry.id, entry.query?.status?.slice(0, 8), entry.query?.extent])).toEqual([
    ['search-1', 'ok', { rows: 6, columns: 2 }],
    ['broken', '#VALUE! ', null],
    ['stats-1', 'ok', { rows: stats.data.length + 1, columns: 2 }],
  ]);
  const stamped = Date.parse(stored[0]?.query?.last_refreshed ?? '');
  expect(Date.now() - stamped).toBeLessThan(5 * 60_000);
  expect(rows[1]?.slice(0, 4)).toEqual(['search-1', "'Leads'!B6", stored[0]?.query?.last_refreshed, 'ok']);

  // A second run refreshes in place (the answer may shrink: the old extent is cleared).
  const again = run([file, '--base-url', server.url], { ORGINDEX_API_KEY: server.key });
  expect(again.code).toBe(1);
  expect(cellsOutside(XLSX.readFile(file, { cellFormula: true }), [])).toEqual(cellsOutside(after, []));
}, 120_000);

test('a refused key is worded for the terminal: the environment variable and flag to set, not the pane\'s Connection tab', () => {
  const file = join(dir, 'wrong-key.xlsx');
  makeWorkbook(file, [
    savedQuery('search-1', 'Leads', 'B6', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 5 }, server.url),
    savedQuery('fetch-1', 'Leads', 'H2', { interface: 'v2', route: 'fetch', body: { domains: ['example.com'], columns: ['domain', 'name'] } }, server.url),
  ]);
  const result = run([file, '--base-url', server.url], { ORGINDEX_API_KEY: 'not-a-key-000000000000' });
  expect(result.code).toBe(1);
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines).toHaveLength(2);
  for (const line of lines) expect(line).toMatch(/^FAILED .*Not authorised \(check the API key: set ORGINDEX_API_KEY, or give --key-file FILE\)/);
  expect(`${result.stdout}${result.stderr}`).not.toContain('Connection');
}, 120_000);

test('a query never overwrites a cell it did not write, nor runs on another service; the embedded sample answers without --base-url', () => {
  const file = join(dir, 'guarded.xlsx');
  makeWorkbook(file, [
    // D1:D3 hold the budget: a 3-column answer from B1 would overwrite D1.
    savedQuery('in-the-way', 'Leads', 'B1', { interface: 'v2', route: 'search', body: { ...SEARCH_BODY, columns: ['domain', 'name', 'country'] }, rows: 5 }, null),
    savedQuery('other-service', 'Notes', 'D1', { interface: 'v2', route: 'stats', body: STATS_BODY }, 'https://orgindex.example'),
    savedQuery('sample', 'Counts', 'A1', { interface: 'v2', route: 'stats', body: { group_by: 'organization_type' } }, null),
    savedQuery('sheet-gone', 'Archive', 'A1', { interface: 'v2', route: 'stats', body: STATS_BODY }, null),
  ]);
  const result = run([file]);
  expect(result.stdout.split('\n').filter(Boolean)).toEqual([
    "FAILED  'Leads'!B1  The answer (6 × 3 cells from B1) would overwrite D1: clear or move that cell, or move the saved query",
    "FAILED  'Notes'!D1  This query was saved against https://orgindex.example (as stored with the query); this run uses the built-in sample. Refresh with --base-url https://orgindex.example only if you trust orgindex.example with your API key; otherwise remove the query and insert it again.",
    expect.stringMatching(/^ok {6}'Counts'!A1 {2}\(\d+ × 2\)$/),
    'FAILED  \'Archive\'!A1  The sheet "Archive" no longer exists (renamed or deleted): remove the saved query and insert it again',
  ]);
  const after = XLSX.readFile(file);
  expect((after.Sheets.Leads as XLSX.WorkSheet).D2?.v).toBe(1200);
  const counts = XLSX.utils.sheet_to_json<unknown[]>(after.Sheets.Counts as XLSX.WorkSheet, { header: 1, defval: '' });
  // The embedded default: 50,000 organizations counted.
  expect(counts.slice(1).reduce((sum, row) => sum + (typeof row[1] === 'number' ? row[1] : 0), 0)).toBe(50_000);
  expect(run([join(dir, 'missing.xlsx')]).code).toBe(2);
}, 120_000);

test('another service named by the workbook is shown with its host and a warning, never proposed as it is; a saved "/v2" is the same service', () => {
  const file = join(dir, 'services.xlsx');
  makeWorkbook(file, [
    savedQuery('stranger', 'Notes', 'D1', { interface: 'v2', route: 'stats', body: STATS_BODY }, 'https://keys.evil.example/v2'),
    savedQuery('with-v2', 'Counts', 'A1', { interface: 'v2', route: 'stats', body: STATS_BODY }, `${server.url}/v2`),
    savedQuery('with-slash', 'Leads', 'B6', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 5 }, `${server.url}/`),
  ]);
  const result = run([file, '--base-url', `${server.url}/v2/`], { ORGINDEX_API_KEY: server.key });
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines[0]).toBe(
    `FAILED  'Notes'!D1  This query was saved against https://keys.evil.example (as stored with the query); this run uses ${server.url}. Refresh with --base-url https://keys.evil.example only if you trust keys.evil.example with your API key; otherwise remove the query and insert it again.`,
  );
  expect(lines.slice(1)).toEqual([expect.stringMatching(/^ok {6}'Counts'!A1 {2}\(\d+ × 2\)$/), "ok      'Leads'!B6  (6 × 2)"]);
}, 120_000);

/** Edits a workbook as a user (or Excel) would between refreshes. */
async function edit(file: string, change: (workbook: ExcelJS.Workbook) => void): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  change(workbook);
  await workbook.xlsx.writeFile(file);
}

function storedQueries(file: string) {
  return readSavedQueryRows(XLSX.utils.sheet_to_json<unknown[]>(XLSX.readFile(file).Sheets._orgindex as XLSX.WorkSheet, { header: 1, defval: '' }));
}

test('a query follows its defined name (rows inserted above, as Excel moves it), shrinks cleanly, keeps an unreadable row; mode and symlink kept', async () => {
  const real = join(dir, 'followed.xlsx');
  makeWorkbook(real, [savedQuery('search-1', 'Leads', 'B6', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 5 }, server.url)]);
  await edit(real, (workbook) => {
    workbook.getWorksheet('_orgindex')?.addRow(['', '', '', '', '{"id": "hand-made", ']);
  });
  chmodSync(real, 0o600);
  const link = join(dir, 'followed-link.xlsx');
  symlinkSync(real, link);
  const env = { ORGINDEX_API_KEY: server.key };
  expect(run([link, '--base-url', server.url], env).code).toBe(1);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(statSync(real).mode & 0o777).toBe(0o600);
  // The unreadable row is written back as it was, for its author to mend.
  expect(XLSX.utils.sheet_to_json<unknown[]>(XLSX.readFile(real).Sheets._orgindex as XLSX.WorkSheet, { header: 1, defval: '' })[2]?.[4]).toBe('{"id": "hand-made", ');

  // Two rows inserted above the table, and a title typed there.
  await edit(real, (workbook) => {
    const leads = workbook.getWorksheet('Leads') as ExcelJS.Worksheet;
    leads.spliceRows(1, 0, [], []);
    leads.getCell('B6').value = 'MY HEADING';
    // exceljs moves the defined name as Excel does.
    expect(workbook.definedNames.getRanges('ORGINDEX_search_1').ranges).toEqual(['Leads!$B$8:$C$13']);
    // The query now asks for 3 rows: the answer shrinks.
    const store = workbook.getWorksheet('_orgindex') as ExcelJS.Worksheet;
    const query = JSON.parse(store.getCell('E2').text) as { request: { body: Record<string, unknown>; rows: number } };
    query.request = { ...query.request, body: { ...SEARCH_BODY, size: 3 }, rows: 3 };
    store.getCell('E2').value = JSON.stringify(query);
  });
  const result = run([real, '--base-url', server.url], env);
  expect(result.stdout).toContain("ok      'Leads'!B8  (4 × 2)");
  const leads = XLSX.readFile(real).Sheets.Leads as XLSX.WorkSheet;
  expect(leads.B6?.v).toBe('MY HEADING');
  const search = await post<{ data: { domain: string }[] }>('/search', { ...SEARCH_BODY, size: 3 });
  expect(XLSX.utils.sheet_to_json(leads, { header: 1, range: 'B8:B13', defval: '' })).toEqual([['domain'], ...search.data.map((row) => [row.domain]), [''], ['']]);
  expect(storedQueries(real)[0]?.query).toMatchObject({ sheet: 'Leads', cell: 'B8', extent: { rows: 4, columns: 2 } });
}, 120_000);

test('refused before anything runs: parts exceljs cannot keep (a chart), a workbook open in Excel; merged cells fail their query', async () => {
  const file = join(dir, 'charted.xlsx');
  makeWorkbook(file, [savedQuery('stats-1', 'Counts', 'A1', { interface: 'v2', route: 'stats', body: STATS_BODY }, null)]);
  const zip = await JSZip.loadAsync(readFileSync(file));
  zip.file('xl/charts/chart1.xml', '<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"/>');
  writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
  const bytes = readFileSync(file);
  const refused = run([file]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('holds charts (xl/charts/chart1.xml), which orgindex refresh could not keep');
  expect(readFileSync(file).equals(bytes)).toBe(true);

  const merged = join(dir, 'merged.xlsx');
  makeWorkbook(merged, [savedQuery('stats-1', 'Counts', 'A1', { interface: 'v2', route: 'stats', body: STATS_BODY }, null)]);
  writeFileSync(join(dir, '~$merged.xlsx'), 'lock');
  expect(run([merged]).stderr).toContain('is open in Excel');
  rmSync(join(dir, '~$merged.xlsx'));
  await edit(merged, (workbook) => {
    workbook.getWorksheet('Counts')?.mergeCells('A3:B3');
  });
  const result = run([merged]);
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(/FAILED {2}'Counts'!A1 {2}The answer \(\d+ × 2 cells from A1\) would write into the merged cells at A3/);
}, 120_000);
