/**
 * The Excel custom functions (addin/functions/functions.ts) end to end: called as Excel calls them
 * (arguments as rows of cells, optional ones null) through a stand-in CustomFunctions / OfficeRuntime
 * (see excel-stand-in.ts), against the real server on a loopback port — tables, error cells, batching
 * (requests counted at the server), caching, and every cell settled when the service fails.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { installExcelStandIn, installOfficeRequirements, StandInExcelError, type StandInStorage } from './excel-stand-in.js';
import { cellValueProblems } from './cell-value-shape.js';
import { CARD_COLUMNS, isOrgCard } from '../../src/sheet/org-card.js';
import { cellBytes } from '../../src/sheet/formula-steps.js';
import { orgEntity } from '../../addin/entity.js';
import type { OrganizationRow } from '../../src/contract/v2/rows.js';
import { hs256Token, KEYS, startTestServer, type TestServer } from '../server/support.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { ResultCache } from '../../src/sheet/cache.js';
import { SheetFunctions } from '../../src/sheet/functions.js';
import { DEFAULT_CONNECTION, type Connection } from '../../src/sheet/connection.js';
import { orgAsk, orgFetch, orgSearch, orgStats } from '../../addin/functions/functions.js';
import { addinRuntime } from '../../addin/page-runtime.js';

// The functions read the Office globals on first call, so installing them here is early enough.
const storage: StandInStorage = installExcelStandIn();

let server: TestServer;
const seen: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  server.app.server.on('request', (request: { method?: string; url?: string }) => seen.push(`${request.method ?? ''} ${request.url ?? ''}`));
});
afterAll(() => server.close());

async function connect(connection: Partial<Connection>): Promise<void> {
  await addinRuntime().setConnection({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: server.url, apiKey: KEYS.tier2, ...connection });
  await addinRuntime().functions.clearCache();
  seen.length = 0;
}

const cell = (value: unknown): unknown[][] => [[value]];
/** The top-left cell of a result: where a whole-call error lands. */
const firstCell = (table: unknown[][]): StandInExcelError | undefined => table[0]?.[0] as StandInExcelError | undefined;
const requests = (path: string): number => seen.filter((line) => line.includes(path)).length;

