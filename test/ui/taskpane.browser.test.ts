/**
 * The built task pane (dist/addin, made by `npm run build:web` before jest runs) in a real Chromium —
 * the one test/support/browser-setup.cjs found, driven by playwright-core — outside Office: served from loopback, office.js's CDN request
 * refused (no internet in tests; the page then runs its preview host on the local backend). It builds a
 * filter, sees preview rows, and saves screenshots (dist/screenshots; `npm run screenshots` refreshes docs/).
 * The Connection tab: pre-filled from the document `npm start`'s add-in server offers (answered by the same
 * code, for a real `orgindex serve` on its development defaults) and left alone without it; an empty or
 * scheme-less service URL is refused with a message before anything is sent.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CONNECTION_KEY } from '../../addin/addin-runtime.js';
import { answerDevConnection, DEV_CONNECTION_PATH, devConnectionOf, type DevConnection } from '../../scripts/addin/dev-connection.mjs';
import { DEFAULT_CONNECTION } from '../../src/sheet/connection.js';
import { launchChromium } from '../support/browser.js';
import { spawnServe } from '../support/server-process.js';
import { KEYS, startTestServer, type TestServer } from '../server/support.js';
import { countOnMap, searchBayernSoftware, searchInPlainWords } from './search-steps.js';

const DIST = join(process.cwd(), 'dist/addin');
/** Where screenshots go: dist/screenshots normally; `npm run screenshots` sets docs/ to refresh the committed ones. */
const SHOTS = join(process.cwd(), process.env.SCREENSHOT_DIR ?? 'dist/screenshots');
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.json': 'application/json', '.png': 'image/png', '.xml': 'application/xml' };

let site: Server | undefined;
let origin: string;
let browser: Browser | undefined;
let page: Page;
let api: TestServer | undefined;
const pageErrors: string[] = [];
/** What the next tests close: the second site, serve's process, its state directory. */
const cleanups: (() => Promise<void> | void)[] = [];

/**
 * The built files on a loopback port, as the add-in dev server serves them; with `offered()`, also its
 * /dev-connection.json (as `npm start` does) — read when asked, so the site can start before the server it offers.
 */
