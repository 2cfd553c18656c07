/**
 * Saved queries in an Excel workbook (addin/saved-queries.ts) — "Insert as refreshable values" and
 * "Refresh saved queries" — against a STAND-IN of Excel's workbook model (workbook-stand-in.ts; Excel
 * cannot run here) and the real server on a loopback port. The rows and names they write are the format
 * `orgindex refresh` reads, checked with the same reader.
 */
import { installExcelStandIn } from './excel-stand-in.js';
import { StandInWorkbook } from './workbook-stand-in.js';
import { KEYS, startTestServer, type TestServer } from '../server/support.js';
import { DEFAULT_CONNECTION } from '../../src/sheet/connection.js';
import { readSavedQueryRows, serviceOf } from '../../src/sheet/saved-query.js';
import { addinRuntime } from '../../addin/page-runtime.js';
import { excelSavedQueries, refreshSavedQueries } from '../../addin/saved-queries.js';

installExcelStandIn();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await addinRuntime().setConnection({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: server.url, apiKey: KEYS.tier2 });
});
afterAll(() => server.close());

const SEARCH_BODY = { filters: { country: ['Deutschland'] }, columns: ['domain' as const, 'name' as const], size: 5 };
const searchRequest = (rows: number) => ({ interface: 'v2' as const, route: 'search' as const, body: { ...SEARCH_BODY, size: rows }, rows });
const OUTPUT = { headers: true, layout: 'crosstab' as const };

function setup() {
  const workbook = new StandInWorkbook(['Leads', 'Notes']);
  workbook.install();
  return { workbook, leads: workbook.sheet('Leads'), saved: excelSavedQueries(addinRuntime()) };
}

const stored = (workbook: StandInWorkbook) => readSavedQueryRows(workbook.sheet('_orgindex').usedValues());

test('Insert as refreshable values: the answer at the selected cell, the query in the hidden _orgindex sheet, its cells a defined name', async () => {
  const { workbook, leads, saved } = setup();
  workbook.selection = leads.area('B3');
  const summary = await saved.insert(searchRequest(5), OUTPUT);
  expect(summary).toMatchObject({ target: "'Leads'!B3", description: 'search · 5 rows', status: 'ok' });
  const expected = await server.client(KEYS.tier2).search(SEARCH_BODY);
  expect(leads.valuesAt('B3:C8')).toEqual([['domain', 'name'], ...expected.data.map((row) => [row.domain, row.name])]);
  expect(workbook.sheet('_orgindex').visibility).toBe('Hidden');
  const [entry] = stored(workbook);
  expect(entry?.query).toMatchObject({ sheet: 'Leads', cell: 'B3', service: serviceOf(server.url), extent: { rows: 6, columns: 2 }, status: 'ok' });
  expect([...workbook.definedNames.keys()]).toEqual([`ORGINDEX_${(entry?.query?.id ?? '').replace(/[^A-Za-z0-9]/g, '_')}`]);
  expect(await saved.list()).toEqual([summary]);
});

test('Refresh saved queries: follows its defined name past inserted rows, clears what it owned, keeps a heading; refuses a user\'s cell and merged cells', async () => {
  const { workbook, leads, saved } = setup();
  workbook.selection = leads.area('B3');
  await saved.insert(searchRequest(5), OUTPUT);
  workbook.selection = workbook.sheet('Notes').area('A1');
  await saved.insert(searchRequest(2), OUTPUT);
  // Two rows inserted above the table, a heading typed there, and the query now asks for 3 rows.
  leads.insertRowsAbove(0, 2);
  leads.cell(2, 1).value = 'MY HEADING';
  const store = workbook.sheet('_orgindex');
  const cell = store.cell(1, 4);
  cell.value = String(cell.value).replace('"size":5', '"size":3').replace('"rows":5', '"rows":3');
  // On Notes, a user's note in the way of a growing answer.
  workbook.sheet('Notes').cell(4, 0).value = 'my note';
  const notes = stored(workbook).find((entry) => entry.query?.sheet === 'Notes');
  store.cell(2, 4).value = String(store.cell(2, 4).value).replace('"size":2', '"size":6').replace('"rows":2', '"rows":6');

  const report = await refreshSavedQueries(addinRuntime());
  expect(report.refreshed).toBe(1);
  expect(report.failed).toEqual([{ id: notes?.id, target: "'Notes'!A1", message: 'The answer (7 × 2 cells from A1) would overwrite A5: clear or move that cell, or move the saved query' }]);
  const three = await server.client(KEYS.tier2).search({ ...SEARCH_BODY, size: 3 });
  expect(leads.valuesAt('B3:B12')).toEqual([['MY HEADING'], [''], ['domain'], ...three.data.map((row) => [row.domain]), [''], [''], [''], ['']]);
  expect(leads.cell(9, 1).format).toBe('General');
  expect(workbook.sheet('Notes').cell(4, 0).value).toBe('my note');
  expect(stored(workbook).map((entry) => [entry.query?.sheet, entry.query?.cell, entry.query?.extent, entry.query?.status?.slice(0, 10)])).toEqual([
    ['Leads', 'B5', { rows: 4, columns: 2 }, 'ok'],
    ['Notes', 'A1', { rows: 3, columns: 2 }, 'The answer'],
  ]);

  leads.merged.push({ row: 6, column: 2, rows: 1, columns: 2 });
  const merged = await refreshSavedQueries(addinRuntime());
  expect(merged.failed.map((failure) => failure.message)).toContain('The answer (4 × 2 cells from B5) would write into the merged cells at C7: unmerge them, or move the saved query');

  // Remove: the row and the name go, the values stay.
  const [first] = await saved.list();
  await saved.remove(first?.id ?? '');
  expect((await saved.list()).map((query) => query.target)).toEqual(["'Notes'!A1"]);
  expect(leads.cell(4, 1).value).toBe('domain');
});