describe('ORG.SEARCH', () => {
  beforeEach(() => connect({}));

  test('spills a header row and the rows the service returns for the same body', async () => {
    const table = await orgSearch(cell('solar'), cell('country=Deutschland'), cell('domain, name, country'), cell('size=5'));
    const expected = await server.client(KEYS.tier2).search({ keywords: { must_any: ['solar'] }, filters: { country: ['Deutschland'] }, columns: ['domain', 'name', 'country'], size: 5 });
    expect(table[0]).toEqual(['domain', 'name', 'country']);
    expect(table.slice(1)).toEqual(expected.data.map((row) => [row.domain, row.name, row.country]));
    expect(table.length).toBeGreaterThan(1);
  });

  test('every search input can be written: keyword syntax, describe, similar_to with modifiers, ranges for filters and options', async () => {
    const [first] = (await orgSearch(cell(''), cell('country=Deutschland'), cell('domain'), cell('size=1; headers=0'))) as string[][];
    const anchor = first?.[0] ?? '';
    expect(anchor).toMatch(/\./);
    const table = await orgSearch(
      cell('software +cloud -hardware'),
      [['country', 'Deutschland'], ['organization_size', 'Small, medium-sized']],
      [['domain', 'name', 'organization_size']],
      [['similar_to', anchor], ['boost', 'analytics'], ['weight', 'strong'], ['balance', 0.7], ['min_score', 0], ['dedup', true], ['size', 3], ['excludes', 'nothing-here.example']],
    );
    expect(table[0]).toEqual(['domain', 'name', 'organization_size']);
    for (const row of table.slice(1)) expect(['Small (10-49)', 'Medium-sized (50-249)']).toContain(row[2]);
  });

  test('size above 500 walks search_after pages: 1,200 rows in 3 requests, the same rows a client walk gets; recalculation asks nothing', async () => {
    const table = await orgSearch(cell(''), cell('organization_type=Company'), cell('domain'), cell('size=1200'));
    expect(table).toHaveLength(1_201);
    expect(requests('/v2/search')).toBe(3);
    const { rows } = await server.client(KEYS.tier2).searchAll({ filters: { organization_type: ['Company'] }, columns: ['domain'], size: 500 }, { maxRows: 1_200 });
    const domains: unknown[] = table.slice(1).map((row: unknown[]) => row[0]);
    expect(domains).toEqual(rows.map((row) => row.domain));
    expect(new Set(domains).size).toBe(1_200);
    const before = requests('/v2/search');
    await orgSearch(cell(''), cell('organization_type=Company'), cell('domain'), cell('size=1200'));
    expect(requests('/v2/search')).toBe(before);
  });

  test('bad arguments are #VALUE! naming the bad part; a 422 points at the field', async () => {
    const cases: [unknown[][], unknown[][] | undefined, unknown[][] | undefined, RegExp][] = [
      [cell('solar'), cell('contry=Germany'), undefined, /filters: unknown filter "contry" — did you mean "country"\?/],
      [cell('solar'), undefined, cell('name, contry'), /columns: unknown field "contry"/],
      [cell('-coal'), undefined, undefined, /query: .*needs at least one word/],
      [cell('{"size": '), undefined, undefined, /query: is not valid JSON/],
      [cell('solar'), cell('register_date_from=31.12.2020'), undefined, /register_date_from must be a date/],
    ];
    for (const [query, filters, columns, message] of cases) {
      const error = ((await orgSearch(query, filters, columns)) as StandInExcelError[][])[0]?.[0];
      expect(error).toBeInstanceOf(StandInExcelError);
      expect(error?.code).toBe('#VALUE!');
      expect(error?.message).toMatch(message);
    }
    const fromContract = firstCell(await orgSearch(cell('{"min_score": 2, "keywords": {"must_any": ["solar"]}}')));
    expect(fromContract).toEqual(new StandInExcelError('#VALUE!', 'min_score: Input should be less than or equal to 1'));
    // A JSON body's size has the size option's bounds: one cell may not walk the whole index.
    expect(firstCell(await orgSearch(cell('{"size": 1000000, "filters": {"organization_type": ["Company"]}}')))).toEqual(new StandInExcelError('#VALUE!', 'query: size must be a whole number from 1 to 10000 (got 1000000)'));
    // The client checks the body against the contract before sending: a mistake costs no request, no quota.
    expect(requests('/v2/search')).toBe(0);
  });

  test('a second evaluation of the same formula is served from the cache (zero requests), also after a reload from storage', async () => {
    const args = [cell('solar'), cell('country=Deutschland'), null, cell('size=3')] as const;
    const first = await orgSearch(args[0], args[1], undefined, args[3]);
    expect(requests('/v2/search')).toBe(1);
    expect(await orgSearch(args[0], args[1], undefined, cell('SIZE=3'))).toEqual(first);
    expect(requests('/v2/search')).toBe(1);
    await addinRuntime().cache.flush();
    expect([...storage.items.keys()].some((key) => key.startsWith('orgindex:cache:search'))).toBe(true);
  });
});

describe('requests on their way are shared', () => {
  beforeEach(() => connect({}));

  test('twenty cells with the same formula, calculated together, make one request; so do overlapping ORG.FETCH windows', async () => {
    const tables = await Promise.all(Array.from({ length: 20 }, () => orgSearch(cell('software'), cell('country=Deutschland'), undefined, cell('size=5'))));
    expect(requests('/v2/search')).toBe(1);
    for (const table of tables) expect(table).toEqual(tables[0]);
    const first = orgFetch(cell('company-a.example'));
    await new Promise((resolve) => setTimeout(resolve, 60)); // the first window has closed: its request is on its way (or answered) — no second one either way
    await Promise.all([first, orgFetch(cell('company-a.example'))]);
    expect(requests('/v2/fetch')).toBe(1);
  });
});

