/**
 * `orgindex query add | list | remove` on real .xlsx files, read back with exceljs: the real CLI in its
 * own process for the round trip (add → list → refresh → values) and the committed sample workbook (on a
 * temporary copy), the command functions in-process (runCli) for the refusals, each of which must leave
 * the workbook's bytes as they were. Every query runs on the embedded sample: no server is needed.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { runCli } from '../../src/cli/main.js';
import { readSavedQueryRows } from '../../src/sheet/saved-query.js';
import { capture } from './io.js';

const BIN = join(__dirname, '../../bin/orgindex.js');
const SAMPLE = join(__dirname, '../../examples/sample-workbook.xlsx');
const MAKE_SAMPLE = join(__dirname, '../../scripts/examples/make-sample-workbook.mjs');
const dir = mkdtempSync(join(tmpdir(), 'orgindex-query-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, ...(input !== undefined ? { input } : {}) });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The CLI in-process, with its output captured. */
async function cli(args: string[]) {
  const io = capture();
  const code = await runCli(args, io);
  return { code, stdout: io.out, stderr: io.err };
}

async function open(file: string): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  return workbook;
}

/** A sheet's values as rows (row 1 first), empty cells as null. */
function valuesOf(sheet: ExcelJS.Worksheet | undefined): unknown[][] {
  const rows: (unknown[] | undefined)[] = [];
  sheet?.eachRow((row, r) => {
    rows[r - 1] = Array.from(row.values as unknown[], (value) => value ?? null).slice(1);
  });
  return Array.from(rows, (row) => row ?? []);
}

const storeOf = (workbook: ExcelJS.Workbook) => readSavedQueryRows(valuesOf(workbook.getWorksheet('_orgindex')));

const BAKERIES = { filters: { state: ['Bayern'], nace_code: ['10.71'] }, columns: ['domain', 'name', 'municipality'], size: 5 };

test('add → list → refresh: the queries are saved as the add-in saves them, listed, and refreshed into their cells', async () => {
  const file = join(dir, 'leads.xlsx');
  const bodyFile = join(dir, 'stats.json');
  writeFileSync(bodyFile, JSON.stringify({ group_by: 'country', group_by_secondary: 'organization_type' }));

  const search = run(['query', 'add', file, '--sheet', 'Leads', '--cell', 'b2', '--search', JSON.stringify(BAKERIES)]);
  expect(search).toMatchObject({ code: 0, stdout: 'search-1\n' });
  expect(search.stderr).toContain("saved search-1: 'Leads'!B2, search · 5 rows, on the built-in sample");
  expect(run(['query', 'add', file, '--sheet', 'Counts', '--cell', 'A1', '--stats', `@${bodyFile}`, '--layout', 'long', '--id', 'by-country'])).toMatchObject({ code: 0, stdout: 'by-country\n' });
  expect(run(['query', 'add', file, '--sheet', 'Leads', '--cell', 'F2', '--fetch', '@-', '--no-headers'], JSON.stringify({ domains: ['baeckerei-winkler.de'], columns: ['domain', 'country'] }))).toMatchObject({ code: 0, stdout: 'fetch-1\n' });
  // Created beside nothing: no temporary file left.
  expect(readdirSync(dir).filter((name) => name.includes('leads'))).toEqual(['leads.xlsx']);

  const saved = await open(file);
  expect(saved.worksheets.map((sheet) => [sheet.name, sheet.state])).toEqual([
    ['Leads', 'visible'],
    ['_orgindex', 'hidden'],
    ['Counts', 'visible'],
  ]);
  expect(saved.definedNames.getRanges('ORGINDEX_search_1').ranges).toEqual(['Leads!$B$2']);
  expect(saved.definedNames.getRanges('ORGINDEX_by_country').ranges).toEqual(['Counts!$A$1']);
  expect(storeOf(saved).map(({ query }) => query && { id: query.id, sheet: query.sheet, cell: query.cell, request: query.request, output: query.output, service: query.service, status: query.status })).toEqual([
    { id: 'search-1', sheet: 'Leads', cell: 'B2', request: { interface: 'v2', route: 'search', body: BAKERIES }, output: { headers: true, layout: 'crosstab' }, service: null, status: null },
    { id: 'by-country', sheet: 'Counts', cell: 'A1', request: { interface: 'v2', route: 'stats', body: { group_by: 'country', group_by_secondary: 'organization_type' } }, output: { headers: true, layout: 'long' }, service: null, status: null },
    { id: 'fetch-1', sheet: 'Leads', cell: 'F2', request: { interface: 'v2', route: 'fetch', body: { domains: ['baeckerei-winkler.de'], columns: ['domain', 'country'] } }, output: { headers: false, layout: 'crosstab' }, service: null, status: null },
  ]);

  const listed = run(['query', 'list', file]);
  expect(listed.code).toBe(0);
  expect(listed.stdout.split('\n').filter(Boolean).map((line) => line.split(/ {2,}/))).toEqual([
    ['ID', 'WHERE', 'QUERY', 'SERVICE', 'LAST REFRESHED (UTC)', 'STATUS'],
    ['search-1', "'Leads'!B2", 'search · 5 rows', 'the built-in sample', 'never', '-'],
    ['by-country', "'Counts'!A1", 'stats by country × organization_type', 'the built-in sample', 'never', '-'],
    ['fetch-1', "'Leads'!F2", 'fetch · 1 domains', 'the built-in sample', 'never', '-'],
  ]);

  const refreshed = run(['refresh', file]);
  expect(refreshed.stdout.split('\n').filter(Boolean)).toEqual(["ok      'Leads'!B2  (6 × 3)", expect.stringMatching(/^ok {6}'Counts'!A1 {2}\(\d+ × 3\)$/), "ok      'Leads'!F2  (1 × 2)"]);
  expect(refreshed.code).toBe(0);

  const after = await open(file);
  const leads = valuesOf(after.getWorksheet('Leads'));
  expect(leads[1]?.slice(1, 4)).toEqual(['domain', 'name', 'municipality']);
  for (const row of leads.slice(2, 7)) expect(row[1]).toMatch(/^[a-z0-9-]+\.[a-z]+$/);
  expect(leads[1]?.slice(5, 7)).toEqual(['baeckerei-winkler.de', 'Deutschland']);
  const counts = valuesOf(after.getWorksheet('Counts'));
  expect(counts[0]).toEqual(['country', 'organization_type', 'count']);
  expect(counts.slice(1).reduce((sum, row) => sum + Number(row[2]), 0)).toBe(50_000);

  const json = JSON.parse(run(['query', 'list', file, '--json']).stdout) as { id: string; status: string; last_refreshed: string }[];
  expect(json.map((query) => [query.id, query.status])).toEqual([
    ['search-1', 'ok'],
    ['by-country', 'ok'],
    ['fetch-1', 'ok'],
  ]);
  expect(Date.now() - Date.parse(json[0]?.last_refreshed ?? '')).toBeLessThan(5 * 60_000);
}, 120_000);

