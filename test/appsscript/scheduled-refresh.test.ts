/**
 * Saved queries and scheduled refresh (appsscript/src/saved-queries.ts), run from the built bundle in the
 * Apps Script sandbox (harness.ts: no fetch / setTimeout / URL; STAND-INS for LockService, ScriptApp,
 * MailApp, PropertiesService and, in spreadsheet-stand-in.ts, SpreadsheetApp — Google's services cannot
 * run here) against the real server in its own process, through UrlFetchApp's real synchronous calls.
 */
import { startServerProcess, type ServedProcess } from '../support/server-process.js';
import { loadBundle } from './harness.js';
import { spreadsheetStandIn } from './spreadsheet-stand-in.js';

let server: ServedProcess;
beforeAll(async () => {
  server = await startServerProcess();
}, 60_000);
afterAll(async () => {
  await server.close();
});

interface Answer {
  ok: boolean;
  value?: unknown;
  error?: { message: string };
}

interface StoredQuery {
  id: string;
  sheet: string;
  cell: string;
  request: { route: string; body: Record<string, unknown>; rows?: number };
  extent: { rows: number; columns: number } | null;
  last_refreshed: string | null;
  status: string | null;
}

function setup() {
  const sheets = spreadsheetStandIn();
  const sandbox = loadBundle(undefined, sheets.globals);
  sandbox.userProperties.setProperty('orgindex.connection', JSON.stringify({ backend: 'remote', serviceUrl: server.url, apiKey: server.key }));
  const sidebar = (op: string, payload: Record<string, unknown> = {}): Answer => JSON.parse(sandbox.call('orgindexSidebarCall', op, JSON.stringify(payload)) as string) as Answer;
  // Saved queries are developer metadata on their sheet (document-visible, so the Sheets API reads them too).
  const metadata = () => sheets.sheet.metadata.filter((entry) => entry.key.startsWith('orgindex.query.'));
  const stored = (): StoredQuery[] => metadata().map((entry) => JSON.parse(entry.value) as StoredQuery);
  const restore = (query: StoredQuery) => {
    const entry = metadata().find((candidate) => candidate.key === `orgindex.query.${query.id}`);
    if (entry) entry.value = JSON.stringify(query);
    else sheets.sheet.addDeveloperMetadata(`orgindex.query.${query.id}`, JSON.stringify(query), 'DOCUMENT');
  };
  const grid = (row: number, col: number, rows: number, cols: number) => sheets.sheet.getRange(row, col, rows, cols).getValues();
  return { ...sheets, sandbox, sidebar, stored, restore, grid, metadata };
}

const SEARCH_BODY = { filters: { country: ['Deutschland'] }, columns: ['domain', 'name'], size: 5 };
const searchQuery = (rows = 5) => ({ request: { interface: 'v2', route: 'search', body: { ...SEARCH_BODY, size: rows }, rows }, output: { headers: true, layout: 'crosstab' } });
const statsQuery = { request: { interface: 'v2', route: 'stats', body: { group_by: 'organization_type', filters: { country: ['Deutschland'] } } }, output: { headers: true, layout: 'crosstab' } };