describe('ORG.FETCH as=card: organization cards as Excel data types', () => {
  let excelApi = '1.16';
  beforeAll(() => {
    installOfficeRequirements(() => excelApi);
  });
  afterAll(() => Reflect.deleteProperty(globalThis, 'Office'));
  beforeEach(async () => {
    excelApi = '1.16';
    await connect({});
  });

  test('one entity per input cell, shaped as Office.js documents it, its fields the service’s columns', async () => {
    const rows = (await server.client(KEYS.tier2).search({ filters: { country: ['Deutschland'], company_register_court: ['Amtsgericht München'] }, columns: [...CARD_COLUMNS], size: 2 })).data;
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [OrganizationRow, OrganizationRow];
    const table = await orgFetch([[`https://www.${first.domain}/impressum`], [''], ['unknown-card.example'], [second.domain]], undefined, cell('as=card'));
    expect(table).toHaveLength(4);
    expect(table.every((row) => row.length === 1)).toBe(true);
    expect(table[1]?.[0]).toBe('');
    expect(table[2]?.[0]).toEqual(new StandInExcelError('#N/A', 'unknown-card.example is not in the index'));
    for (const [entity, row] of [[table[0]?.[0], first], [table[3]?.[0], second]] as [Excel.EntityCellValue, OrganizationRow][]) {
      expect(cellValueProblems(entity, '1.16')).toEqual([]);
      expect(entity).toMatchObject({ type: 'Entity', text: row.name, layouts: { compact: { icon: 'Building' }, card: { title: { property: 'name' }, subTitle: { property: 'domain' } } } });
      // =A2.name, =A2.company_register_court …: every field a property named as the ORG.FETCH column, the
      // register date a date serial shown as a date (=YEAR(A2.company_register_date) works), the rest text.
      for (const column of CARD_COLUMNS) {
        const value = row[column];
        if (value === null || value === undefined || value === '') expect(entity.properties?.[column]).toBeUndefined();
        else if (column === 'company_register_date') expect(entity.properties?.[column]).toEqual({ type: 'FormattedNumber', basicValue: (Date.parse(value) - Date.UTC(1899, 11, 30)) / 86_400_000, numberFormat: 'yyyy-mm-dd' });
        else expect(entity.properties?.[column]).toMatchObject({ type: 'String', basicValue: value });
      }
      expect(entity.properties?.company_register_date).toMatchObject({ type: 'FormattedNumber', basicValue: expect.any(Number) as unknown });
      expect(entity.properties?.company_register_court).toMatchObject({ basicValue: 'Amtsgericht München' });
      expect(entity.properties?.domain).toMatchObject({ propertyMetadata: { attribution: [{ sourceAddress: `https://${row.domain}`, sourceText: row.domain }] } });
      expect(entity.properties?.nace_section).toMatchObject({ basicValue: expect.stringMatching(/^NACE [A-V]: /) as unknown });
      expect(entity).not.toHaveProperty('basicValue');
      expect(entity).not.toHaveProperty('referencedValues');
    }
    // A recalculation spends nothing.
    const before = requests('/v2/fetch');
    await orgFetch([[first.domain]], undefined, cell('as=card'));
    expect(requests('/v2/fetch')).toBe(before);
  });

  test('fields typed by their columns: numbers Double, true/false Boolean, dates and times date serials; a card without a name shows its domain once', async () => {
    const columns = ['lon', 'new_register_entry', 'created_at', 'company_register_date'] as const;
    const [row] = (await server.client(KEYS.tier2).search({ filters: { country: ['Deutschland'] }, columns: ['domain', ...columns], size: 1 })).data;
    if (!row) throw new Error('no row');
    const [[card]] = (await orgFetch(cell(row.domain), cell(columns.join(', ')), cell('as=card'))) as [[Excel.EntityCellValue]];
    expect(cellValueProblems(card, '1.16')).toEqual([]);
    const serial = (iso: string): number => (Date.parse(iso) - Date.UTC(1899, 11, 30)) / 86_400_000;
    expect(card.properties?.lon).toEqual({ type: 'Double', basicValue: row.lon });
    expect(card.properties?.new_register_entry).toEqual({ type: 'Boolean', basicValue: row.new_register_entry });
    expect(card.properties?.created_at).toEqual({ type: 'FormattedNumber', basicValue: serial(String(row.created_at)), numberFormat: 'yyyy-mm-dd hh:mm:ss' });
    if (row.company_register_date) expect(card.properties?.company_register_date).toEqual({ type: 'FormattedNumber', basicValue: serial(row.company_register_date), numberFormat: 'yyyy-mm-dd' });
    // No name chosen: the domain is the title, and not its subtitle too.
    expect(card.text).toBe(row.domain);
    expect(card.layouts?.card).toMatchObject({ title: { property: 'domain' } });
    expect(card.layouts?.card).not.toHaveProperty('subTitle');
    // The shape check sees a headline shown twice, as the domain as both title and subtitle would be.
    expect(cellValueProblems({ ...card, layouts: { card: { title: row.domain, subTitle: { property: 'domain' } } } }, '1.16')).toEqual(['value.layouts.card.subTitle: shows what the title shows (the card would show it twice)']);
  });

  test('the payload cap counts a card at or above its JSON, and not far above (the sample’s cards, about 1.7 KB each)', async () => {
    const rows = (await server.client(KEYS.tier2).search({ filters: { country: ['Deutschland'] }, columns: ['domain'], size: 300 })).data;
    const cards = await addinRuntime().functions.cards(rows.map((row) => [row.domain]), null, 'as=card');
    let json = 0;
    let counted = 0;
    for (const [card] of cards) {
      if (!isOrgCard(card)) throw new Error('every domain is in the index');
      const size = JSON.stringify(orgEntity(card)).length;
      expect(cellBytes(card)).toBeGreaterThanOrEqual(size);
      json += size;
      counted += cellBytes(card);
    }
    expect(counted / json).toBeLessThan(1.15);
    expect(json / cards.length).toBeGreaterThan(1_200);
  });

  test('the columns argument chooses the card’s fields; those of no section go under "More"', async () => {
    const [row] = (await server.client(KEYS.tier2).search({ filters: { country: ['Deutschland'] }, columns: ['domain', 'name', 'lat', 'summary_keywords', 'state'], size: 1 })).data;
    if (!row) throw new Error('no row');
    const [[card]] = (await orgFetch(cell(row.domain), cell('name, lat, summary_keywords, state'), cell('as=card'))) as [[Excel.EntityCellValue]];
    expect(cellValueProblems(card, '1.16')).toEqual([]);
    expect(Object.keys(card.properties ?? {}).sort()).toEqual(['domain', 'lat', 'name', 'state', 'summary_keywords']);
    // A number, as a cell holds one: =A2.lat*2 computes.
    expect(card.properties?.lat).toEqual({ type: 'Double', basicValue: row.lat });
    expect(card.properties?.summary_keywords).toMatchObject({ basicValue: (row.summary_keywords ?? []).join('; ') });
    expect(card.layouts?.card?.sections).toEqual([
      { layout: 'List', title: 'Location', properties: ['state'] },
      { layout: 'List', title: 'More', properties: ['lat', 'summary_keywords'] },
    ]);
  });

  test('headers=1 puts a header first; a bad option is #VALUE!', async () => {
    const [known] = (await server.client(KEYS.tier2).search({ filters: { organization_type: ['Company'] }, columns: ['domain'], size: 1 })).data;
    const table = await orgFetch(cell(known?.domain), undefined, cell('as=card; headers=1'));
    expect(table[0]).toEqual(['organization']);
    expect(table[1]?.[0]).toMatchObject({ type: 'Entity' });
    expect(firstCell(await orgFetch(cell(known?.domain), undefined, cell('as=cards')))).toMatchObject({ code: '#VALUE!', message: expect.stringContaining('as') as unknown });
  });

  test('an Excel without data types (below ExcelApi 1.16) gets the columns as values, and the task pane is told once', async () => {
    excelApi = '1.15';
    const [known] = (await server.client(KEYS.tier2).search({ filters: { organization_type: ['Company'] }, columns: ['domain', 'name', 'country'], size: 1 })).data;
    let told = 0;
    const stop = addinRuntime().onCardsFellBack(() => told++);
    const table = await orgFetch(cell(known?.domain), cell('domain, name, country'), cell('as=card'));
    await orgFetch(cell(known?.domain), undefined, cell('as=card'));
    stop();
    expect(table).toEqual([[known?.domain, known?.name, known?.country]]);
    expect(addinRuntime().cardsFellBack).toBe(true);
    expect(told).toBe(1);
  });
});