test('refused with exit 2 and nothing written: invalid JSON or body, wrong options, a taken id or cell, a workbook the rewrite would damage', async () => {
  const file = join(dir, 'refusals.xlsx');
  expect((await cli(['query', 'add', file, '--sheet', 'Leads', '--cell', 'A1', '--stats', '{"group_by": "country"}'])).code).toBe(0);
  const bytes = readFileSync(file);
  const mtime = statSync(file).mtimeMs;
  const add = (...args: string[]) => cli(['query', 'add', file, ...args]);

  const cases: [string[], string | RegExp][] = [
    [['--sheet', 'Leads', '--cell', 'C1', '--search', '{filters: {}}'], /^orgindex query add: --search: the body is not JSON \(.*\); quote it for the shell/],
    [['--sheet', 'Leads', '--cell', 'C1', '--search', '{"filters": {"contry": ["Deutschland"]}}'], 'the --search body is not a valid v2 search request (POST /v2/search): filters.contry:'],
    [['--sheet', 'Leads', '--cell', 'C1', '--search', '{"size": 5}'], 'At least one of filters, keywords, describe, similar_to must be supplied'],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "colour"}'], 'the --stats body is not a valid v2 stats request (POST /v2/stats): group_by: Input should be'],
    [['--sheet', 'Leads', '--cell', 'C1', '--fetch', '@missing.json'], '--fetch @missing.json: cannot read missing.json'],
    [['--sheet', 'Leads', '--cell', 'C1'], 'give one of --search, --stats or --fetch'],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}', '--fetch', '{"domains": []}'], 'give one of --search, --stats or --fetch'],
    [['--cell', 'C1', '--stats', '{"group_by": "country"}'], 'give --sheet and --cell'],
    [['--sheet', 'Leads', '--cell', 'C0', '--stats', '{"group_by": "country"}'], '--cell takes the top-left cell of the table'],
    [['--sheet', 'Leads', '--cell', 'XFE1', '--stats', '{"group_by": "country"}'], '--cell takes the top-left cell of the table'],
    [['--sheet', '_orgindex', '--cell', 'C1', '--stats', '{"group_by": "country"}'], 'is the sheet that keeps the saved queries themselves'],
    [['--sheet', 'a/b', '--cell', 'C1', '--stats', '{"group_by": "country"}'], 'holds a character Excel does not allow'],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}', '--rows', '10'], '--rows goes with --search only'],
    [['--sheet', 'Leads', '--cell', 'C1', '--search', '{"filters": {}}', '--rows', 'ten'], '--rows takes a whole number'],
    [['--sheet', 'Leads', '--cell', 'C1', '--search', '{"filters": {}}', '--rows', '10001'], 'the query cannot be saved: request.rows'],
    [['--sheet', 'Leads', '--cell', 'C1', '--search', '{"filters": {}}', '--layout', 'long'], '--layout goes with --stats only'],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}', '--layout', 'wide'], '--layout is "crosstab" or "long"'],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}', '--base-url', 'ftp://orgindex.example'], '--base-url takes the service\'s http(s) address'],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}', '--id', 'a b'], '--id takes 1 to 64 letters'],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}', '--id', 'stats-1'], `${file} already has a saved query stats-1: choose another --id, or remove it first (orgindex query remove ${file} stats-1)`],
    [['--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}', '--id', 'STATS_1'], 'already has a saved query stats-1 (its defined name is ORGINDEX_STATS_1 too)'],
    [['--sheet', 'leads', '--cell', '$A$1', '--stats', '{"group_by": "country"}'], "the saved query stats-1 already writes at 'Leads'!A1: choose another --cell"],
  ];
  for (const [args, message] of cases) {
    const result = await add(...args);
    expect([args, result.code]).toEqual([args, 2]);
    if (typeof message === 'string') expect(result.stderr).toContain(message);
    else expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  }
  expect(readFileSync(file).equals(bytes)).toBe(true);
  expect(statSync(file).mtimeMs).toBe(mtime);

  // An invalid body never creates the workbook it names.
  const missing = join(dir, 'never.xlsx');
  expect((await cli(['query', 'add', missing, '--sheet', 'Leads', '--cell', 'A1', '--search', '{"filters": {"contry": []}}'])).code).toBe(2);
  expect(existsSync(missing)).toBe(false);

  // The workbook guards of orgindex refresh: a part the rewrite would drop, a workbook open in Excel.
  const charted = join(dir, 'charted.xlsx');
  const zip = await JSZip.loadAsync(bytes);
  zip.file('xl/charts/chart1.xml', '<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"/>');
  writeFileSync(charted, await zip.generateAsync({ type: 'nodebuffer' }));
  const chartBytes = readFileSync(charted);
  const refused = await cli(['query', 'add', charted, '--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('holds charts (xl/charts/chart1.xml), which orgindex query could not keep');
  expect(readFileSync(charted).equals(chartBytes)).toBe(true);
  writeFileSync(join(dir, '~$refusals.xlsx'), 'lock');
  const locked = await add('--sheet', 'Leads', '--cell', 'C1', '--stats', '{"group_by": "country"}');
  rmSync(join(dir, '~$refusals.xlsx'));
  expect(locked.code).toBe(2);
  expect(locked.stderr).toContain('is open in Excel');
  expect(readFileSync(file).equals(bytes)).toBe(true);
});

