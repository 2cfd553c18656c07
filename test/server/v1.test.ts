/**
 * The legacy v1 interface end to end: the real server on loopback, the remote client's `v1` methods,
 * API keys and bearer JWTs (signed here with jose: HS256 and an ES256 key set), v1's 400/403 errors, and
 * point-in-time pagination over a result set that changes mid-walk.
 */
import { randomUUID } from 'node:crypto';
import ExcelJS from 'exceljs';
import { parquetReadObjects } from 'hyparquet';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { SELECTABLE_COLUMNS } from '../../src/contract/common.js';
import { AuthError, HttpError } from '../../src/index.js';
import { createEngine, generateDataset, LegacyService, MemoryPitStore } from '../../src/engine/index.js';
import { indexMatches } from '../../src/engine/v1/v1-service.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { SearchRequestSchema } from '../../src/contract/v2/search.js';
import { hs256Token, KEYS, raw, startTestServer, testIndex, type TestServer } from './support.js';

const SECRET = 'test-secret-for-hs256-tokens-0001';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })! });
});
afterAll(async () => {
  await server.close();
});

/** A token naming its user by the idp-namespaced claim (the other tests use plain `username`). */
function token(claims: Record<string, unknown> = {}, options: { secret?: string; expiresIn?: string } = {}): Promise<string> {
  return hs256Token(options.secret ?? SECRET, { claims: { username: undefined, 'idp:username': 'ada', ...claims }, ...(options.expiresIn ? { expiresIn: options.expiresIn } : {}) });
}

const searchId = (): string => randomUUID();
const post = (path: string, body: unknown, headers: Record<string, string>) =>
  raw(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('v1 authentication: an API key or a bearer JWT; failures are 403 with a detail', () => {
  test('an API key of the keys file works, with its limits headers', async () => {
    const response = await post('/v1/search', { search_id: searchId(), keywords: { must_one: ['software'] } }, { 'x-api-key': KEYS.tier2 });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-requests-limit')).toBe('50000');
  });

  test('a valid HS256 token works; expired, badly signed, incomplete or absent credentials are 403', async () => {
    const ok = await post('/v1/sublocations', { parent_level: 'all', parent_value: '' }, { authorization: `Bearer ${await token()}` });
    expect(ok.status).toBe(200);
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /Not authenticated/],
      [{ 'x-api-key': 'not-a-key-000000000000' }, /Invalid API key/],
      [{ authorization: `Bearer ${await token({}, { expiresIn: '-1m' })}` }, /expired/],
      [{ authorization: `Bearer ${await token({}, { secret: 'another-secret-000000000000000000' })}` }, /not valid/],
      [{ authorization: `Bearer ${await token({ 'idp:groups': undefined })}` }, /idp:groups/],
      [{ authorization: `Bearer ${await token({ 'idp:username': undefined })}` }, /username/],
      [{ authorization: 'Bearer not.a.jwt' }, /not valid/],
      [{ authorization: `Bearer ${await token({}, { expiresIn: 'never' })}` }, /not valid \(ERR_JWT_CLAIM_VALIDATION_FAILED\)/],
    ];
    for (const [headers, message] of cases) {
      const response = await post('/v1/sublocations', { parent_level: 'all', parent_value: '' }, headers);
      expect([response.status, response.body]).toEqual([403, { detail: expect.stringMatching(message) }]);
    }
  });

  test('a JWKS (ES256 public key) verifies tokens signed with its private key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const withJwks = await startTestServer({ bearer: bearerVerifier({ jwks: { keys: [jwk] } })! });
    try {
      const signed = await new SignJWT({ username: 'bob', 'idp:groups': [] }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setSubject('user-2').setExpirationTime('5m').sign(privateKey);
      const client = withJwks.client(null, { accessToken: signed });
      expect((await client.v1.sublocations({ parent_level: 'all', parent_value: '' })).level).toBe('country');
      const hs = await post('/v1/sublocations', { parent_level: 'all', parent_value: '' }, { authorization: `Bearer ${await token()}` });
      expect(hs.status).toBe(200); // the shared server accepts HS256 …
      const refused = await raw(`${withJwks.url}/v1/sublocations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` }, body: '{"parent_level":"all","parent_value":""}' });
      expect(refused.status).toBe(403); // … this one only its key set
    } finally {
      await withJwks.close();
    }
  });

  test('the client maps a v1 403 to AuthError', async () => {
    const error: unknown = await server.client('not-a-key-000000000000').v1.sublocations({ parent_level: 'all', parent_value: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).status).toBe(403);
  });
});