describe('ORG.FETCH', () => {
  beforeEach(() => connect({}));

  test('=ORG.FETCH(A2:A10001) issues 2 requests; one row per input in order; URLs, e-mails, blanks, misses', async () => {
    const known = (await server.client(KEYS.tier2).search({ filters: { organization_type: ['Company'] }, columns: ['domain'], size: 500 })).data.map((row) => row.domain);
    const domains = Array.from({ length: 6_000 }, (_, i) => `unknown-${i}.example`);
    const column: unknown[][] = [];
    for (let i = 0; i < 10_000; i++) column.push([i < 6_000 ? domains[i] : known[i % known.length]]);
    column[0] = [`https://www.${known[0]}/about?x=1`];
    column[1] = [`sales@${known[1]}`];
    column[2] = [''];
    column[3] = ['not a domain'];
    const table = await orgFetch(column, cell('domain, name'));
    expect(requests('/v2/fetch')).toBe(2);
    expect(table).toHaveLength(10_000);
    expect(table[0]?.[0]).toBe(known[0]);
    expect(table[1]?.[0]).toBe(known[1]);
    expect(table[2]).toEqual(['', '']);
    expect(table[3]?.[0]).toMatchObject({ code: '#VALUE!' });
    expect(table[4]?.[0]).toEqual(new StandInExcelError('#N/A', 'unknown-4.example is not in the index'));
    expect(table[6_000]?.[0]).toBe(known[6_000 % known.length]);
    expect(typeof table[6_000]?.[1]).toBe('string');

    // Recalculation — and a range grown by inserted rows — spends nothing on domains already answered.
    expect(await orgFetch(column, cell('domain, name'))).toEqual(table);
    expect(await orgFetch([...column, [known[3]]], cell('name, domain'))).toHaveLength(10_001);
    expect(requests('/v2/fetch')).toBe(2);
  });

  test('single-cell calls within the window merge into one request, duplicates once', async () => {
    const known = (await server.client(KEYS.tier2).search({ filters: { organization_type: ['Startup'] }, columns: ['domain'], size: 40 })).data.map((row) => row.domain);
    seen.length = 0;
    const cells = await Promise.all([...known, ...known].map((domain) => orgFetch(cell(domain), cell('name, country'))));
    expect(requests('/v2/fetch')).toBe(1);
    expect(cells).toHaveLength(known.length * 2);
    for (const rows of cells) expect(typeof rows[0]?.[0]).toBe('string');
  });

  test('a failing service settles every waiting cell with #N/A and a message (none stays #BUSY!)', async () => {
    await connect({ apiKey: 'not-a-valid-key-000000000000000' });
    const cells = await Promise.all(Array.from({ length: 25 }, (_, i) => orgFetch(cell(`company-${i}.example`))));
    for (const rows of cells) expect(rows[0]?.[0]).toEqual(expect.objectContaining({ code: '#N/A', message: expect.stringMatching(/^Not authorised/) as unknown }));
  });

  test('an unreachable service settles every cell too', async () => {
    await connect({ serviceUrl: 'http://127.0.0.1:9' });
    const cells = await Promise.all(Array.from({ length: 5 }, (_, i) => orgFetch(cell(`company-${i}.example`))));
    for (const rows of cells) expect(rows[0]?.[0]).toEqual(expect.objectContaining({ code: '#N/A', message: expect.stringMatching(/^Cannot reach the OrgIndex service/) as unknown }));
  }, 30_000);
});

