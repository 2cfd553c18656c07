/**
 * =ORGASK on the built-in sample, in the built bundle (dist/appsscript/Code.js, `npm run build:web` first):
 * the script reads the website itself through the UrlFetchApp stand-in (real, synchronous HTTP calls) from
 * a fixture site on 127.0.0.1 — never the internet — reachable only through the script's test switches,
 * and answers as the service does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import { localLanguageProvider } from '../../src/engine/language/provider.js';
import { fetchSite } from '../../src/server/web-fetch.js';
import { loadBundle, type AppsScriptSandbox } from './harness.js';

const PAGES = {
  '/': {
    body: `<html><head><title>Acme Solar GmbH</title><script>var tracking = "founded 1850";</script></head><body>
    <nav><a href="/">Home</a></nav>
    <h1>Acme Solar</h1><p>We plan and install photovoltaic systems for homeowners and farms.</p>
    <p><a href="/about">About us</a> · <a href="/contact#form">Contact</a> · <a href="/private/salaries">Staff</a> · <a href="https://elsewhere.example/">Partner</a></p>
  </body></html>`,
  },
  '/about': {
    body: `<html><head><title>About us</title></head><body>
    <p>Acme Solar was founded in 2009 by Jane Doe in Munich. Since then the company has installed more than 4,000 solar systems.</p>
    <p>Our team of 35 electricians and engineers works across Bavaria.</p></body></html>`,
  },
  '/contact': { body: '<html><head><title>Contact</title></head><body><p>Call us on +49 89 123456 or write to info@acme-solar.example.</p><p>Our office is open Monday to Friday from 8 am to 5 pm.</p></body></html>' },
  '/private/salaries': { body: '<html><head><title>Salaries</title></head><body><p>The chief executive earns a secret salary.</p></body></html>' },
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private\n' },
  '/moved': { status: 301, location: '/about' },
};

let site: ChildProcess;
let port = 0;
let siteUrl = '';

beforeAll(async () => {
  site = spawn(process.execPath, [join(__dirname, 'fixture-site.cjs')], { env: { ...process.env, FIXTURE_PAGES: JSON.stringify(PAGES) }, stdio: ['pipe', 'pipe', 'inherit'] });
  port = await new Promise<number>((resolve, reject) => {
    site.stdout?.on('data', (chunk: Buffer) => {
      const found = /port (\d+)/.exec(chunk.toString());
      if (found) resolve(Number(found[1]));
    });
    site.on('exit', (code) => {
      reject(new Error(`the fixture site exited with ${String(code)}`));
    });
  });
  // A reserved name (RFC 2606 .test) pinned to the fixture's address, as the server's tests pin it.
  siteUrl = `http://acme-solar.test:${port}/`;
});
afterAll(() => {
  site.stdin?.end();
});

async function requested(): Promise<string[]> {
  return (await (await fetch(`http://127.0.0.1:${port}/__requested`)).json()) as string[];
}

/** A sandbox whose script properties set the test switches: the fixture's name pinned, loopback allowed. */
function sandbox(switches: { allowPrivate: boolean } = { allowPrivate: true }): AppsScriptSandbox {
  const loaded = loadBundle();
  loaded.scriptProperties.setProperty('orgindex.fetch.hosts', `acme-solar.test=127.0.0.1, down.test=127.0.0.1`);
  if (switches.allowPrivate) loaded.scriptProperties.setProperty('orgindex.fetch.allowPrivate', 'true');
  return loaded;
}

const table = (value: unknown): unknown[][] => value as unknown[][];

