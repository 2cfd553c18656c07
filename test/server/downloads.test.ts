/**
 * /v1/download files against hostile callers and hostile data: spreadsheet formulas in TSV cells, files
 * that outlive their links, callers that write without end, and a Host header that would choose the
 * host of the links handed out. A real server on loopback with a movable clock.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { createEngine, generateDataset, OrganizationRecordSchema, type Engine, type OrganizationRecordInput } from '../../src/engine/index.js';
import type { DownloadContent } from '../../src/engine/v1/v1-service.js';
import { serve } from '../../src/cli/serve.js';
import type { ServerOptions } from '../../src/server/app.js';
import { bearerVerifier } from '../../src/server/bearer.js';
import { Database } from '../../src/server/database/database.js';
import { PgDownloadStore } from '../../src/server/database/pg-download-store.js';
import { DirectoryDownloadStore, DOWNLOAD_LINK_TTL_MS, tsvCell, type DownloadLimits } from '../../src/server/downloads.js';
import { usePostgres } from '../support/postgres.js';
import { hs256Token, KEYS, raw, startTestServer, TestClock, type TestServer } from './support.js';

const SECRET = 'test-secret-for-hs256-tokens-0001';
const HYPERLINK = '=HYPERLINK("http://x","y")';

/** Rows a spreadsheet would run as formulas, or whose text would break a naive TSV row apart. */
const HOSTILE: OrganizationRecordInput[] = [
  { domain: 'formula.example', name: HYPERLINK, summary: '+cmd|\' /C calc\'!A0', summary_keywords: ['@SUM(1+1)*cmd', 'plain'], address: '-2+3', lat: 40.4, lon: -3.7, country: 'Deutschland' },
  { domain: 'breaker.example', name: '"unclosed quote', summary: 'line one\nline two\tcolumn two\r\n=1+1', address: '\t=1+1', country: 'Deutschland' },
  { domain: 'spaced.example', name: '  =1+1', summary: '\r@cmd', address: 'a "quoted" word', country: 'Deutschland' },
  { domain: 'fullwidth.example', name: '＝1+1', summary: 'A plain, harmless; description - with dashes', country: 'Deutschland' },
];

/** Codes and classes a spreadsheet would read as numbers or dates, beside real numbers that must stay numbers. */
const CODES: OrganizationRecordInput[] = [
  { domain: 'codes.example', name: '1860', nace_code: '62.10', region_code: '083', district_code: '01067', municipality_code: '08315016', employee_class: '5-9', company_register_id: '12345678901234567890', company_register_date: '2019-05-27', lat: 51.05, lon: 13.74, new_register_entry: true, country: 'Deutschland' },
  { domain: 'quoted.example', name: "'s-Hertogenbosch Bakery", nace_code: '01.10', employee_class: '250-499', revenue_class: '< 1 Mio. EUR', address: 'Hauptstraße 1, 01067 Dresden', lat: -3.5, lon: 0, country: 'Deutschland' },
];

let hostileIndex: Engine | null = null;
function index(): Engine {
  hostileIndex ??= createEngine([...generateDataset({ count: 200, seed: 3, asOf: '2026-11-01' }), ...[...HOSTILE, ...CODES].map((row) => OrganizationRecordSchema.parse(row))]);
  return hostileIndex;
}

/** A server on loopback over `stateDir` (a new one unless given: a restart reuses the old one). */
function start(options: Partial<ServerOptions> & { stateDir?: string; clock?: TestClock } = {}): Promise<TestServer> {
  const { stateDir, clock, ...server } = options;
  return startTestServer({ engine: { index: index(), error: null }, bearer: bearerVerifier({ secret: SECRET })!, ...(stateDir ? { stateDir } : {}), ...(clock ? { clock } : {}), server });
}

