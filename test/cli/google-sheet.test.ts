/**
 * `orgindex refresh --google-sheet` end to end: the real CLI in its own process, googleapis against a
 * loopback STAND-IN of the Sheets API v4 (test/support/sheets-api-stand-in.ts — Google cannot be reached
 * here), the real OrgIndex server in its own process. Asserts the exact requests googleapis sends, the
 * values written, the saved queries' stamps, retries on 429, and the guards (a user's cell, merged cells).
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { importSPKI, jwtVerify } from 'jose';
import { startServerProcess, type ServedProcess } from '../support/server-process.js';
import { SheetsApiStandIn, type StandInSheet } from '../support/sheets-api-stand-in.js';

const run = promisify(execFile);
const BIN = join(__dirname, '../../bin/orgindex.js');
const SEARCH_BODY = { filters: { country: ['Deutschland'] }, columns: ['domain', 'name'], size: 5 };
const STATS_BODY = { group_by: 'organization_type', filters: { country: ['Deutschland'] } };

let server: ServedProcess;
let dir: string;
let credentials: string;
let publicKey: string;
beforeAll(async () => {
  server = await startServerProcess();
  dir = mkdtempSync(join(tmpdir(), 'orgindex-gsheet-'));
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  publicKey = pair.publicKey;
  credentials = join(dir, 'service-account.json');
  writeFileSync(credentials, JSON.stringify({ type: 'service_account', project_id: 'orgindex-test', private_key_id: 'key-1', private_key: pair.privateKey, client_email: 'refresher@orgindex-test.iam.gserviceaccount.com' }));
}, 60_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const query = (id: string, sheet: string, cell: string, request: Record<string, unknown>) =>
  JSON.stringify({ id, sheet, cell, request, service: server.url, output: { headers: true, layout: 'crosstab' }, extent: null, last_refreshed: null, status: null });

function spreadsheet(): StandInSheet[] {
  return [
    {
      sheetId: 0,
      title: 'Leads',
      rowCount: 20,
      columnCount: 12,
      merges: [{ startRowIndex: 0, endRowIndex: 1, startColumnIndex: 9, endColumnIndex: 11 }],
      cells: new Map<string, unknown>([
        ['0,0', 'My leads'],
        ['1,4', 'keep me'],
      ]),
      metadata: [
        { metadataId: 11, metadataKey: 'orgindex.query.search-1', metadataValue: query('search-1', 'Leads', 'B3', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 5 }) },
        { metadataId: 12, metadataKey: 'orgindex.query.in-the-way', metadataValue: query('in-the-way', 'Leads', 'E1', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 5 }) },
        { metadataId: 13, metadataKey: 'orgindex.query.merged', metadataValue: query('merged', 'Leads', 'J1', { interface: 'v2', route: 'stats', body: STATS_BODY }) },
        { metadataId: 14, metadataKey: 'orgindex.query.broken', metadataValue: query('broken', 'Leads', 'H5', { interface: 'v2', route: 'search', body: { filters: { contry: ['Deutschland'] } } }) },
        { metadataId: 15, metadataKey: 'other.tool', metadataValue: 'not ours' },
      ],
    },
    { sheetId: 7, title: 'Counts', rowCount: 3, columnCount: 2, merges: [], cells: new Map(), metadata: [{ metadataId: 21, metadataKey: 'orgindex.query.stats-1', metadataValue: query('stats-1', 'Counts', 'A1', { interface: 'v2', route: 'stats', body: STATS_BODY }) }] },
  ];
}

async function refresh(standIn: SheetsApiStandIn, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'refresh', '--google-sheet', standIn.spreadsheetId, '--credentials', credentials, '--base-url', server.url], {
      env: { ...process.env, ORGINDEX_API_KEY: server.key, ORGINDEX_SHEETS_API_URL: standIn.url, ORGINDEX_SHEETS_RETRY_MS: '20', ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${server.url}/v2${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': server.key }, body: JSON.stringify(body) });
  return (await response.json()) as T;
}

const stamp = (standIn: SheetsApiStandIn, sheet: string, id: string) => JSON.parse(standIn.sheet(sheet).metadata.find((entry) => entry.metadataKey === `orgindex.query.${id}`)?.metadataValue ?? '{}') as { extent: unknown; status: string; last_refreshed: string | null; cell: string };

test('the saved queries of a Google Sheet refreshed through the Sheets API: the exact requests, values written, stamps, a 429 retried, the guards', async () => {
  const standIn = new SheetsApiStandIn('sheet-123', spreadsheet());
  await standIn.start();
  try {
    standIn.rateLimitNext = 1;
    const result = await refresh(standIn);
    expect([result.code, result.stderr]).toEqual([1, expect.stringContaining('2 of 5 saved queries refreshed') as unknown]);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      "ok      'Leads'!B3  (6 × 2)",
      "FAILED  'Leads'!E1  The answer (6 × 2 cells from E1) would overwrite E2: clear or move that cell, or move the saved query",
      expect.stringMatching(/^FAILED {2}'Leads'!J1 {2}The answer \(\d+ × 2 cells from J1\) would write into the merged cells at J1/),
      expect.stringMatching(/^FAILED {2}'Leads'!H5 {2}#VALUE! filters.*contry/),
      expect.stringMatching(/^ok {6}'Counts'!A1 {2}\(\d+ × 2\)$/),
    ]);

    // The requests, in order: the 429 retried; one read of the spreadsheet, one of the cells to cover, one
    // claim (the Counts sheet grown first), the values (RAW), the final stamps. No clear: nothing was owned.
    expect(standIn.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v4/spreadsheets/sheet-123',
      'GET /v4/spreadsheets/sheet-123',
      'GET /v4/spreadsheets/sheet-123/values:batchGet',
      'POST /v4/spreadsheets/sheet-123:batchUpdate',
      'POST /v4/spreadsheets/sheet-123/values:batchUpdate',
      'POST /v4/spreadsheets/sheet-123:batchUpdate',
    ]);
    const [get, , batchGet, claim, values, finals] = standIn.requests;
    expect(get?.query.fields).toEqual(['sheets(properties(sheetId,title,gridProperties(rowCount,columnCount)),merges,developerMetadata),namedRanges']);
    const stats = await post<{ data: unknown[] }>('/stats', STATS_BODY);
    const statsRows = stats.data.length + 1;
    expect(batchGet?.query).toEqual({ ranges: ["'Leads'!B3:C8", "'Leads'!E1:F6", `'Leads'!J1:K${String(statsRows)}`, "'Counts'!A1:B3"], valueRenderOption: ['FORMULA'] });
    expect((claim?.body as { requests: unknown[] }).requests).toEqual([
      { updateSheetProperties: { properties: { sheetId: 7, gridProperties: { rowCount: statsRows, columnCount: 2 } }, fields: 'gridProperties(rowCount,columnCount)' } },
      { addNamedRange: { namedRange: { name: 'ORGINDEX_search_1', range: { sheetId: 0, startRowIndex: 2, endRowIndex: 8, startColumnIndex: 1, endColumnIndex: 3 } } } },
      { updateDeveloperMetadata: { dataFilters: [{ developerMetadataLookup: { metadataId: 11 } }], developerMetadata: { metadataValue: expect.stringContaining('"status":"writing"') as unknown }, fields: 'metadataValue' } },
      { addNamedRange: { namedRange: { name: 'ORGINDEX_stats_1', range: { sheetId: 7, startRowIndex: 0, endRowIndex: statsRows, startColumnIndex: 0, endColumnIndex: 2 } } } },
      { updateDeveloperMetadata: { dataFilters: [{ developerMetadataLookup: { metadataId: 21 } }], developerMetadata: { metadataValue: expect.stringContaining('"status":"writing"') as unknown }, fields: 'metadataValue' } },
    ]);
    const search = await post<{ data: { domain: string; name: string }[] }>('/search', SEARCH_BODY);
    expect(values?.body).toEqual({
      valueInputOption: 'RAW',
      data: [
        { range: "'Leads'!B3:C8", values: [['domain', 'name'], ...search.data.map((row) => [row.domain, row.name])] },
        { range: `'Counts'!A1:B${String(statsRows)}`, values: expect.arrayContaining([['organization_type', 'count']]) as unknown },
      ],
    });
    expect((finals?.body as { requests: Record<string, unknown>[] }).requests.map((request) => Object.keys(request)[0])).toEqual([
      'updateNamedRange',
      'updateDeveloperMetadata',
      'updateNamedRange',
      'updateDeveloperMetadata',
      'updateDeveloperMetadata',
      'updateDeveloperMetadata',
      'updateDeveloperMetadata',
    ]);
    // Every request signed by the service account: a JWT carrying the spreadsheets scope, checked with its public key.
    const token = (get?.authorization ?? '').replace(/^Bearer /, '');
    const { payload, protectedHeader } = await jwtVerify(token, await importSPKI(publicKey, 'RS256'));
    expect([payload.iss, payload.scope, protectedHeader.kid]).toEqual(['refresher@orgindex-test.iam.gserviceaccount.com', 'https://www.googleapis.com/auth/spreadsheets', 'key-1']);

    // What the sheet holds now, and the stamps.
    expect(standIn.grid('Leads', 3, 2, 6, 2)).toEqual([['domain', 'name'], ...search.data.map((row) => [row.domain, row.name])]);
    expect(standIn.grid('Leads', 1, 1, 2, 5)).toEqual([['My leads', '', '', '', ''], ['', '', '', '', 'keep me']]);
    expect(stamp(standIn, 'Leads', 'search-1')).toMatchObject({ extent: { rows: 6, columns: 2 }, status: 'ok', cell: 'B3' });
    expect(Date.now() - Date.parse(stamp(standIn, 'Leads', 'search-1').last_refreshed ?? '')).toBeLessThan(5 * 60_000);
    expect(stamp(standIn, 'Leads', 'broken').status).toMatch(/^#VALUE! filters/);
    expect(stamp(standIn, 'Leads', 'in-the-way').status).toMatch(/would overwrite E2/);
    expect(standIn.sheet('Leads').metadata.find((entry) => entry.metadataKey === 'other.tool')?.metadataValue).toBe('not ours');
    expect(standIn.namedRanges.map((range) => range.name)).toEqual(['ORGINDEX_search_1', 'ORGINDEX_stats_1']);

    // The next run: two rows inserted above the search (Sheets moves its named range), which now asks for 3 rows.
    const leads = standIn.sheet('Leads');
    const moved = new Map<string, unknown>();
    for (const [key, value] of leads.cells) {
      const [row = 0, column = 0] = key.split(',').map(Number);
      moved.set(`${String(row >= 2 ? row + 2 : row)},${String(column)}`, value);
    }
    leads.cells.clear();
    for (const [key, value] of moved) leads.cells.set(key, value);
    const named = standIn.namedRanges.find((range) => range.name === 'ORGINDEX_search_1');
    if (named) named.range = { ...named.range, startRowIndex: 4, endRowIndex: 10 };
    leads.cells.set('2,1', 'MY HEADING');
    const entry = leads.metadata.find((candidate) => candidate.metadataKey === 'orgindex.query.search-1');
    if (entry) entry.metadataValue = JSON.stringify({ ...JSON.parse(entry.metadataValue), request: { interface: 'v2', route: 'search', body: { ...SEARCH_BODY, size: 3 }, rows: 3 } });
    standIn.requests.length = 0;
    const again = await refresh(standIn);
    expect(again.stdout).toContain("ok      'Leads'!B5  (4 × 2)");
    const clear = standIn.requests.find((request) => request.path.endsWith('values:batchClear'));
    expect(clear?.body).toEqual({ ranges: ["'Leads'!B5:C10", `'Counts'!A1:B${String(statsRows)}`] });
    const three = await post<{ data: { domain: string }[] }>('/search', { ...SEARCH_BODY, size: 3 });
    expect(standIn.grid('Leads', 3, 2, 8, 1)).toEqual([['MY HEADING'], [''], ['domain'], ...three.data.map((row) => [row.domain]), [''], ['']]);
  } finally {
    await standIn.close();
  }
}, 120_000);

test('usage errors exit 2: a key file that is not a service account, a sheet without saved queries', async () => {
  const standIn = new SheetsApiStandIn('empty-sheet', [{ sheetId: 0, title: 'Sheet1', rowCount: 10, columnCount: 5, merges: [], cells: new Map(), metadata: [] }]);
  await standIn.start();
  try {
    const empty = await refresh(standIn);
    expect([empty.code, empty.stderr]).toEqual([2, expect.stringContaining('has no saved queries') as unknown]);
    const notAKey = join(dir, 'not-a-key.json');
    writeFileSync(notAKey, '{"hello": "world"}');
    const { code, stderr } = await run(process.execPath, [BIN, 'refresh', '--google-sheet', 'x', '--credentials', notAKey]).then(
      () => ({ code: 0, stderr: '' }),
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect([code, stderr]).toEqual([2, expect.stringContaining('is not a service-account key file') as unknown]);
  } finally {
    await standIn.close();
  }
}, 60_000);

test('answers that would overlap each other fail before any write; a failed write fails its queries, with the reason, and the claim stays', async () => {
  const sheets = spreadsheet();
  const leads = sheets[0] as StandInSheet;
  leads.metadata = [
    { metadataId: 11, metadataKey: 'orgindex.query.a', metadataValue: query('a', 'Leads', 'B3', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 5 }) },
    { metadataId: 12, metadataKey: 'orgindex.query.b', metadataValue: query('b', 'Leads', 'B6', { interface: 'v2', route: 'search', body: SEARCH_BODY, rows: 2 }) },
  ];
  const standIn = new SheetsApiStandIn('overlap', sheets.slice(0, 1));
  await standIn.start();
  try {
    const first = await refresh(standIn);
    expect(first.stdout.split('\n').filter(Boolean)).toEqual(["ok      'Leads'!B3  (6 × 2)", "FAILED  'Leads'!B6  The answer would cover cells of the saved query a ('Leads'!B3:C8): move one of the two queries"]);

    // The values call fails (500 on a write is not retried: it may have been applied).
    standIn.failNext = '/values:batchUpdate';
    const failed = await refresh(standIn);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("FAILED  'Leads'!B3  The Sheets API failed during the write:");
    expect(standIn.requests.filter((request) => request.path.endsWith('/values:batchUpdate'))).toHaveLength(2);
    expect(stamp(standIn, 'Leads', 'a').status).toMatch(/^The Sheets API failed during the write/);
    expect(standIn.namedRanges.map((range) => range.name)).toEqual(['ORGINDEX_a']);
    // The next run refreshes it.
    expect((await refresh(standIn)).stdout).toContain("ok      'Leads'!B3  (6 × 2)");
    const proxy = await refresh(standIn, { ORGINDEX_SHEETS_API_URL: 'http://sheets.example.com' });
    expect([proxy.code, proxy.stderr]).toEqual([2, expect.stringContaining('must be an https URL under googleapis.com, or a loopback address') as unknown]);
  } finally {
    await standIn.close();
  }
}, 120_000);