test('a query saved on another connection is not refreshed on this one', async () => {
  const { workbook, leads, saved } = setup();
  workbook.selection = leads.area('A1');
  await saved.insert(searchRequest(2), OUTPUT);
  const cell = workbook.sheet('_orgindex').cell(1, 4);
  cell.value = String(cell.value).replace(/"service":"[^"]*"/, '"service":"https://orgindex.example"');
  const report = await refreshSavedQueries(addinRuntime());
  expect(report.failed[0]?.message).toBe(`This query was saved against https://orgindex.example; the add-in is connected to ${serviceOf(server.url) ?? ''}. Connect to https://orgindex.example under Connection only if you trust that service with your API key, or remove the query and insert it again.`);
});

test('a new insert where a query used to be (it moved with inserted rows) is a new query; the store sheet is refused; operations run one at a time', async () => {
  const { workbook, leads, saved } = setup();
  workbook.selection = leads.area('B3');
  await saved.insert(searchRequest(2), OUTPUT);
  leads.insertRowsAbove(0, 5);
  workbook.selection = leads.area('B3');
  await saved.insert(searchRequest(2), OUTPUT);
  // The list shows where each query is now.
  expect((await saved.list()).map((query) => query.target).sort()).toEqual(["'Leads'!B3", "'Leads'!B8"]);
  expect(stored(workbook).map((entry) => entry.query?.id).filter((id, i, ids) => ids.indexOf(id) === i)).toHaveLength(2);
  expect(leads.valuesAt('B8')).toEqual([['domain']]);

  workbook.selection = workbook.sheet('_orgindex').area('A10');
  await expect(saved.insert(searchRequest(2), OUTPUT)).rejects.toThrow('Select a cell on another sheet: "_orgindex" keeps the saved queries themselves');

  // A refresh and an insert started together: both land in the store.
  workbook.selection = workbook.sheet('Notes').area('D4');
  const [report] = await Promise.all([refreshSavedQueries(addinRuntime()), saved.insert(searchRequest(2), OUTPUT)]);
  expect(report.refreshed).toBe(2);
  expect(stored(workbook)).toHaveLength(3);
  expect(stored(workbook).every((entry) => entry.query?.status === 'ok')).toBe(true);
});

test('a query pointing into the store (its defined name, or its saved sheet in any case) fails, naming it, and writes nothing there; the others refresh', async () => {
  const { workbook, leads, saved } = setup();
  workbook.selection = leads.area('B3');
  const named = await saved.insert(searchRequest(2), OUTPUT);
  workbook.selection = workbook.sheet('Notes').area('A1');
  const moved = await saved.insert(searchRequest(2), OUTPUT);
  workbook.selection = workbook.sheet('Notes').area('D4');
  await saved.insert(searchRequest(2), OUTPUT);
  const store = workbook.sheet('_orgindex');
  // The first one's defined name now covers cells of the store; the second one is saved on it, without a name.
  const nameOf = (id: string) => [...workbook.definedNames.keys()].find((key) => key === `ORGINDEX_${id.replace(/[^A-Za-z0-9]/g, '_')}`) ?? '';
  workbook.definedNames.set(nameOf(named.id), store.area('H1:I3'));
  workbook.definedNames.delete(nameOf(moved.id));
  const row = stored(workbook).findIndex((entry) => entry.id === moved.id) + 1;
  store.cell(row, 4).value = String(store.cell(row, 4).value).replace('"sheet":"Notes","cell":"A1"', '"sheet":"_ORGINDEX","cell":"A10"');

  const report = await refreshSavedQueries(addinRuntime());
  const refusal = (id: string) => `The saved query "${id}" would write on the sheet "_orgindex", which keeps the saved queries themselves: nothing was written there; remove the saved query and insert it again on another sheet`;
  expect(report.refreshed).toBe(1);
  expect(report.failed).toEqual([
    { id: named.id, target: "'Leads'!B3", message: refusal(named.id) },
    { id: moved.id, target: "'_ORGINDEX'!A10", message: refusal(moved.id) },
  ]);
  // The store: its header and three rows, nothing beside or below them.
  expect(store.usedValues()).toHaveLength(4);
  expect(store.valuesAt('H1:I3')).toEqual([['', ''], ['', ''], ['', '']]);
  expect(store.valuesAt('A10')).toEqual([['']]);
  expect(stored(workbook).map((entry) => entry.query?.status?.slice(0, 15))).toEqual(['The saved query', 'The saved query', 'ok']);
});