async function serveTaskPane(offered: () => DevConnection | null = () => null): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
    const connection = path === DEV_CONNECTION_PATH ? offered() : null;
    if (connection) {
      void answerDevConnection(request, response, connection);
      return;
    }
    const file = normalize(join(DIST, path));
    if (!file.startsWith(DIST) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A free loopback port, for a server that must be told its port in advance (as `npm start -- --port N` does). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A fresh browser profile (no saved connection) at the narrow width of Excel's task pane, the internet refused. */
async function freshContext(): Promise<BrowserContext> {
  if (!browser) throw new Error('Chromium did not start');
  const context = await browser.newContext({ viewport: { width: 360, height: 1000 } });
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  return context;
}

beforeAll(async () => {
  if (!existsSync(join(DIST, 'taskpane.html'))) throw new Error('dist/addin is missing: `npm test` builds it (npm run build:web) before jest');
  const served = await serveTaskPane();
  site = served.server;
  origin = served.origin;
  browser = await launchChromium();
  // The narrow width of Excel's task pane.
  page = await browser.newPage({ viewport: { width: 360, height: 900 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
}, 60_000);

// Whatever beforeAll got to, is closed: a failed start must not leave jest waiting on an open server.
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await api?.close();
  await browser?.close();
  const server = site;
  if (server) await new Promise((resolve) => server.close(resolve));
});

test('opens outside Office on the built-in sample, builds a filter, previews rows, shows the formula', async () => {
  await page.goto(`${origin}/taskpane.html`);
  await page.getByRole('heading', { name: 'OrgIndex' }).waitFor();
  expect(await page.getByText('built-in sample · Browser preview').count()).toBe(1);

  await searchBayernSoftware(page);
  const rows = page.getByRole('region', { name: 'Preview rows' }).getByRole('row');
  expect(await rows.count()).toBeGreaterThan(1);
  const header = await rows.first().innerText();
  expect(header.replace(/\s+/g, ' ').trim()).toBe('domain name country');
  for (const country of await page.getByRole('region', { name: 'Preview rows' }).locator('tbody tr td:nth-child(3)').allInnerTexts()) expect(country).toBe('Deutschland');

  const formula = await page.getByLabel('Formula').innerText();
  expect(formula).toBe('=ORG.SEARCH("software", "state=Bayern", "domain, name, country", "size=100")');
  // Outside Office nothing can be written: the buttons say so instead of failing.
  expect(await page.getByText('Open the add-in in Excel to insert into a sheet.').count()).toBe(1);

  await page.screenshot({ path: join(SHOTS, 'taskpane.png'), fullPage: true });
  expect(statSync(join(SHOTS, 'taskpane.png')).size).toBeGreaterThan(10_000);
  expect(pageErrors).toEqual([]);
}, 400_000);

test('plain words become chips and a formula before anything runs; the chosen chips become the form, and the preview runs', async () => {
  await searchInPlainWords(page, 'ORG.SEARCH', join(SHOTS, 'taskpane-plain-words.png'));
  expect(pageErrors).toEqual([]);
}, 400_000);

test('counts by state and by municipality are drawn on a map in the pane, every counted place that has coordinates', async () => {
  const states = await countOnMap(page, 'state');
  // The 50 biggest buckets: every state of every country the sample fills has a point.
  expect(states.circles).toBe(50);
  expect(states.caption).toMatch(/^50 of 50 states on the map/);
  // The largest are always named, wherever their names have to go.
  expect(states.labels).toEqual(expect.arrayContaining(['Bayern', 'Nordrhein-Westfalen', 'Baden-Württemberg']));
  const germany = await countOnMap(page, 'state', { filters: 'country=Deutschland', caption: /^16 of 16 states on the map/ });
  expect(germany.circles).toBe(16);
  expect(germany.labels).toEqual(expect.arrayContaining(['Bayern', 'Nordrhein-Westfalen', 'Baden-Württemberg']));
  await page.screenshot({ path: join(SHOTS, 'taskpane-map.png'), fullPage: true });
  const towns = await countOnMap(page, 'municipality');
  expect(towns.circles).toBeGreaterThan(20);
  expect(towns.caption).toMatch(/municipalities on the map/);
  // Outside Office there is no map chart to insert: the pane's own map is the map.
  expect(await page.getByRole('button', { name: 'Insert table and map chart' }).count()).toBe(0);
  expect(pageErrors).toEqual([]);
}, 400_000);

test('connects to the real server from the browser (CORS, ky), shows the quota from the response headers, counts by two dimensions', async () => {
  api = await startTestServer({ corsOrigins: [origin] });
  if (!browser) throw new Error('Chromium did not start');
  const context = await browser.newContext({ viewport: { width: 360, height: 1000 } });
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  const remote = await context.newPage();
  const errors: string[] = [];
  remote.on('pageerror', (error) => errors.push(error.message));
  await remote.goto(`${origin}/taskpane.html`);
  await remote.getByRole('tab', { name: 'Connection' }).click();
  await remote.getByRole('radio', { name: 'OrgIndex service' }).check();
  await remote.getByRole('textbox', { name: /Service URL/ }).fill(api.url);
  await remote.getByLabel('API key').fill(KEYS.tier2);
  await remote.getByRole('button', { name: 'Test and save' }).click();
  await remote.getByText(/^Connected and saved: healthy/).waitFor({ timeout: 60_000 });
  // The key is masked, and the quota bars come from the X-RateLimit-* headers CORS exposes.
  expect(await remote.getByLabel('API key').getAttribute('type')).toBe('password');
  await remote.getByRole('progressbar', { name: /^Requests: [\d,]+ of [\d,]+ left$/ }).waitFor();
  expect(await remote.getByRole('progressbar', { name: /^Results: [\d,]+ of [\d,]+ left$/ }).count()).toBe(1);
  expect(await remote.getByText(/^Resets \w{3}, 01 Dec 2026 00:00 UTC$/).count()).toBe(1);
  expect(await remote.getByText('Tier: tier_2').count()).toBe(1);
  await remote.screenshot({ path: join(SHOTS, 'taskpane-connection.png'), fullPage: true });

  // Keyboard: the tab list is reached and moved with the arrow keys.
  await remote.getByRole('tab', { name: 'Connection' }).focus();
  await remote.keyboard.press('ArrowLeft');
  await remote.keyboard.press('Enter');
  expect(await remote.getByRole('tab', { name: 'Stats', selected: true }).count()).toBe(1);
  await remote.getByRole('combobox', { name: 'And by (crosstab, optional)' }).click();
  await remote.getByRole('option', { name: 'organization_size' }).click();
  await remote.getByRole('button', { name: 'Count' }).click();
  const counts = remote.getByRole('region', { name: 'Counts' });
  await counts.waitFor({ timeout: 60_000 });
  expect((await counts.getByRole('columnheader').first().innerText()).trim()).toBe('organization_type \\ organization_size');
  const direct = await api.client(KEYS.tier2).stats({ group_by: 'organization_type', group_by_secondary: 'organization_size', limit: 50 });
  const shown = (await counts.locator('tbody td:not(:first-child)').allInnerTexts()).reduce((sum, text) => sum + Number(text), 0);
  expect(shown).toBe(direct.data.reduce((sum, bucket) => sum + bucket.count, 0));
  await remote.screenshot({ path: join(SHOTS, 'taskpane-stats.png'), fullPage: true });
  expect(errors).toEqual([]);
  await context.close();
}, 400_000);

test("without npm start's document nothing is offered: the Connection tab stays on the built-in sample", async () => {
  const context = await freshContext();
  const pane = await context.newPage();
  const errors: string[] = [];
  pane.on('pageerror', (error) => errors.push(error.message));
  // The pane asks (its page is on this machine), the site has no such document.
  const asked = pane.waitForResponse((response) => response.url().endsWith(DEV_CONNECTION_PATH));
  await pane.goto(`${origin}/taskpane.html`);
  expect((await asked).status()).toBe(404);
  await pane.getByRole('tab', { name: 'Connection' }).click();
  expect(await pane.getByRole('radio', { name: 'Built-in sample (no key, no network)' }).isChecked()).toBe(true);
  expect(await pane.getByRole('textbox', { name: /Service URL/ }).count()).toBe(0);
  expect(await pane.getByText(/npm start's server/).count()).toBe(0);
  expect(await pane.getByText('built-in sample · Browser preview').count()).toBe(1);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);

test('an empty or scheme-less service URL is refused with a clear message before anything is sent', async () => {
  const context = await freshContext();
  const pane = await context.newPage();
  await pane.goto(`${origin}/taskpane.html`, { waitUntil: 'networkidle' });
  await pane.getByRole('tab', { name: 'Connection' }).click();
  await pane.getByRole('radio', { name: 'OrgIndex service' }).check();
  const sent: string[] = [];
  pane.on('request', (request) => sent.push(request.url()));

  await pane.getByRole('button', { name: 'Test and save' }).click();
  await pane.getByText("Enter the service's address, such as http://localhost:8787").waitFor();
  const serviceUrl = pane.getByRole('textbox', { name: /Service URL/ });
  expect(await serviceUrl.evaluate((input) => input === document.activeElement)).toBe(true);
  expect(await serviceUrl.getAttribute('aria-invalid')).toBe('true');
  // The client's message about the derived /v2 URL never shows.
  expect(await pane.getByText(/base URL/).count()).toBe(0);

  await serviceUrl.fill('localhost:8787');
  await pane.getByRole('button', { name: 'Save', exact: true }).click();
  await pane.getByText('Add http:// or https:// in front of the address, such as http://localhost:8787').waitFor();
  await pane.getByRole('button', { name: 'Test and save' }).click();
  await pane.getByText('Add http:// or https:// in front of the address, such as http://localhost:8787').waitFor();

  // Neither to a server nor, through an empty prefix, to the page's own site.
  expect(sent.filter((url) => !url.startsWith(`${origin}/`) || /\/(v1|v2|health)\b/.test(url))).toEqual([]);
  // Nothing was saved: the pane still answers from the sample.
  expect(await pane.getByText('built-in sample · Browser preview').count()).toBe(1);
  expect(await pane.evaluate((key) => window.localStorage.getItem(key), CONNECTION_KEY)).toBeNull();
  await context.close();
}, 120_000);

test("served as by npm start, the Connection tab offers its server pre-filled, Test and save connects; a saved connection wins", async () => {
  let offered: DevConnection | null = null;
  const served = await serveTaskPane(() => offered);
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        served.server.close(() => {
          resolve();
        });
      }),
  );
  const stateDir = mkdtempSync(join(tmpdir(), 'orgindex-npm-start-'));
  cleanups.push(() => {
    rmSync(stateDir, { recursive: true, force: true });
  });
  // The arguments after `npm start --`: serve gets them, and so does the document (scripts/start.mjs).
  const args = ['--port', String(await freePort()), '--state-dir', stateDir, '--count', '2000', '--cors-origin', served.origin, '--log-level', 'silent', '--durability', 'write'];
  // As `npm start` runs it: no keys file (serve makes its development key), no JWT secret.
  const { ORGINDEX_JWT_SECRET: _ignored, ...env } = process.env;
  const serve = await spawnServe({ args, testKeyRate: false, env });
  cleanups.push(async () => {
    await serve.close();
  });
  offered = devConnectionOf(args, { env: {} });
  if (!offered) throw new Error('no connection offered for a fixed port');
  // What serve created on its first run: the key it printed.
  const developmentKey = (JSON.parse(readFileSync(join(stateDir, 'keys.json'), 'utf8')) as { keys: { key: string; name?: string }[] }).keys.find((entry) => entry.name === 'development key')?.key;
  expect(developmentKey).toMatch(/\S{16,}/);

  const context = await freshContext();
  const pane = await context.newPage();
  const errors: string[] = [];
  pane.on('pageerror', (error) => errors.push(error.message));
  const asked = pane.waitForResponse((response) => response.url().endsWith(DEV_CONNECTION_PATH));
  await pane.goto(`${served.origin}/taskpane.html`);
  const answer = await asked;
  expect(answer.status()).toBe(200);
  // Readable by this page only: no CORS header, never cached.
  expect(answer.headers()['access-control-allow-origin']).toBeUndefined();
  expect(answer.headers()['cache-control']).toBe('no-store');

  await pane.getByRole('tab', { name: 'Connection' }).click();
  await pane.getByText(`npm start's server at ${offered.serviceUrl} — Test and save to use it`).waitFor({ timeout: 30_000 });
  expect(offered.serviceUrl).toBe(`http://127.0.0.1:${args[1]!}`);
  expect(await pane.getByRole('radio', { name: 'OrgIndex service' }).isChecked()).toBe(true);
  expect(await pane.getByRole('textbox', { name: /Service URL/ }).inputValue()).toBe(offered.serviceUrl);
  expect(await pane.getByLabel('API key').inputValue()).toBe(developmentKey);
  expect(await pane.getByLabel('Sign-in token (for ORG.ASK)').inputValue()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  // Offered, not saved: the functions still answer from the sample until Test and save.
  expect(await pane.getByText('built-in sample · Browser preview').count()).toBe(1);
  // Not among the committed screenshots: always to dist/.
  await pane.screenshot({ path: join(process.cwd(), 'dist/screenshots/taskpane-connection-offered.png'), fullPage: true });

  await pane.getByRole('button', { name: 'Test and save' }).click();
  await pane.getByText(/^Connected and saved: healthy/).waitFor({ timeout: 60_000 });
  expect(await pane.getByText(`${offered.serviceUrl} · Browser preview`).count()).toBe(1);
  expect(await pane.getByText(/npm start's server/).count()).toBe(0);
  await pane.getByRole('progressbar', { name: /^Requests: [\d,]+ of [\d,]+ left$/ }).waitFor();
  expect(errors).toEqual([]);
  await context.close();

  // A profile with a connection saved — even the built-in sample, reuse changed to 6 hours — keeps it.
  const savedContext = await freshContext();
  await savedContext.addInitScript(
    ([key, value]) => {
      window.localStorage.setItem(key, value);
    },
    [CONNECTION_KEY, JSON.stringify({ ...DEFAULT_CONNECTION, cacheHours: 6 })] as const,
  );
  const saved = await savedContext.newPage();
  const requests: string[] = [];
  saved.on('request', (request) => requests.push(request.url()));
  await saved.goto(`${served.origin}/taskpane.html`, { waitUntil: 'networkidle' });
  await saved.getByRole('tab', { name: 'Connection' }).click();
  expect(await saved.getByRole('radio', { name: 'Built-in sample (no key, no network)' }).isChecked()).toBe(true);
  expect(await saved.getByText(/npm start's server/).count()).toBe(0);
  // Nothing saved is overridden, so the document is not even asked for.
  expect(requests.filter((url) => url.endsWith(DEV_CONNECTION_PATH))).toEqual([]);
  await savedContext.close();
}, 400_000);