describe('v1 search', () => {
  test('search_id is echoed; keywords, locations and custom_filters combine; query_type and query describe the query', async () => {
    const id = searchId();
    const result = await server.client(KEYS.tier2).v1.search({
      search_id: id,
      keywords: { must_one: ['software', 'solar'], must_not: ['wind'] },
      locations: { country: ['Deutschland'] },
      custom_filters: { organization_size: ['Micro (0-9)'] },
      columns: ['name', 'description', 'country', 'organization_size', 'main_contact_mail'],
    });
    expect(result.metadata).toMatchObject({ search_id: id, index: 'organizations-*', size: 25, query_type: 'keyword', columns: ['domain', 'name', 'description', 'country', 'organization_size', 'main_contact_mail'] });
    expect(result.data.length).toBeGreaterThan(0);
    for (const row of result.data) {
      expect(row).toMatchObject({ country: 'Deutschland', organization_size: 'Micro (0-9)', main_contact_mail: null });
      expect(typeof row.description).toBe('string');
    }
    expect(result.metadata.query).toMatchObject({ query: { bool: { should: expect.any(Array), minimum_should_match: 1, filter: expect.arrayContaining([{ terms: { country: ['Deutschland'] } }]) } } });
    // The same ranking as v2 for the same query.
    const v2 = testIndex().search({ keywords: { must_any: ['software', 'solar'], must_not: ['wind'] }, filters: { country: ['Deutschland'], organization_size: ['Micro (0-9)'] }, size: 25, columns: ['domain'] });
    expect(result.data.map((row) => row.domain)).toEqual(v2.data.map((row) => row.domain));
    expect(result.metadata.total_hits).toBe(v2.metadata.total_hits);
  });

  test('domains and semantic_input run the vector modes; more than three reference domains are fine in v1', async () => {
    const references = testIndex().search({ keywords: { must_all: ['software'] }, size: 5, columns: ['domain'] }).data.map((row) => row.domain);
    const similar = await server.client(KEYS.tier2).v1.search({ search_id: searchId(), domains: references, size: 10 });
    expect(similar.metadata.query_type).toBe('similarity');
    expect(similar.data.some((row) => references.includes(row.domain))).toBe(false);
    const semantic = await server.client(KEYS.tier2).v1.search({ search_id: searchId(), semantic_input: 'fresh bread and cakes', size: 5 });
    expect(semantic.metadata.query_type).toBe('semantic');
    expect(semantic.metadata.query).toMatchObject({ knn: { field: 'embedding', query_text: 'fresh bread and cakes' } });
  });

  test('bad parameters are 400 with a readable detail in v1 names; unknown indexes are refused', async () => {
    const headers = { 'x-api-key': KEYS.tier2 };
    const cases: [unknown, RegExp][] = [
      [{ keywords: { must_one: ['x'] } }, /search_id: /],
      [{ search_id: 'not-a-uuid', keywords: { must_one: ['x'] } }, /search_id: /],
      [{ search_id: searchId(), keywords: { must_not: ['x'] } }, /keywords/],
      [{ search_id: searchId(), size: 501, keywords: { must_one: ['x'] } }, /size: /],
      [{ search_id: searchId(), domains: ['a.de'], semantic_input: 'x' }, /domains .* or semantic_input, not both/],
      [{ search_id: searchId(), index: 'companies-*', keywords: { must_one: ['x'] } }, /index "companies-\*" matches no index of this service/],
    ];
    for (const [body, message] of cases) {
      const response = await post('/v1/search', body, headers);
      expect([response.status, response.body]).toEqual([400, { detail: expect.stringMatching(message) }]);
    }
    for (const index of ['organizations-*', 'organizations-local', '*', 'org*']) {
      expect((await post('/v1/search', { search_id: searchId(), index, keywords: { must_one: ['software'] } }, headers)).status).toBe(200);
    }
    const client: unknown = await server.client(KEYS.tier2, { validateRequests: false }).v1.search({ search_id: searchId(), index: 'nope' }).catch((e: unknown) => e);
    expect(client).toBeInstanceOf(HttpError);
    expect((client as HttpError).status).toBe(400);
  });
});