describe('ORG.STATS', () => {
  beforeEach(() => connect({}));

  test('value/count table, crosstab with 0 for empty pairs, long layout', async () => {
    const byType = await orgStats(cell('organization_type'), undefined, cell('country=Deutschland'));
    expect(byType[0]).toEqual(['organization_type', 'count']);
    const direct = await server.client(KEYS.tier2).stats({ group_by: 'organization_type', filters: { country: ['Deutschland'] } });
    expect(byType.slice(1)).toEqual(direct.data.map((bucket) => [bucket.organization_type, bucket.count]));

    const crosstab = await orgStats(cell('organization_type'), cell('organization_size'));
    const header = crosstab[0] as string[];
    expect(header[0]).toBe('organization_type \\ organization_size');
    expect(crosstab.slice(1).every((row) => row.slice(1).every((count) => typeof count === 'number'))).toBe(true);

    const long = await orgStats(cell('organization_type'), cell('organization_size'), undefined, cell('layout=long; headers=0'));
    expect(long[0]).toHaveLength(3);
    const total = (table: unknown[][]): number => table.flatMap((row) => row.filter((v): v is number => typeof v === 'number')).reduce((a, b) => a + b, 0);
    expect(total(long)).toBe(total(crosstab.slice(1)));
  });

  test('a missing or unknown dimension is #VALUE!', async () => {
    const missing = firstCell(await orgStats(cell('')));
    expect(missing?.message).toMatch(/^group_by: is required/);
    const unknown = firstCell(await orgStats(cell('contry')));
    expect(unknown?.message).toBe('group_by: unknown field "contry" — did you mean "country"?');
  });
});

