/**
 * What the script does to a spreadsheet (appsscript/src/sheet-actions.ts, menu.ts), run from the built
 * bundle in the Apps Script sandbox against a STAND-IN spreadsheet (spreadsheet-stand-in.ts): the menu,
 * inserting values (text stays text), enriching beside a column, refresh, pin — through the sidebar's
 * entry point as the sidebar calls it, on the embedded sample.
 */
import { loadBundle } from './harness.js';
import { spreadsheetStandIn } from './spreadsheet-stand-in.js';

function setup() {
  const sheets = spreadsheetStandIn();
  const sandbox = loadBundle(undefined, sheets.globals);
  const sidebar = (op: string, payload: Record<string, unknown> = {}): { ok: boolean; value?: unknown; error?: { message: string } } =>
    JSON.parse(sandbox.call('orgindexSidebarCall', op, JSON.stringify(payload)) as string) as { ok: boolean; value?: unknown; error?: { message: string } };
  return { ...sheets, sandbox, sidebar };
}

test('onOpen adds the OrgIndex menu; its items name top-level functions of the script', () => {
  const { sandbox, state } = setup();
  sandbox.call('onOpen', {});
  expect(state.menus).toEqual([
    {
      name: 'OrgIndex',
      items: [
        ['Open sidebar', 'orgindexShowSidebar'],
        ['Refresh now', 'orgindexRefreshNow'],
        ['Schedule refresh…', 'orgindexShowSchedule'],
        ['Pin selection as values', 'orgindexPinSelection'],
      ],
    },
  ]);
  for (const [, fn] of state.menus[0]?.items ?? []) expect(typeof sandbox.context[fn]).toBe('function');
  sandbox.call('orgindexShowSidebar');
  sandbox.call('orgindexShowSchedule');
  expect(state.sidebars.map((page) => [page.file, page.title])).toEqual([['Sidebar', 'OrgIndex'], ['Sidebar', 'OrgIndex']]);
  // "Schedule refresh…" opens the built page on its Refresh tab.
  expect(state.sidebars[0]?.content).toContain('<div id="root" data-tab="search">');
  expect(state.sidebars[1]?.content).toContain('<div id="root" data-tab="refresh">');
});

test('insert values: text written as plain text (a formula-looking name stays text, codes keep their dots), numbers as numbers', () => {
  const { sidebar, sheet } = setup();
  const answer = sidebar('insertValues', { table: [['name', 'nace_code', 'count'], ['=IMPORTXML("https://x.test")', '38.10', 12], [{ error: '#N/A', message: 'x.example is not in the index' }, '', 3]] });
  expect(answer.ok).toBe(true);
  expect(sheet.cell(2, 1)).toEqual({ value: '=IMPORTXML("https://x.test")', format: '@', formula: '' });
  expect(sheet.cell(2, 2).value).toBe('38.10');
  expect(sheet.cell(2, 3)).toEqual({ value: 12, format: 'General', formula: '' });
  expect(sheet.cell(3, 1).value).toBe('#N/A x.example is not in the index');
});

test('enrich: the selected column is read to its last row, rows written beside it; a search from the sidebar on the sample', () => {
  const { sidebar, sheet, state } = setup();
  const found = sidebar('search', { body: { filters: { organization_type: ['Company'] }, columns: ['domain'], size: 3 } }).value as { data: { domain: string }[] };
  found.data.forEach((row, i) => (sheet.cell(i + 1, 1).value = row.domain));
  state.active = sheet.getRange(1, 1, 1_000, 1);
  const selection = sidebar('readSelectedColumn').value as { address: string; values: string[] };
  expect(selection).toEqual({ address: "'Sheet1'!A1:A3", values: found.data.map((row) => row.domain) });
  const rows = sidebar('fetch', { body: { domains: selection.values, columns: ['domain', 'country'] } }).value as { data: { country: string }[] };
  sidebar('writeBeside', { address: selection.address, offset: 0, table: rows.data.map((row) => [row.country]) });
  expect([1, 2, 3].map((r) => sheet.cell(r, 2).value)).toEqual(rows.data.map((row) => row.country));
});

test('Refresh rewrites every OrgIndex formula (so Sheets recalculates it) and forgets the cache; Pin keeps values and formats', () => {
  const { sandbox, sheet, state } = setup();
  const { cache } = sandbox;
  sheet.getRange(1, 1).setFormula('=ORGSTATS("country")');
  sheet.getRange(5, 5).setFormula('=SUM(A1:A3)');
  sandbox.call('ORGSTATS', 'organization_type');
  const cachedBefore = cache.values.size;
  expect(cachedBefore).toBeGreaterThan(0);
  sandbox.call('orgindexRefreshNow');
  expect(state.toasts).toEqual(['1 OrgIndex formula asked again; 0 saved queries refreshed']);
  expect(sheet.cell(1, 1).formula).toBe('=ORGSTATS("country")');
  // The old entries are unreachable: the same formula asks again (and stores anew).
  sandbox.call('ORGSTATS', 'organization_type');
  expect(cache.values.size).toBeGreaterThan(cachedBefore);

  sheet.cell(2, 2).value = 45_000;
  sheet.cell(2, 2).format = 'yyyy-mm-dd';
  sheet.cell(2, 3).value = '00123';
  state.active = sheet.getRange(2, 2, 1, 2);
  sandbox.call('orgindexPinSelection');
  expect(sheet.cell(2, 2)).toEqual({ value: 45_000, format: 'yyyy-mm-dd', formula: '' });
  expect(sheet.cell(2, 3)).toEqual({ value: '00123', format: '@', formula: '' });
}, 60_000);

test('a team connection lives in the document properties; a user’s own connection wins over it', () => {
  const { sidebar, sandbox } = setup();
  const team = { backend: 'remote', serviceUrl: 'https://api.example.com', apiKey: 'team-key', accessToken: '', languageUrl: '', cacheHours: 24 };
  sidebar('saveConnection', { value: team, scope: 'document' });
  expect(JSON.parse(sandbox.documentProperties.getProperty('orgindex.connection') ?? '{}')).toMatchObject({ apiKey: 'team-key' });
  expect(sidebar('connection').value).toMatchObject({ apiKey: 'team-key' });
  sidebar('saveConnection', { value: { ...team, apiKey: 'my-key' } });
  expect(sidebar('connection').value).toMatchObject({ apiKey: 'my-key' });
});

test('a failing operation comes back as an error the sidebar can show, not an exception', () => {
  const { sidebar, state } = setup();
  state.active = null as unknown as typeof state.active;
  expect(sidebar('insertFormula', { formula: '=ORGSTATS("country")' })).toEqual({ ok: false, error: expect.objectContaining({ message: 'Select a cell first' }) as unknown });
  expect(sidebar('search', { body: { size: 0, filters: { country: ['X'] } } }).error).toEqual(expect.objectContaining({ kind: 'validation' }));
});