describe('point in time: pages of a frozen result list', () => {
  const walk = async (first: Record<string, unknown>, headers: Record<string, string>, url = server.url) => {
    const domains: string[] = [];
    let body = { ...first };
    let pit: string | null = null;
    for (let page = 0; page < 100; page++) {
      const response = await raw(`${url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      expect(response.status).toBe(200);
      const result = response.body as { data: { domain: string }[]; metadata: { pit_id: string | null; search_after: unknown[] | null; total_hits: number } };
      domains.push(...result.data.map((row) => row.domain));
      pit ??= result.metadata.pit_id;
      if (!result.metadata.search_after) return { domains, pit, total: result.metadata.total_hits };
      body = { ...first, pit_id: result.metadata.pit_id, search_after: result.metadata.search_after };
    }
    throw new Error('the walk did not end');
  };

  test('a walk returns every hit exactly once, in the order of one big page', async () => {
    const query = { search_id: searchId(), locations: { country: ['Österreich'] }, size: 20 };
    const { domains, pit, total } = await walk(query, { 'x-api-key': KEYS.tier2 });
    expect(pit).toEqual(expect.any(String));
    const all = testIndex().search({ filters: { country: ['Österreich'] }, size: 500, columns: ['domain'] }).data.map((row) => row.domain);
    expect(domains).toEqual(all);
    expect(total).toBe(all.length);
    expect(new Set(domains).size).toBe(domains.length);
  });

  test('the data changes mid-walk: the PIT still walks the list it froze, a new search sees the new data', async () => {
    const before = generateDataset({ count: 1500, seed: 21, asOf: '2026-11-01' });
    const engine = { index: createEngine(before), error: null };
    const own = await startTestServer({ engine });
    try {
      const headers = { 'content-type': 'application/json', 'x-api-key': KEYS.tier2 };
      const query = { search_id: searchId(), keywords: { must_one: ['GmbH', 'software', 'service'] }, size: 25, columns: ['name'] };
      const first = (await raw(`${own.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify(query) })).body as { data: { domain: string }[]; metadata: { pit_id: string; search_after: unknown[]; total_hits: number } };
      const beforeIndex = createEngine(before);
      const ranking = beforeIndex.rankAll(SearchRequestSchema.parse({ keywords: { must_any: ['GmbH', 'software', 'service'] } }), 10_000);
      const expected = Array.from(ranking.rows, (row) => beforeIndex.store.domain(row));
      // Replace the data: a third of the organizations go, the rest are renamed, new ones arrive.
      const kept = before.filter((_, i) => i % 3 !== 0).map((r) => ({ ...r, name: `${r.name ?? ''} Neu` }));
      // Another seed can give a domain the first already has ("immobilien-berlin.de"): new ones are new domains.
      const known = new Set(before.map((r) => r.domain));
      const after = [...kept, ...generateDataset({ count: 300, seed: 99, asOf: '2026-11-01' }).filter((r) => !known.has(r.domain))];
      engine.index = createEngine(after);
      const walked = [...first.data.map((row) => row.domain)];
      let cursor: unknown[] | null = first.metadata.search_after;
      while (cursor) {
        const page = (await raw(`${own.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ ...query, pit_id: first.metadata.pit_id, search_after: cursor }) })).body as { data: { domain: string; name: string }[]; metadata: { search_after: unknown[] | null } };
        for (const row of page.data) expect(row.name.endsWith(' Neu')).toBe(false); // rows as they were
        walked.push(...page.data.map((row) => row.domain));
        cursor = page.metadata.search_after;
      }
      expect(walked).toEqual(expected);
      expect(walked.length).toBeGreaterThan(500);
      expect(first.metadata.total_hits).toBe(ranking.total);
      expect(new Set(walked).size).toBe(walked.length);
      // Without the PIT, the same query runs on the new data.
      const fresh = (await raw(`${own.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify(query) })).body as { data: { name: string }[] };
      expect(fresh.data.every((row) => row.name.endsWith(' Neu') || !before.some((r) => r.name === row.name))).toBe(true);
    } finally {
      await own.close();
    }
  });

  test('close_pit (query string or body) frees it; a closed, unknown or foreign PIT is a 400 naming it', async () => {
    const headers = { 'x-api-key': KEYS.tier2 };
    const query = { search_id: searchId(), locations: { country: ['Deutschland'] }, size: 5 };
    const first = (await post('/v1/search', query, headers)).body as { metadata: { pit_id: string; search_after: unknown[] } };
    const pit = first.metadata.pit_id;
    // Another caller cannot use it.
    const foreign = await post('/v1/search', { ...query, pit_id: pit, search_after: first.metadata.search_after }, { 'x-api-key': KEYS.admin });
    expect([foreign.status, foreign.body]).toEqual([400, { detail: expect.stringContaining(`pit_id ${pit} has expired or was closed`) }]);
    // A cursor from elsewhere, or another query on this PIT, is refused.
    expect((await post('/v1/search', { ...query, pit_id: pit, search_after: [3, 'nowhere.de'] }, headers)).status).toBe(400);
    expect((await post('/v1/search', { ...query, locations: { country: ['Österreich'] }, pit_id: pit, search_after: first.metadata.search_after }, headers)).body).toEqual({
      detail: `pit_id ${pit} belongs to another query: send the same query on every page`,
    });
    const closeQuery = await raw(`${server.url}/v1/close_pit?pit_id=${encodeURIComponent(pit)}`, { method: 'DELETE', headers });
    expect(closeQuery.body).toEqual({ succeeded: true });
    const again = await raw(`${server.url}/v1/close_pit`, { method: 'DELETE', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ pit_id: pit }) });
    expect(again.body).toEqual({ succeeded: false });
    const used = await post('/v1/search', { ...query, pit_id: pit, search_after: first.metadata.search_after }, headers);
    expect([used.status, used.body]).toEqual([400, { detail: expect.stringContaining(`pit_id ${pit} has expired or was closed`) }]);
    expect((await server.client(KEYS.tier2).v1.closePit('never-opened')).succeeded).toBe(false);
    const missing = await raw(`${server.url}/v1/close_pit`, { method: 'DELETE', headers });
    expect([missing.status, missing.body]).toEqual([400, { detail: expect.stringMatching(/pit_id/) }]);
  });

  test('a PIT expires 5 minutes after its last use (the clock moves, not the test)', async () => {
    const headers = { 'x-api-key': KEYS.tier2 };
    const query = { search_id: searchId(), locations: { country: ['Deutschland'] }, size: 5 };
    const first = (await post('/v1/search', query, headers)).body as { metadata: { pit_id: string; search_after: unknown[] } };
    server.clock.advance(4 * 60_000);
    const second = (await post('/v1/search', { ...query, pit_id: first.metadata.pit_id, search_after: first.metadata.search_after }, headers)).body as { metadata: { search_after: unknown[] } };
    server.clock.advance(4 * 60_000); // 8 minutes after opening, 4 after the last use: alive
    const third = await post('/v1/search', { ...query, pit_id: first.metadata.pit_id, search_after: second.metadata.search_after }, headers);
    expect(third.status).toBe(200);
    server.clock.advance(5 * 60_000 + 1);
    const expired = await post('/v1/search', { ...query, pit_id: first.metadata.pit_id, search_after: second.metadata.search_after }, headers);
    expect(expired.status).toBe(400);
  });
});