describe('ORG.ASK', () => {
  test('with an API key only, the language interface refuses: #N/A saying why', async () => {
    await connect({});
    const answer = firstCell(await orgAsk(cell('example.com'), cell('Do they sell solar panels?')));
    expect(answer?.code).toBe('#N/A');
    expect(answer?.message).toMatch(/^Not authorised/);
  });

  test('on the built-in sample it says a connection is needed; bad arguments are #VALUE!', async () => {
    await addinRuntime().setConnection({ ...DEFAULT_CONNECTION });
    const local = firstCell(await orgAsk(cell('example.com'), cell('Founded when?')));
    expect(local).toMatchObject({ code: '#N/A', message: expect.stringMatching(/^OrgIndex is not configured: answering from a website needs an OrgIndex service/) as unknown });
    const noQuestion = firstCell(await orgAsk(cell('example.com'), cell('')));
    expect(noQuestion).toEqual(new StandInExcelError('#VALUE!', 'question: is required'));
  });
});

describe('the local backend (no key, no server)', () => {
  test('counts the embedded sample (50,000 organizations) with no server and no key', async () => {
    await addinRuntime().setConnection({ ...DEFAULT_CONNECTION });
    const local = await orgStats(cell('organization_type'));
    expect(local[0]).toEqual(['organization_type', 'count']);
    expect(local.length).toBeGreaterThan(2);
    const total = local.slice(1).reduce((sum, row) => sum + Number(row[1]), 0);
    expect(total).toBe(50_000);
  }, 60_000);
});

