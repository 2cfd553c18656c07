/**
 * `orgindex refresh WORKBOOK.xlsx` end to end: a workbook made with SheetJS (two saved queries, an invalid
 * one, and unrelated content on three sheets), the real CLI in its own process against the real server
 * in its own process, and the workbook reopened with SheetJS: values refreshed, everything else the same
 * in content, last refreshed stamped, the invalid query reported while the others refresh.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { readSavedQueryRows } from '../../src/sheet/saved-query.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const BIN = join(__dirname, '../../bin/orgindex.js');
let server: ServerProcess;
let dir: string;
beforeAll(async () => {
  server = await startServerProcess();
  dir = mkdtempSync(join(tmpdir(), 'orgindex-refresh-'));
}, 60_000);
afterAll(() => {
  server.close();
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
  expect(readdirSync(dir)).toEqual(['leads.xlsx']);

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

test('a query never overwrites a cell it did not write, nor runs on another service; the embedded sample answers without --base-url', () => {
  const file = join(dir, 'guarded.xlsx');
  makeWorkbook(file, [
    // D1:D3 hold the budget: a 3-column answer from B1 would overwrite D1.
    savedQuery('in-the-way', 'Leads', 'B1', { interface: 'v2', route: 'search', body: { ...SEARCH_BODY, columns: ['domain', 'name', 'country'] }, rows: 5 }, null),
    savedQuery('other-service', 'Notes', 'D1', { interface: 'v2', route: 'stats', body: STATS_BODY }, 'https://orgindex.example'),
    savedQuery('sample', 'Counts', 'A1', { interface: 'v2', route: 'stats', body: { group_by: 'organization_type' } }, null),
  ]);
  const result = run([file]);
  expect(result.stdout.split('\n').filter(Boolean)).toEqual([
    "FAILED  'Leads'!B1  The answer (6 × 3 cells from B1) would overwrite D1: clear or move that cell, or move the saved query",
    "FAILED  'Notes'!D1  This query was saved against https://orgindex.example; this run uses the built-in sample. Give --base-url https://orgindex.example or remove the query and insert it again.",
    expect.stringMatching(/^ok {6}'Counts'!A1 {2}\(\d+ × 2\)$/),
  ]);
  const after = XLSX.readFile(file);
  expect((after.Sheets.Leads as XLSX.WorkSheet).D2?.v).toBe(1200);
  const counts = XLSX.utils.sheet_to_json<unknown[]>(after.Sheets.Counts as XLSX.WorkSheet, { header: 1, defval: '' });
  // The embedded default: 50,000 organizations counted.
  expect(counts.slice(1).reduce((sum, row) => sum + (typeof row[1] === 'number' ? row[1] : 0), 0)).toBe(50_000);
  expect(run([join(dir, 'missing.xlsx')]).code).toBe(2);
}, 120_000);