describe('v1 sublocations and fetch-market', () => {
  test('child levels of a parent: all → countries, a country → states, a state → its next level with names', async () => {
    const client = server.client(KEYS.tier2);
    const countries = await client.v1.sublocations({ parent_level: 'all', parent_value: '' });
    expect(countries).toMatchObject({ level: 'country', locations: expect.arrayContaining(['Deutschland', 'Österreich']) });
    expect(countries.total_count).toBe(countries.locations.length);
    const states = await client.v1.sublocations({ parent_level: 'country', parent_value: 'deutschland' });
    expect(states.level).toBe('state');
    expect(states.locations).toEqual(expect.arrayContaining(['Bayern', 'Berlin']));
    const bavaria = await client.v1.sublocations({ parent_level: 'state', parent_value: 'Bayern' });
    expect(bavaria).toMatchObject({ level: 'region', locations: expect.arrayContaining(['Oberbayern']) });
    const nrwDistricts = await client.v1.sublocations({ parent_level: 'region', parent_value: 'Köln' });
    expect(nrwDistricts.level).toBe('district');
    // The scoped key sees only its own places.
    const scoped = await server.client(KEYS.scoped).v1.sublocations({ parent_level: 'all', parent_value: '' });
    expect(scoped.locations).toEqual(['Österreich']);
    const lowest = await post('/v1/sublocations', { parent_level: 'municipality', parent_value: 'Wien' }, { 'x-api-key': KEYS.tier2 });
    expect([lowest.status, lowest.body]).toEqual([400, { detail: 'municipality is the lowest level: it has no sublocations' }]);
  });

  test('fetch-market: rows, counts, missing domains and a timestamp', async () => {
    const known = testIndex().search({ filters: { country: ['Deutschland'] }, size: 3, columns: ['domain'] }).data.map((row) => row.domain);
    const result = await server.client(KEYS.tier2).v1.fetchMarket({ domains: [...known, 'missing.example'], columns: ['name', 'description'] });
    expect(result.data.map((row) => row.domain)).toEqual(known);
    expect(result.metadata).toMatchObject({ total_fetched: 3, domains_requested: 4, domains_found: 3, missing_domains: ['missing.example'], index: 'organizations-*', columns: ['domain', 'name', 'description'] });
    expect(new Date(result.metadata.timestamp).toISOString()).toBe(result.metadata.timestamp);
  });
});