describe('ORG.ASK against a site (a fixture website on loopback, never the internet)', () => {
  const SECRET = 'addin-ask-test-secret-000000000001';
  let asking: TestServer;
  let site: Server;
  let siteUrl: string;

  beforeAll(async () => {
    site = createServer((request, response) => {
      if (request.url === '/robots.txt') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        return;
      }
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html><head><title>About us</title></head><body><h1>About Acme Solar</h1><p>Acme Solar was founded in 2009 by Jane Doe in Munich. We build **rooftop** solar systems.</p></body></html>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://acme-solar.test:${(site.address() as AddressInfo).port}/`;
    asking = await startTestServer({ bearer: bearerVerifier({ secret: SECRET })!, allowPrivateFetch: true, fetchHosts: { 'acme-solar.test': '127.0.0.1' } });
  });
  afterAll(async () => {
    await asking.close();
    await new Promise((resolve) => site.close(resolve));
  });

  test('the answer in one cell; detail=1 spills answer | confidence | sources; can_answer false is #N/A with the message', async () => {
    await addinRuntime().setConnection({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: asking.url, accessToken: await hs256Token(SECRET) });
    const answer = (await orgAsk(cell(siteUrl), cell('When was the company founded?')))[0]?.[0];
    expect(answer).toContain('Acme Solar was founded in 2009 by Jane Doe in Munich.');
    const detail = await orgAsk(cell(siteUrl), cell('When was the company founded?'), cell(3), cell('detail=1; headers=1'));
    expect(detail[0]).toEqual(['answer', 'confidence', 'sources']);
    expect(typeof detail[1]?.[1]).toBe('number');
    expect(detail[1]?.[2]).toBe('About us');
    const none = firstCell(await orgAsk(cell(siteUrl), cell('What is the airspeed velocity of an unladen swallow?')));
    expect(none).toMatchObject({ code: '#N/A' });
    // links=1: the pages' addresses after their labels, as text a host without data types can show.
    const linked = await orgAsk(cell(siteUrl), cell('When was the company founded?'), cell(3), cell('detail=1; links=1; headers=1'));
    expect(linked[0]).toEqual(['answer', 'confidence', 'sources', 'links']);
    expect(linked[1]?.slice(2)).toEqual(['About us', siteUrl]);
  });

  test('in an Excel with data types, detail=1 gives the sources as a card of links to the pages', async () => {
    installOfficeRequirements(() => '1.16');
    try {
      await addinRuntime().setConnection({ ...DEFAULT_CONNECTION, backend: 'remote', serviceUrl: asking.url, accessToken: await hs256Token(SECRET) });
      const detail = await orgAsk(cell(siteUrl), cell('When was the company founded?'), cell(3), cell('detail=1'));
      const sources = detail[0]?.[2] as Excel.EntityCellValue;
      expect(cellValueProblems(sources, '1.16')).toEqual([]);
      expect(sources).toMatchObject({
        type: 'Entity',
        text: 'About us',
        properties: { 'About us': { type: 'String', basicValue: siteUrl, propertyMetadata: { attribution: [{ sourceAddress: siteUrl, sourceText: 'About us' }] } } },
        layouts: { card: { title: 'Sources', sections: [{ layout: 'List', properties: ['About us'] }] } },
      });
      // The answer itself stays text: a formula can read it.
      expect(typeof detail[0]?.[0]).toBe('string');
    } finally {
      Reflect.deleteProperty(globalThis, 'Office');
    }
  });
});

describe('the payload cap', () => {
  test('a search past the budget ends with a row saying how many rows were left out; a fetch keeps its rows aligned', async () => {
    const functions = new SheetFunctions({
      backend: () => addinRuntime().backend,
      cache: new ResultCache({ now: () => Date.now() }),
      schedule: (run, ms) => setTimeout(run, ms),
      maxPayloadBytes: 2_000,
    });
    await connect({});
    const table = await functions.search('software', null, 'domain, name, summary', 'size=200; min_score=0');
    const last = table[table.length - 1]?.[0];
    expect(last).toMatch(/^… \d+ more rows? not shown: results are capped at 0\.0 MB/);
    expect(table.length).toBeLessThan(40);
    const domains = (await server.client(KEYS.tier2).search({ filters: { organization_type: ['Company'] }, columns: ['domain'], size: 100 })).data.map((row) => [row.domain]);
    const fetched = await functions.fetch(domains, 'domain, summary', null);
    expect(fetched.length).toBeLessThan(100);
    expect(fetched[fetched.length - 1]?.[0]).toMatchObject({ error: '#N/A', message: expect.stringMatching(/^Rows from here on \(\d+ of 100\) not shown: the result would pass Excel's payload limit/) as unknown });
    // Cards (about 1.7 KB each) are counted as Excel receives them: fewer fit than rows of two columns.
    const cards = await functions.cards(domains, null, 'as=card');
    expect(cards.length).toBeLessThan(fetched.length);
    expect(cards[cards.length - 1]?.[0]).toMatchObject({ error: '#N/A', message: expect.stringMatching(/^Rows from here on \(\d+ of 100\) not shown/) as unknown });
    // A whole-column argument ends at its last non-blank cell.
    const column = [...domains.slice(0, 3), ...Array.from({ length: 100_000 }, () => [''])];
    expect(await functions.fetch(column, 'domain', null)).toHaveLength(3);
  });
});