test('"Insert as refreshable values" writes the answer at the selected cell, saves the query as document-visible metadata of its sheet and stamps the cell', () => {
  const { sandbox, sidebar, sheet, state, stored, grid, metadata } = setup();
  state.active = sheet.getRange(2, 2);
  const answer = sidebar('insertRefreshable', searchQuery());
  expect(answer).toMatchObject({ ok: true, value: { target: "'Sheet1'!B2", description: 'search · 5 rows', status: 'ok' } });

  // The table the server gives for the same body.
  const direct = sidebar('search', { body: SEARCH_BODY }).value as { data: { domain: string; name: string }[] };
  expect(grid(2, 2, 6, 2)).toEqual([['domain', 'name'], ...direct.data.map((row) => [row.domain, row.name])]);
  expect(sheet.cell(2, 2).note).toMatch(/^OrgIndex saved query: search · 5 rows\nLast refreshed \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  const [query] = stored();
  expect(query).toMatchObject({ sheet: 'Sheet1', cell: 'B2', extent: { rows: 6, columns: 2 }, status: 'ok' });
  expect(metadata().map((entry) => [entry.key, entry.visibility])).toEqual([[`orgindex.query.${query?.id ?? ''}`, 'DOCUMENT']]);
  expect(Date.parse(query?.last_refreshed ?? '')).toBeGreaterThan(Date.now() - 60_000);
  expect(sidebar('savedQueries').value).toEqual([{ id: query?.id, target: "'Sheet1'!B2", description: 'search · 5 rows', last_refreshed: query?.last_refreshed, status: 'ok' }]);

  // Inserting again at the same cell replaces that query instead of adding a second one.
  sidebar('insertRefreshable', searchQuery(3));
  expect(stored()).toHaveLength(1);
  expect(grid(6, 2, 2, 2)).toEqual([['', ''], ['', '']]);
  expect(sandbox.lock.held).toBe(false);
}, 60_000);

test('a first run that fails saves nothing and writes nothing; a query too large for a document property is refused', () => {
  const { sidebar, sheet, state, stored } = setup();
  state.active = sheet.getRange(1, 1);
  const bad = sidebar('insertRefreshable', { ...searchQuery(), request: { interface: 'v2', route: 'search', body: { filters: { contry: ['Deutschland'] } } } });
  expect(bad.ok).toBe(false);
  expect(bad.error?.message).toMatch(/contry/);
  const tooLarge = sidebar('insertRefreshable', { request: { interface: 'v2', route: 'fetch', body: { domains: Array.from({ length: 2_000 }, (_, i) => `domain-${String(i)}.example`) } }, output: { headers: true } });
  expect(tooLarge.error?.message).toMatch(/^This query cannot be saved for refresh: the saved queries of the sheet "Sheet1" would take [\d,]+ characters, and Google keeps 30,000 per sheet/);
  expect(stored()).toEqual([]);
  expect(sheet.getLastRow()).toBe(0);
}, 60_000);

test('a scheduled refresh writes values into the sheet: one trigger whatever the number of saves; every query asked again, the old extent cleared, failures logged and e-mailed', () => {
  const { sandbox, sidebar, sheet, state, stored, restore, grid } = setup();
  state.active = sheet.getRange(2, 2);
  sidebar('insertRefreshable', searchQuery(5));
  state.active = sheet.getRange(2, 6);
  sidebar('insertRefreshable', statsQuery);
  const statsBefore = grid(2, 6, 8, 2);

  // Installed idempotently: saving a schedule replaces this user's trigger.
  expect(sidebar('setSchedule', { schedule: { frequency: 'daily', hour: 7, email: 'ops@example.com' } }).value).toMatchObject({ frequency: 'daily', hour: 7, email: 'ops@example.com', timeZone: 'Europe/Berlin', mine: true });
  expect(sandbox.triggers).toEqual([{ id: 'trigger-1', handler: 'orgindexScheduledRefresh', settings: { everyDays: 1, atHour: 7, inTimezone: 'Europe/Berlin' } }]);
  sidebar('setSchedule', { schedule: { frequency: 'weekly', weekday: 'FRIDAY', hour: 18, email: 'ops@example.com' } });
  expect(sandbox.triggers.map((trigger) => trigger.settings)).toEqual([{ onWeekDay: 'FRIDAY', atHour: 18, inTimezone: 'Europe/Berlin' }]);
  const [trigger] = sandbox.triggers;

  // Since the last refresh: someone typed over the table, the query was changed to 3 rows, and a broken query was added.
  sheet.cell(3, 2).value = 'typed over';
  const search = stored().find((query) => query.request.route === 'search') as StoredQuery;
  restore({ ...search, request: { ...search.request, body: { ...SEARCH_BODY, size: 3 }, rows: 3 } });
  restore({ ...search, id: 'broken', cell: 'J2', extent: null, request: { route: 'search', interface: 'v2', body: { filters: { contry: ['Deutschland'] } } } } as StoredQuery);
  const fetchedBefore = sandbox.fetched.length;

  const report = sandbox.call('orgindexScheduledRefresh', { triggerUid: trigger?.id }) as { refreshed: number; failed: { id: string; target: string; message: string }[] };
  expect(report.refreshed).toBe(2);
  expect(report.failed).toEqual([{ id: 'broken', target: "'Sheet1'!J2", message: expect.stringMatching(/^#VALUE! filters.*contry/) as unknown }]);
  // Asked again (not the formulas' cache): one request per query; the broken one fails the client's own contract check before any request.
  expect(sandbox.fetched.length - fetchedBefore).toBe(2);

  const direct = sidebar('search', { body: { ...SEARCH_BODY, size: 3 } }).value as { data: { domain: string; name: string }[] };
  expect(grid(2, 2, 6, 2)).toEqual([['domain', 'name'], ...direct.data.map((row) => [row.domain, row.name]), ['', ''], ['', '']]);
  expect(grid(2, 6, 8, 2)).toEqual(statsBefore);
  // Cells the answer no longer uses lose the plain-text format (a formula typed there later is a formula).
  expect([sheet.cell(6, 2).format, sheet.cell(7, 3).format]).toEqual(['General', 'General']);
  const after = stored();
  expect(after.find((query) => query.id === search.id)).toMatchObject({ extent: { rows: 4, columns: 2 }, status: 'ok' });
  expect(after.find((query) => query.id === 'broken')?.status).toMatch(/^#VALUE! filters/);

  // The log sheet (the user's sheet stays the active one) and the e-mail.
  const log = sandbox.context.SpreadsheetApp as { getActiveSpreadsheet(): { getSheetByName(name: string): { getDataRange(): { getValues(): unknown[][] } } | null; getActiveSheet(): { getName(): string } } };
  const rows = log.getActiveSpreadsheet().getSheetByName('OrgIndex log')?.getDataRange().getValues();
  expect(rows?.[0]).toEqual(['Time (UTC)', 'Target', 'Saved query', 'Problem']);
  expect(rows?.slice(1)).toEqual([[expect.any(String), "'Sheet1'!J2", 'broken', expect.stringMatching(/contry/)]]);
  expect(log.getActiveSpreadsheet().getActiveSheet().getName()).toBe('Sheet1');
  expect(sandbox.mails).toEqual([{ to: 'ops@example.com', subject: 'OrgIndex: 1 saved query failed to refresh in "Stand-in spreadsheet"', body: expect.stringContaining("'Sheet1'!J2: #VALUE! filters") as unknown }]);

  // A refresh from the sidebar records failures too, but e-mails only from the schedule — and the same
  // failures only once (an hourly schedule does not repeat itself).
  sidebar('refreshSavedQueries');
  sandbox.call('orgindexScheduledRefresh', { triggerUid: trigger?.id });
  expect(sandbox.mails).toHaveLength(1);
  expect(log.getActiveSpreadsheet().getSheetByName('OrgIndex log')?.getDataRange().getValues()).toHaveLength(4);

  expect(sidebar('setSchedule', { schedule: { frequency: 'off' } }).value).toMatchObject({ frequency: 'off', mine: false });
  expect(sandbox.triggers).toEqual([]);
}, 120_000);

test('a trigger of an earlier schedule (another user’s, say) deletes itself and writes nothing', () => {
  const { sandbox, sidebar, sheet, state } = setup();
  state.active = sheet.getRange(1, 1);
  sidebar('insertRefreshable', searchQuery(2));
  sidebar('setSchedule', { schedule: { frequency: 'hourly' } });
  expect(sandbox.triggers.map((trigger) => trigger.settings)).toEqual([{ everyHours: 1 }]);
  // A trigger the stored schedule does not name.
  sandbox.triggers.push({ id: 'left-over', handler: 'orgindexScheduledRefresh', settings: { everyHours: 1 } });
  const fetched = sandbox.fetched.length;
  expect(sandbox.call('orgindexScheduledRefresh', { triggerUid: 'left-over' })).toBeNull();
  expect(sandbox.triggers.map((trigger) => trigger.id)).toEqual(['trigger-1']);
  expect(sandbox.fetched.length).toBe(fetched);
}, 60_000);

test('a refresh never overwrites a cell it did not write, and a run while another holds the lock does nothing', () => {
  const { sandbox, sidebar, sheet, state, stored, restore, grid } = setup();
  state.active = sheet.getRange(2, 2);
  sidebar('insertRefreshable', searchQuery(3));
  const before = grid(2, 2, 4, 2);
  sheet.cell(7, 3).value = 'my notes';
  const [query] = stored() as [StoredQuery];
  restore({ ...query, request: { ...query.request, body: { ...SEARCH_BODY, size: 8 }, rows: 8 } });

  const report = sidebar('refreshSavedQueries').value as { refreshed: number; failed: { message: string }[] };
  expect(report.refreshed).toBe(0);
  expect(report.failed[0]?.message).toBe('The answer (9 × 2 cells from B2) would overwrite C7: clear or move that cell, or move the saved query');
  expect(sheet.cell(7, 3).value).toBe('my notes');
  expect(grid(2, 2, 4, 2)).toEqual(before);

  sandbox.lock.held = true;
  const fetched = sandbox.fetched.length;
  expect(sidebar('refreshSavedQueries').value).toMatchObject({ refreshed: 0, failed: [], skipped: 'Another refresh of this spreadsheet is running; try again in a minute.' });
  expect(sandbox.fetched.length).toBe(fetched);
}, 60_000);

test('removing a saved query keeps its values and clears its note; a bad schedule is refused with the reason', () => {
  const { sidebar, sheet, state, stored } = setup();
  state.active = sheet.getRange(1, 1);
  sidebar('insertRefreshable', statsQuery);
  const [query] = stored() as [StoredQuery];
  const values = sheet.getRange(1, 1, 3, 2).getValues();
  expect(sidebar('removeSavedQuery', { id: query.id }).ok).toBe(true);
  expect(stored()).toEqual([]);
  expect(sheet.getRange(1, 1, 3, 2).getValues()).toEqual(values);
  expect(sheet.cell(1, 1).note).toBe('');
  expect(sidebar('removeSavedQuery', { id: query.id }).error?.message).toMatch(/No such saved query/);
  expect(sidebar('setSchedule', { schedule: { frequency: 'daily', hour: 25, email: 'not an address' } }).error?.message).toMatch(/^The schedule is not valid: hour: .*; email: /);
}, 60_000);

test('a query follows its cells: rows inserted above it, a renamed sheet — the user\'s new cells are kept', () => {
  const { sidebar, sheet, state, grid } = setup();
  state.active = sheet.getRange(2, 2);
  sidebar('insertRefreshable', searchQuery(3));
  const table = grid(2, 2, 4, 2);
  sheet.insertRowsBefore(1, 2);
  sheet.cell(2, 2).value = 'MY HEADING';
  sheet.setName('Leads');
  expect((sidebar('refreshSavedQueries').value as { refreshed: number }).refreshed).toBe(1);
  expect(sheet.cell(2, 2).value).toBe('MY HEADING');
  expect(grid(4, 2, 4, 2)).toEqual(table);
  expect(grid(8, 2, 1, 2)).toEqual([['', '']]);
  expect((sidebar('savedQueries').value as { target: string }[]).map((query) => query.target)).toEqual(["'Leads'!B4"]);
}, 60_000);

test('a run that dies after claiming its cells leaves a query that owns them: the next run refreshes it', () => {
  const { sandbox, sidebar, sheet, state, stored, restore, grid } = setup();
  state.active = sheet.getRange(1, 1);
  sidebar('insertRefreshable', searchQuery(2));
  const [query] = stored() as [StoredQuery];
  restore({ ...query, request: { ...query.request, body: { ...SEARCH_BODY, size: 4 }, rows: 4 } });
  // The write fails half-way (as an execution killed at Apps Script's limit would stop).
  const range = sheet.getRange(1, 1, 5, 2);
  const original = Object.getPrototypeOf(range) as { setValues: (this: unknown, values: unknown[][]) => unknown };
  const setValues = original.setValues;
  let failures = 1;
  original.setValues = function (this: unknown, values: unknown[][]) {
    if (failures-- > 0) {
      setValues.call(this, values.map((row, r) => (r < 3 ? row : row.map(() => ''))));
      throw new Error('Exception: Service Spreadsheets timed out while accessing document');
    }
    return setValues.call(this, values);
  };
  try {
    const failed = sidebar('refreshSavedQueries').value as { failed: { message: string }[] };
    expect(failed.failed[0]?.message).toMatch(/timed out/);
    expect(stored()[0]?.extent).toEqual({ rows: 5, columns: 2 });
    const again = sidebar('refreshSavedQueries').value as { refreshed: number; failed: unknown[] };
    expect(again).toMatchObject({ refreshed: 1, failed: [] });
    expect(grid(1, 1, 5, 2).every((row) => row.every((cell) => cell !== ''))).toBe(true);
    expect(sandbox.lock.held).toBe(false);
  } finally {
    original.setValues = setValues;
  }
}, 60_000);

test('a refresh runs only on the connection the query was saved with; a sheet too small grows', () => {
  const { sandbox, sidebar, sheet, state, grid } = setup();
  sheet.maxRows = 4;
  state.active = sheet.getRange(2, 1);
  expect(sidebar('insertRefreshable', searchQuery(6)).ok).toBe(true);
  expect(sheet.getMaxRows()).toBe(8);
  const table = grid(2, 1, 7, 2);
  // Another editor, without a connection of their own, runs the refresh: the sample must not replace the service's answer.
  sandbox.userProperties.deleteProperty('orgindex.connection');
  const report = sidebar('refreshSavedQueries').value as { refreshed: number; failed: { message: string }[] };
  expect(report.refreshed).toBe(0);
  expect(report.failed[0]?.message).toBe(`This query was saved against ${server.url}; this refresh runs on the built-in sample (the connection of the account running it). Connect to ${server.url} under Connection only if you trust that service with your API key, or remove the query and insert it again.`);
  expect(grid(2, 1, 7, 2)).toEqual(table);
}, 60_000);

test('an unreadable stored entry is listed, reported by a refresh and removable', () => {
  const { sidebar, sheet } = setup();
  sheet.addDeveloperMetadata('orgindex.query.hand-edited', '{"id": "hand-edited", ', 'DOCUMENT');
  expect(sidebar('savedQueries').value).toEqual([{ id: 'hand-edited', target: '?', description: 'unreadable', last_refreshed: null, status: 'The saved query is not valid JSON' }]);
  expect(sidebar('refreshSavedQueries').value).toMatchObject({ refreshed: 0, failed: [{ id: 'hand-edited', message: 'The saved query is not valid JSON' }] });
  expect(sidebar('removeSavedQuery', { id: 'hand-edited' })).toEqual({ ok: true, value: null, quota: null });
  expect(sidebar('savedQueries').value).toEqual([]);
}, 60_000);