describe('v1 download: tsv, xlsx and parquet files behind signed links, read back with real readers', () => {
  const ALL_COLUMNS = [...SELECTABLE_COLUMNS.filter((c) => c !== 'domain'), 'description', 'main_contact_mail', 'main_contact_number'] as const;
  const query = { keywords: { must_one: ['software', 'bakery'] }, locations: { country: ['Deutschland'] } };
  const headers = { 'x-api-key': KEYS.tier2 };

  /** The rows /v1/search gives for the same query: what every file must hold, column by column. */
  async function expectedRows(): Promise<Record<string, unknown>[]> {
    const result = await server.client(KEYS.tier2).v1.search({ search_id: searchId(), ...query, columns: [...ALL_COLUMNS], size: 10 });
    return result.data;
  }

  async function download(format: 'tsv' | 'xlsx' | 'parquet' | undefined, extra: Record<string, unknown> = {}) {
    const body = { search_info: { search_id: 'my-search', query }, columns: [...ALL_COLUMNS], ...(format ? { download_format: format } : {}), ...extra };
    const response = await post('/v1/download', body, headers);
    expect(response.status).toBe(200);
    const result = response.body as { download_url: string; metadata: Record<string, unknown> };
    const file = await fetch(result.download_url);
    expect(file.status).toBe(200);
    return { result, file, bytes: Buffer.from(await file.arrayBuffer()) };
  }

  const columns = ['domain', ...ALL_COLUMNS];
  /** A value as a spreadsheet cell shows it: lists joined with "; ". */
  const asCell = (value: unknown): unknown => (Array.isArray(value) ? value.join('; ') : value);

  test('tsv (the default): header and rows as /v1/search returns them; the metadata of the spec', async () => {
    const { result, file, bytes } = await download(undefined, { download_id: 'report-1' });
    expect(file.headers.get('content-type')).toBe('text/tab-separated-values; charset=utf-8');
    expect(result.metadata).toMatchObject({
      download_id: 'report-1',
      user_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      file_path: expect.stringMatching(/^downloads\/key-[0-9a-f]{16}\/report-1\.tsv$/),
      total_fetched: 10,
      index: 'organizations-*',
      download_format: 'tsv',
      query_type: 'text',
    });
    expect(result.metadata.total_hits as number).toBeGreaterThan(10);
    const lines = bytes.toString('utf8').replace(/\n$/, '').split('\n').map((line) => line.split('\t'));
    expect(lines[0]).toEqual(columns);
    const want = await expectedRows();
    // A reader removes the one apostrophe that marks a text cell (limits-and-safety.md, downloads).
    const read = lines.slice(1).map((cells) => cells.map((cell) => (cell.startsWith("'") ? cell.slice(1) : cell)));
    expect(read).toEqual(want.map((row) => columns.map((c) => (row[c] === null || row[c] === undefined ? '' : String(asCell(row[c]))))));
  });

  test('xlsx round-trips every column (read with exceljs)', async () => {
    const { file, bytes } = await download('xlsx');
    expect(file.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Results')!;
    const values = (r: number) => columns.map((_, c) => sheet.getRow(r).getCell(c + 1).value ?? null);
    expect(values(1)).toEqual(columns);
    const want = await expectedRows();
    want.forEach((row, i) => {
      expect(values(i + 2)).toEqual(columns.map((c) => asCell(row[c] ?? null)));
    });
    expect(sheet.rowCount).toBe(11);
  });

  test('parquet round-trips every column with its type (read with hyparquet)', async () => {
    const { bytes } = await download('parquet');
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const rows = await parquetReadObjects({ file: buffer });
    const want = await expectedRows();
    expect(rows).toHaveLength(want.length);
    // summary_keywords is a JSON column holding the list once (hyparquet decodes it; pyarrow reads the JSON text).
    rows.forEach((row: Record<string, unknown>, i: number) => {
      expect(row).toEqual(Object.fromEntries(columns.map((c) => [c, want[i]![c] ?? null])));
    });
    expect(Array.isArray(rows.find((row: Record<string, unknown>) => row.summary_keywords !== null)?.summary_keywords)).toBe(true);
    expect(typeof rows.find((row: Record<string, unknown>) => row.lat !== null)?.lat).toBe('number');
  });

  test('vector and market downloads; size at most 10; one of search_info and market_info', async () => {
    const vector = (await post('/v1/download', { search_info: { search_id: 's', query: { semantic_input: 'fresh bread' } } }, headers)).body as { metadata: { query_type: string; total_fetched: number } };
    expect(vector.metadata).toMatchObject({ query_type: 'vector', total_fetched: 10 });
    const domains = testIndex().search({ filters: { country: ['Österreich'] }, size: 12, columns: ['domain'] }).data.map((row) => row.domain);
    const market = (await post('/v1/download', { market_info: { market_id: 'm1', market: ['unknown.example', ...domains] } }, headers)).body as { download_url: string; metadata: { query_type: string; total_hits: number; total_fetched: number } };
    expect(market.metadata).toMatchObject({ query_type: 'market', total_hits: 12, total_fetched: 10 });
    const text = await (await fetch(market.download_url)).text();
    expect(text.trimEnd().split('\n').slice(1).map((line) => line.split('\t')[0])).toEqual(domains.slice(0, 10));
    const tooBig = await post('/v1/download', { market_info: { market_id: 'm1', market: domains }, size: 11 }, headers);
    expect([tooBig.status, tooBig.body]).toEqual([400, { detail: expect.stringMatching(/size: /) }]);
    const both = await post('/v1/download', { market_info: { market_id: 'm1', market: domains }, search_info: { search_id: 's', query } }, headers);
    expect([both.status, both.body]).toEqual([400, { detail: expect.stringMatching(/exactly one of search_info and market_info/) }]);
    const badId = await post('/v1/download', { market_info: { market_id: 'm1', market: domains }, download_id: '../etc/passwd' }, headers);
    expect([badId.status, badId.body]).toEqual([400, { detail: expect.stringMatching(/download_id may hold/) }]);
  });

  test('a tampered, truncated, foreign-path or expired link is a 403', async () => {
    const { result } = await download('tsv');
    const url = new URL(result.download_url);
    const signature = url.searchParams.get('signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3_600_000));
    const otherFile = new URL(url.href.replace(/\/[^/?]+\.tsv/, '/another.tsv'));
    const traversal = `${url.origin}/v1/files/downloads/../signing.key?${url.searchParams.toString()}`;
    for (const link of [tampered.href, longer.href, otherFile.href, traversal, `${url.origin}${url.pathname}`]) {
      const response = await raw(link);
      expect([response.status, response.body]).toEqual([403, { detail: expect.any(String) }]);
    }
    server.clock.advance(60 * 60_000 + 1);
    const expired = await raw(url.href);
    expect([expired.status, expired.body]).toEqual([403, { detail: 'this download link has expired: ask /v1/download for a new one' }]);
  });
});

describe('v1 limits at the edges', () => {
  test('an index pattern of many stars is matched without backtracking blow-up', async () => {
    // With a backtracking regular expression 40 stars would take longer than jest's timeout; now it is instant.
    const response = await post('/v1/search', { search_id: searchId(), index: `${'*'.repeat(40)}X`, keywords: { must_one: ['software'] } }, { 'x-api-key': KEYS.tier2 });
    expect(response.status).toBe(400);
    expect(indexMatches('o*g*n*z*t*o*s-*l')).toBe(true);
    expect(indexMatches('organizations-')).toBe(false);
  });

  test('v1 rows count against the result quota like v2: a search page is cut, a market fetch that could pass it is a 429', async () => {
    const own = await startTestServer({ keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyResults: 7, burst: 100, ratePerSecond: 100 } } } });
    try {
      const headers = { 'content-type': 'application/json', 'x-api-key': KEYS.tier1 };
      const page = await raw(`${own.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ search_id: searchId(), locations: { country: ['Deutschland'] }, size: 500 }) });
      expect((page.body as { data: unknown[] }).data).toHaveLength(7);
      expect(page.headers.get('x-ratelimit-results-remaining')).toBe('0');
      const again = await raw(`${own.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ search_id: searchId(), locations: { country: ['Deutschland'] } }) });
      expect(again.status).toBe(429);
    } finally {
      await own.close();
    }
    const market = await startTestServer({ keys: { keys: [{ key: KEYS.tier1, tier: 'tier_1' }], tiers: { tier_1: { monthlyResults: 2 } } } });
    try {
      const domains = testIndex().search({ filters: { country: ['Deutschland'] }, size: 3, columns: ['domain'] }).data.map((row) => row.domain);
      const response = await raw(`${market.url}/v1/fetch-market`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEYS.tier1 }, body: JSON.stringify({ domains }) });
      expect(response.status).toBe(429);
    } finally {
      await market.close();
    }
  });

  test('one caller cannot push out another caller\'s PITs', async () => {
    let n = 0;
    const newId = (): string => `pit-${n++}`;
    const pits = new MemoryPitStore({ now: () => 0, newId, maxOpen: 60 });
    const legacy = new LegacyService({ now: () => 0, newId, pits });
    const index = testIndex();
    const query = { search_id: searchId(), locations: { country: ['Deutschland'] }, size: 5 };
    const mine = (await legacy.search(query, { id: 'key:a', index })).metadata.pit_id!;
    for (let i = 0; i < 100; i++) await legacy.search(query, { id: 'key:flood', index });
    expect(pits.size).toBeLessThanOrEqual(51);
    expect(await legacy.closePit({ pit_id: mine }, { id: 'key:a', index })).toEqual({ succeeded: true });
  });

  test('download files of callers cannot collide: keys by id, token users by a hash of their sub', async () => {
    const asUser = async (sub: string) => {
      const jwt = await hs256Token(SECRET, { sub, groups: [] });
      const response = await post('/v1/download', { market_info: { market_id: 'm', market: ['a.de'] }, download_id: 'same' }, { authorization: `Bearer ${jwt}` });
      return (response.body as { metadata: { file_path: string } }).metadata.file_path;
    };
    const paths = [await asUser('..'), await asUser('a@b'), await asUser('a_b')];
    for (const path of paths) expect(path).toMatch(/^downloads\/user-[0-9a-f]{16}\/same\.tsv$/);
    expect(new Set(paths).size).toBe(3);
  });
});

test('bearer users have no quota but a rate: bursts of 10, then 429 with Retry-After until a token is back', async () => {
  const own = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })! });
  try {
    const jwt = await token({}, {});
    const send = () => raw(`${own.url}/v1/sublocations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` }, body: '{"parent_level":"all","parent_value":""}' });
    for (let i = 0; i < 10; i++) expect((await send()).status).toBe(200);
    const limited = await send();
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1']);
    expect(limited.body).toEqual({ detail: expect.stringMatching(/a signed-in user may send 5 requests per second/) });
    own.clock.advance(200);
    expect((await send()).status).toBe(200);
  } finally {
    await own.close();
  }
});