const download = (server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = { 'x-api-key': KEYS.tier2 }) =>
  raw(`${server.url}/v1/download`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const market = (downloadId: string, extra: Record<string, unknown> = {}) => ({ market_info: { market_id: 'm', market: ['formula.example'] }, download_id: downloadId, ...extra });

interface Answer {
  download_url: string;
  metadata: { file_path: string };
}

describe('TSV cells a spreadsheet would evaluate are neutralised; no value breaks the row structure', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server.close();
  });

  const columns = ['name', 'description', 'summary_keywords', 'address', 'lat', 'lon'];

  async function tsvOf(domains: string[]): Promise<string> {
    const response = await download(server, { market_info: { market_id: 'm', market: domains }, columns, download_format: 'tsv' });
    expect(response.status).toBe(200);
    const file = await fetch((response.body as Answer).download_url);
    expect(file.status).toBe(200);
    return file.text();
  }

  test('a served =HYPERLINK(…) name comes back as text, read with a quote-aware TSV reader as spreadsheets read it', async () => {
    const text = await tsvOf(['formula.example']);
    const parsed = Papa.parse<string[]>(text.replace(/\n$/, ''), { delimiter: '\t', quoteChar: '"' });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual([
      ['domain', ...columns],
      ['formula.example', `'${HYPERLINK}`, "'+cmd|' /C calc'!A0", "'@SUM(1+1)*cmd; plain", "'-2+3", '40.4', '-3.7'],
    ]);
  });

  test('tabs, line breaks and a leading quote inside values cannot add rows or columns; every text cell is inert', async () => {
    const domains = HOSTILE.map((row) => row.domain);
    const text = await tsvOf(domains);
    // A naive reader (split on line breaks and tabs) and a quote-aware one see the same grid.
    const naive = text.replace(/\n$/, '').split('\n').map((line) => line.split('\t'));
    expect(naive).toHaveLength(1 + HOSTILE.length);
    for (const line of naive) expect(line).toHaveLength(1 + columns.length);
    const parsed = Papa.parse<string[]>(text.replace(/\n$/, ''), { delimiter: '\t', quoteChar: '"' });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toHaveLength(1 + HOSTILE.length);
    const byDomain = new Map(parsed.data.slice(1).map((row) => [row[0], row]));
    expect(byDomain.get('breaker.example')).toEqual(['breaker.example', '"unclosed quote', 'line one line two column two =1+1', '', "' =1+1", '', '']);
    expect(byDomain.get('spaced.example')).toEqual(['spaced.example', "'  =1+1", "' @cmd", '', 'a "quoted" word', '', '']);
    expect(byDomain.get('fullwidth.example')?.slice(0, 3)).toEqual(['fullwidth.example', "'＝1+1", 'A plain, harmless; description - with dashes']);
    // No text cell starts (after blanks) with a character a spreadsheet takes as the start of a formula.
    for (const row of parsed.data) {
      for (const [i, cell] of row.entries()) {
        if (columns[i - 1] === 'lat' || columns[i - 1] === 'lon') continue;
        expect(cell).not.toMatch(/^[\s]*[=+\-@＝＋－＠]/);
        expect(cell).not.toMatch(/^[\t\r]/);
      }
    }
  });

  test('the cell rule: numbers stay numbers, text that would be a formula gets a leading apostrophe', () => {
    expect(tsvCell(-3.7)).toBe('-3.7');
    expect(tsvCell(42)).toBe('42');
    expect(tsvCell(true)).toBe('true');
    expect(tsvCell(null)).toBe('');
    expect(tsvCell('-3.7')).toBe("'-3.7");
    expect(tsvCell('+49 30 1234567')).toBe("'+49 30 1234567");
    expect(tsvCell('@user')).toBe("'@user");
    expect(tsvCell('\t=1')).toBe("' =1");
    expect(tsvCell('\r=1')).toBe("' =1");
    expect(tsvCell(['=A1', 'b'])).toBe("'=A1; b");
    expect(tsvCell('Bäckerei Müller - Brot & mehr')).toBe('Bäckerei Müller - Brot & mehr');
    expect(tsvCell('"quoted" at the start')).toBe('"""quoted"" at the start"');
    expect(tsvCell('a "quoted" word')).toBe('a "quoted" word');
  });
});