test('answers from the site itself on the built-in sample: the page that says it, quoted, with its source; then from the cache', async () => {
  const before = (await requested()).length;
  const sheet = sandbox();
  const answer = table(sheet.call('ORGASK', siteUrl, 'When was the company founded?', 3));
  expect(answer).toHaveLength(1);
  expect(answer[0]?.[0]).toContain('Acme Solar was founded in 2009 by Jane Doe in Munich.');
  // Script text is not page text ("founded 1850" lives in a <script>).
  expect(answer[0]?.[0]).not.toContain('1850');
  const detail = table(sheet.call('ORGASK', siteUrl, 'When was the company founded?', 3, 'detail=1; headers=1'));
  expect(detail[0]).toEqual(['answer', 'confidence', 'sources']);
  expect(detail[1]?.[1]).toEqual(expect.any(Number));
  expect(detail[1]?.[2]).toBe('About us');
  // robots.txt first, then the start page and its same-site links, never another site.
  const paths = (await requested()).slice(before);
  expect(paths.slice(0, 3)).toEqual(['/robots.txt', '/', '/about']);
  expect(sheet.fetched.every((url) => url.startsWith(`http://127.0.0.1:${port}/`))).toBe(true);

  // Recalculation: a new execution over the same document cache reads nothing.
  const again = sandbox();
  for (const [key, value] of sheet.cache.values) again.cache.values.set(key, value);
  expect(again.call('ORGASK', siteUrl, 'When was the company founded?', 3)).toEqual(answer);
  expect(again.fetched).toEqual([]);
}, 60_000);

test('the answer is the service’s /v1/qna body for the same site (same pages, text and answerer)', async () => {
  const question = 'Where is the office and when is it open?';
  const sheet = sandbox();
  const local = JSON.parse(sheet.call('orgindexSidebarCall', 'qna', JSON.stringify({ body: { question, domain: siteUrl, max_pages: 3 } })) as string) as { ok: boolean; value: unknown };
  const service = localLanguageProvider(() => null, Date.now, {
    fetchPages: (domain, maxPages, _signal, asked) => fetchSite(domain, maxPages, { allowPrivate: true, hosts: { 'acme-solar.test': '127.0.0.1' }, ...(asked ? { question: asked } : {}) }),
    countTokens,
  });
  expect(local).toEqual({ ok: true, value: await service.qna(question, siteUrl, 3), quota: null });
}, 60_000);

test('robots.txt Disallow is honoured: the disallowed page is never asked for, so its answer is not found', async () => {
  const before = (await requested()).length;
  const sheet = sandbox();
  expect(() => sheet.call('ORGASK', siteUrl, 'How much does the chief executive earn?', 5)).toThrow(/^#N\/A The website does not seem to answer this question/);
  const paths = (await requested()).slice(before);
  expect(paths).toContain('/robots.txt');
  expect(paths).toContain('/contact');
  expect(paths.some((path) => path.startsWith('/private'))).toBe(false);
}, 60_000);

test('a redirect on the site is followed one checked hop at a time', () => {
  const answer = table(sandbox().call('ORGASK', `${siteUrl}moved`, 'How many electricians and engineers are in the team?', 1, 'detail=1'));
  expect(answer[0]?.[0]).toContain('Our team of 35 electricians and engineers works across Bavaria.');
  expect(answer[0]?.[2]).toBe('About us');
}, 60_000);

test('a site that does not answer: the reason as the cell’s error text, never a crash', async () => {
  // A port that was just free: nothing listens there.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const down = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const sheet = sandbox();
  let thrown: unknown;
  try {
    sheet.call('ORGASK', `http://down.test:${down}/`, 'When was the company founded?');
  } catch (error) {
    thrown = error;
  }
  expect((thrown as Error).message).toMatch(new RegExp(`^#N/A OrgIndex error: Could not read http://down\\.test:${down}/: no page of down\\.test:${down} could be read: Address unavailable: .*ECONNREFUSED`));
  expect(sheet.fetched).toEqual([`http://127.0.0.1:${down}/robots.txt`, `http://127.0.0.1:${down}/`]);
}, 60_000);

test('loopback only through the test switch: without it the fixture site is refused before any request', () => {
  const sheet = sandbox({ allowPrivate: false });
  expect(() => sheet.call('ORGASK', siteUrl, 'When was the company founded?')).toThrow(`#N/A OrgIndex error: Could not read ${siteUrl}: acme-solar.test resolves to a private or local address; fetching it is refused`);
  // A local name or an address is no organization's domain (the contract's check, as the service's 400).
  expect(() => sheet.call('ORGASK', 'http://localhost:9/', 'Who are you?')).toThrow(/^#VALUE! domain: .*no top-level domain/);
  expect(() => sheet.call('ORGASK', 'http://127.0.0.1:9/', 'Who are you?')).toThrow(/^#VALUE! domain: .*IP address/);
  expect(sheet.fetched).toEqual([]);
}, 60_000);