test('add keeps what a workbook already holds; remove drops the query and its name, keeps its values and the other queries', async () => {
  const file = join(dir, 'existing.xlsx');
  const made = new ExcelJS.Workbook();
  const notes = made.addWorksheet('Notes');
  notes.getCell('A1').value = 'budget';
  notes.getCell('B1').value = 1200;
  notes.getCell('B2').value = { formula: 'B1*2', result: 2400 };
  made.definedNames.add('Notes!$B$1', 'Budget');
  await made.xlsx.writeFile(file);

  expect((await cli(['query', 'add', file, '--sheet', 'Notes', '--cell', 'D1', '--stats', '{"group_by": "organization_type"}'])).code).toBe(0);
  expect((await cli(['query', 'add', file, '--sheet', 'Notes', '--cell', 'G1', '--search', JSON.stringify(BAKERIES), '--rows', '3', '--id', 'few'])).code).toBe(0);
  expect((await cli(['refresh', file])).code).toBe(0);
  const refreshed = await open(file);
  const sheet = refreshed.getWorksheet('Notes');
  expect([sheet?.getCell('A1').value, sheet?.getCell('B1').value, sheet?.getCell('B2').formula]).toEqual(['budget', 1200, 'B1*2']);
  expect(refreshed.definedNames.getRanges('Budget').ranges).toEqual(['Notes!$B$1']);
  expect(sheet?.getCell('D1').value).toBe('organization_type');
  expect(sheet?.getCell('G4').value).toEqual(expect.stringMatching(/\./));

  const unknown = await cli(['query', 'remove', file, 'nope']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain(`${file} has no saved query "nope" (orgindex query list ${file} shows their ids)`);

  const removed = await cli(['query', 'remove', file, 'stats-1']);
  expect(removed.code).toBe(0);
  expect(removed.stderr).toContain("removed stats-1 ('Notes'!D1); the values it wrote stay as plain values");
  const after = await open(file);
  expect(storeOf(after).map((stored) => stored.id)).toEqual(['few']);
  expect(valuesOf(after.getWorksheet('_orgindex'))).toHaveLength(2);
  expect(after.definedNames.getRanges('ORGINDEX_stats_1').ranges).toEqual([]);
  expect(after.definedNames.getRanges('ORGINDEX_few').ranges).toEqual(['Notes!$G$1:$I$4']);
  expect(after.definedNames.getRanges('Budget').ranges).toEqual(['Notes!$B$1']);
  expect(after.getWorksheet('Notes')?.getCell('D1').value).toBe('organization_type');
  // The id is free again, and the cell: the values left there now block the new query's refresh instead.
  expect((await cli(['query', 'add', file, '--sheet', 'Notes', '--cell', 'D1', '--stats', '{"group_by": "organization_type"}'])).code).toBe(0);

  expect((await cli(['query', 'remove', file, 'few'])).code).toBe(0);
  expect((await cli(['query', 'remove', file, 'stats-1'])).code).toBe(0);
  const empty = await cli(['query', 'list', file]);
  expect(empty).toMatchObject({ code: 0, stdout: '' });
  expect(empty.stderr).toContain('has no saved queries');
  expect((await cli(['query', 'list', join(dir, 'missing.xlsx')])).code).toBe(2);
}, 120_000);

test('the committed sample workbook refreshes offline on the embedded sample: every query ok, values written (on a copy)', async () => {
  const before = readFileSync(SAMPLE);
  const copy = join(dir, 'sample-workbook.xlsx');
  copyFileSync(SAMPLE, copy);
  const listed = JSON.parse(run(['query', 'list', copy, '--json']).stdout) as { id: string; service: string; status: string | null }[];
  expect(listed.length).toBeGreaterThanOrEqual(2);
  expect(listed.every((query) => query.service === 'the built-in sample')).toBe(true);

  const result = run(['refresh', copy]);
  expect(result.code).toBe(0);
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines).toHaveLength(listed.length);
  for (const line of lines) expect(line).toMatch(/^ok {6}'[^']+'!A1 {2}\(\d+ × \d+\)$/);

  const workbook = await open(copy);
  const stored = storeOf(workbook);
  expect(stored.map((entry) => [entry.id, entry.query?.status])).toEqual(listed.map((query) => [query.id, 'ok']));
  for (const entry of stored) {
    const query = entry.query;
    const values = valuesOf(workbook.getWorksheet(query?.sheet ?? ''));
    // A header and at least one row of data, as many as the stored extent says.
    expect(query?.extent?.rows).toBeGreaterThan(1);
    expect(values).toHaveLength(query?.extent?.rows ?? 0);
    expect(values[0]).toHaveLength(query?.extent?.columns ?? 0);
    expect(values.every((row) => row.length <= (query?.extent?.columns ?? 0) && row.some((value) => value !== null))).toBe(true);
  }
  expect(readFileSync(SAMPLE).equals(before)).toBe(true);
}, 120_000);

test('the committed sample workbook is what its script makes: the same saved queries and defined names', async () => {
  const made = join(dir, 'made.xlsx');
  const result = spawnSync(process.execPath, [MAKE_SAMPLE, made], { encoding: 'utf8', timeout: 120_000 });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.stringContaining('wrote ') });
  const [committed, again] = [await open(SAMPLE), await open(made)];
  expect(storeOf(again)).toEqual(storeOf(committed));
  expect(again.definedNames.model).toEqual(committed.definedNames.model);
  expect(again.worksheets.map((sheet) => [sheet.name, sheet.state])).toEqual(committed.worksheets.map((sheet) => [sheet.name, sheet.state]));
}, 120_000);