describe('TSV cells a spreadsheet would read as numbers or dates stay text; numbers stay numbers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server.close();
  });

  const columns = ['name', 'nace_code', 'region_code', 'district_code', 'municipality_code', 'employee_class', 'revenue_class', 'company_register_id', 'company_register_date', 'address', 'lat', 'lon', 'new_register_entry'];

  test('a served file marks codes, classes, long digit strings and dates as text and leaves lat / lon / booleans bare', async () => {
    const domains = CODES.map((row) => row.domain);
    const response = await download(server, { market_info: { market_id: 'm', market: domains }, columns, download_format: 'tsv' });
    expect(response.status).toBe(200);
    const text = await (await fetch((response.body as Answer).download_url)).text();
    const parsed = Papa.parse<string[]>(text.replace(/\n$/, ''), { delimiter: '\t', quoteChar: '"' });
    expect(parsed.errors).toEqual([]);
    const byDomain = new Map(parsed.data.slice(1).map((row) => [row[0], row]));
    expect(byDomain.get('codes.example')).toEqual(['codes.example', "'1860", "'62.10", "'083", "'01067", "'08315016", "'5-9", '', "'12345678901234567890", "'2019-05-27", '', '51.05', '13.74', 'true']);
    expect(byDomain.get('quoted.example')).toEqual(['quoted.example', "''s-Hertogenbosch Bakery", "'01.10", '', '', '', "'250-499", '< 1 Mio. EUR', '', '', 'Hauptstraße 1, 01067 Dresden', '-3.5', '0', '']);

    // A program reading the file removes one leading apostrophe from every text cell that has one, and gets
    // exactly what /v1/fetch-market answers.
    const answer = await raw(`${server.url}/v1/fetch-market`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEYS.tier2 }, body: JSON.stringify({ domains, columns }) });
    expect(answer.status).toBe(200);
    const rows = (answer.body as { data: Record<string, string | number | boolean | null>[] }).data;
    expect(rows).toHaveLength(domains.length);
    for (const row of rows) {
      const cells = byDomain.get(row.domain as string)!;
      const read = cells.map((cell) => (cell.startsWith("'") ? cell.slice(1) : cell));
      expect(read).toEqual(['domain', ...columns].map((column) => (row[column] === null || row[column] === undefined ? '' : String(row[column]))));
    }
  });

  test('the cell rule, value by value', () => {
    // Read as numbers: trailing zeros, leading zeros, more than 15 digits, decimal commas, exponents, percentages.
    for (const code of ['62.10', '01.10', '01067', '083', '12345678901234567890', '1234567890123456', '1,5', '1 234', '1e5', '2.5E-3', '50%', '(5)', '1860']) expect([code, tsvCell(code)]).toEqual([code, `'${code}`]);
    // Read as dates, times or truth values.
    for (const text of ['2019-05-27', '5-9', '10-19', '1/2', '3.10.2020', '12:30', 'TRUE', 'false']) expect([text, tsvCell(text)]).toEqual([text, `'${text}`]);
    // Text that already starts with an apostrophe gets one more, so that the reader's rule is exact.
    expect(tsvCell("'62.10")).toBe("''62.10");
    expect(tsvCell("'t Hooft")).toBe("''t Hooft");
    // Left alone: text with letters, timestamps spreadsheets keep as text, register numbers with a prefix.
    for (const text of ['HRB 1234', 'FN 123456a', '3M Deutschland GmbH', '2024-03-15T12:02:59.838Z', '< 1 Mio. EUR', 'DE-BY', 'x', '', '   ']) expect([text, tsvCell(text)]).toEqual([text, text]);
    // Typed numbers and booleans stay bare.
    expect([tsvCell(62.1), tsvCell(-3.7), tsvCell(0), tsvCell(1234567890123456), tsvCell(false)]).toEqual(['62.1', '-3.7', '0', '1234567890123456', 'false']);
    // Lists: the joined text decides (a spreadsheet reads "01067; 01069" as text); a list of one is its value.
    expect(tsvCell(['01067', '01069'])).toBe('01067; 01069');
    expect(tsvCell(['01067'])).toBe("'01067");
  });
});

describe('download files are deleted when their links expire', () => {
  test('a write sweeps other callers\' expired files; a start sweeps what an earlier run left', async () => {
    const server = await start();
    const stateDir = server.stateDir;
    let open = true;
    try {
      const first = await download(server, market('old'));
      expect(first.status).toBe(200);
      const oldFile = join(stateDir, 'files', (first.body as Answer).metadata.file_path);
      expect(existsSync(oldFile)).toBe(true);
      server.clock.advance(DOWNLOAD_LINK_TTL_MS - 1);
      expect((await download(server, market('other'), { authorization: `Bearer ${await hs256Token(SECRET, { sub: 'other' })}` })).status).toBe(200);
      expect(existsSync(oldFile)).toBe(true); // its link is still valid
      server.clock.advance(2);
      const later = await download(server, market('later'), { authorization: `Bearer ${await hs256Token(SECRET, { sub: 'later' })}` });
      expect(later.status).toBe(200);
      expect(existsSync(oldFile)).toBe(false);
      expect((await raw((first.body as Answer).download_url)).status).toBe(403);
      await server.close({ keepFiles: true });
      open = false;

      // A restart an hour and more later: the remaining files are gone before the first request.
      const clock = new TestClock(server.clock.ms + DOWNLOAD_LINK_TTL_MS + 1);
      const restarted = await start({ stateDir, clock });
      try {
        const owners = readdirSync(join(stateDir, 'files', 'downloads'));
        expect(owners.flatMap((owner) => readdirSync(join(stateDir, 'files', 'downloads', owner)))).toEqual([]);
      } finally {
        await restarted.close();
      }
    } finally {
      if (open) await server.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('a periodic sweep on an unref\'d timer, stopped by close', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const dir = mkdtempSync(join(tmpdir(), 'orgindex-download-store-'));
    const clock = new TestClock();
    try {
      const store = DirectoryDownloadStore.open(dir, clock.now, { sweepIntervalMs: 60_000 });
      const content: DownloadContent = { downloadId: 'a', format: 'tsv', index: 'organizations-*', columns: ['domain'], rows: [{ domain: 'a.de' }], totalHits: 1, queryType: 'market' };
      const { filePath } = await store.write(content, 'key:0123456789abcdef');
      const file = join(dir, filePath);
      expect(existsSync(file)).toBe(true);
      clock.advance(DOWNLOAD_LINK_TTL_MS);
      expect(existsSync(file)).toBe(true); // nothing runs until the timer fires
      jest.advanceTimersByTime(60_000);
      expect(existsSync(file)).toBe(false);
      expect(jest.getTimerCount()).toBe(1);
      store.close();
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const cluster = usePostgres();

/** A server whose download files are kept by the given store: its own directory, or a database servers share. */
type StoreKind = 'directory' | 'database';
async function startWith(kind: StoreKind, downloadLimits: Partial<DownloadLimits> = {}): Promise<TestServer> {
  if (kind === 'directory') return start({ downloadLimits });
  const clock = new TestClock();
  const database = await Database.open(await cluster().createDatabase());
  const server = await start({ clock, downloadStore: await PgDownloadStore.open(database, clock.now, downloadLimits) });
  return {
    ...server,
    close: async (options) => {
      await server.close(options);
      await database.close();
    },
  };
}

describe.each<StoreKind>(['directory', 'database'])('download caps (files in a %s): files alive per caller (API keys and bearer users alike) and for the whole store', (kind) => {
  test('the (cap+1)th file of a caller is a 429 naming the cap and when a slot frees; another caller still succeeds', async () => {
    const server = await startWith(kind, { filesPerCaller: 3 });
    try {
      for (const id of ['a', 'b', 'c']) expect((await download(server, market(id))).status).toBe(200);
      server.clock.advance(60_000);
      const refused = await download(server, market('d'));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: expect.stringMatching(/at most 3 download files/) });
      expect((refused.body as { detail: string }).detail).toMatch(/2026-11-21T11:00:00Z/);
      expect(Number(refused.headers.get('retry-after'))).toBe(59 * 60);
      // Writing an existing download_id again replaces that file: no new slot needed.
      expect((await download(server, market('a'))).status).toBe(200);
      const jwt = await hs256Token(SECRET, { sub: 'someone-else' });
      const bearer = { authorization: `Bearer ${jwt}` };
      for (const id of ['a', 'b', 'c']) expect((await download(server, market(id), bearer)).status).toBe(200);
      const bearerRefused = await download(server, market('d'), bearer);
      expect([bearerRefused.status, bearerRefused.body]).toEqual([429, { detail: expect.stringMatching(/at most 3 download files/) }]);
      // A slot frees when the caller's oldest file expires.
      server.clock.advance(DOWNLOAD_LINK_TTL_MS - 60_000);
      expect((await download(server, market('d'))).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('by default a caller keeps 20 files', async () => {
    const server = await startWith(kind);
    try {
      for (let i = 0; i < 20; i++) expect((await download(server, market(`f${i}`))).status).toBe(200);
      const refused = await download(server, market('f20'));
      expect([refused.status, refused.body]).toEqual([429, { detail: expect.stringMatching(/at most 20 download files/) }]);
    } finally {
      await server.close();
    }
  });

  test('a full store refuses every caller with a 503 until a file expires', async () => {
    const server = await startWith(kind, { filesPerCaller: 3, totalFiles: 4 });
    try {
      for (const id of ['a', 'b', 'c']) expect((await download(server, market(id))).status).toBe(200);
      const bearer = { authorization: `Bearer ${await hs256Token(SECRET, { sub: 'second' })}` };
      expect((await download(server, market('a'), bearer)).status).toBe(200);
      const full = await download(server, market('b'), bearer);
      expect(full.status).toBe(503);
      expect(full.body).toEqual({ detail: expect.stringMatching(/download store is full: at most 4 files/) });
      expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
    const bytes = await startWith(kind, { totalBytes: 10 });
    try {
      const full = await download(bytes, market('a'));
      expect([full.status, full.body]).toEqual([503, { detail: expect.stringMatching(/download store is full: .*10 bytes/) }]);
    } finally {
      await bytes.close();
    }
  });
});

test('servers on one database share their download files: a link from one is served by another, expired or tampered links by none', async () => {
  const clock = new TestClock();
  const url = await cluster().createDatabase();
  const databases = [await Database.open(url), await Database.open(url)];
  const [a, b] = [await start({ clock, downloadStore: await PgDownloadStore.open(databases[0]!, clock.now) }), await start({ clock, downloadStore: await PgDownloadStore.open(databases[1]!, clock.now) })];
  try {
    const answer = await download(a, market('shared'));
    expect(answer.status).toBe(200);
    const link = new URL((answer.body as Answer).download_url);
    const fromB = await fetch(`${b.url}${link.pathname}${link.search}`);
    expect(fromB.status).toBe(200);
    expect(await fromB.text()).toMatch(/^domain\t/);
    // Its first signature character changed to another (always a different one: '0' unless it is '0').
    const tamperedSearch = link.search.replace(/signature=(.)/, (_, first: string) => `signature=${first === '0' ? '1' : '0'}`);
    expect(tamperedSearch).not.toBe(link.search);
    const tampered = await fetch(`${b.url}${link.pathname}${tamperedSearch}`);
    expect(tampered.status).toBe(403);
    clock.advance(DOWNLOAD_LINK_TTL_MS);
    const expired = await raw(`${b.url}${link.pathname}${link.search}`);
    expect([expired.status, expired.body]).toEqual([403, { detail: 'this download link has expired: ask /v1/download for a new one' }]);
  } finally {
    await a.close();
    await b.close();
    await Promise.all(databases.map((database) => database.close()));
  }
});

describe('download_url: never built from what the client sends', () => {
  /** A download with the Host and X-Forwarded-* headers a client chooses (fetch does not let one set Host). */
  function spoofed(url: string): Promise<Answer> {
    const target = new URL(`${url}/v1/download`);
    const body = JSON.stringify(market('spoof'));
    return new Promise((resolve, reject) => {
      const sent = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            host: 'evil.example:6666',
            'x-forwarded-host': 'evil.example',
            'x-forwarded-proto': 'https',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-api-key': KEYS.tier2,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            try {
              expect(response.statusCode).toBe(200);
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer);
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          });
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
  }

  test('without a public URL: the address the request reached, not the Host header', async () => {
    const server = await start();
    try {
      const answer = await spoofed(server.url);
      expect(answer.download_url).not.toMatch(/evil/);
      expect(answer.download_url.startsWith(`${server.url}/v1/files/downloads/`)).toBe(true);
      expect((await fetch(answer.download_url)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('with a public URL: links under it, whatever the Host header says', async () => {
    const server = await start({ publicUrl: 'https://orgindex.example.com/api/' });
    try {
      const answer = await spoofed(server.url);
      expect(answer.download_url).toMatch(/^https:\/\/orgindex\.example\.com\/api\/v1\/files\/downloads\/key-[0-9a-f]{16}\/spoof\.tsv\?expires=\d+&signature=[0-9a-f]{64}$/);
      // The same path and query on this server (as a proxy at the public URL would forward it) is the file.
      const link = new URL(answer.download_url);
      expect((await fetch(`${server.url}${link.pathname.replace(/^\/api/, '')}${link.search}`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('orgindex serve passes its public URL on', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'orgindex-downloads-serve-'));
    try {
      let printed = '';
      const running = await serve({ host: '127.0.0.1', port: 0, count: 200, stateDir, logLevel: 'silent', publicUrl: 'https://orgindex.example.com' }, (line) => {
        printed += `${line}\n`;
      });
      try {
        const key = /development key \(tier_2\): (\S+)/.exec(printed)![1]!;
        const response = await raw(`${running.url}/v1/download`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ market_info: { market_id: 'm', market: ['a.de'] } }) });
        expect(response.status).toBe(200);
        expect((response.body as Answer).download_url).toMatch(/^https:\/\/orgindex\.example\.com\/v1\/files\/downloads\//);
      } finally {
        await running.close();
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('a public URL that is not an http(s) origin with an optional path is refused at start', async () => {
    for (const publicUrl of ['orgindex.example.com', 'ftp://orgindex.example.com', 'https://orgindex.example.com/?a=1', 'https://user:pw@orgindex.example.com']) {
      const outcome = await start({ publicUrl }).then(
        async (server) => {
          await server.close();
          return 'started';
        },
        (error: unknown) => (error as Error).message,
      );
      expect(outcome).toMatch(/public URL/);
    }
  });
});
