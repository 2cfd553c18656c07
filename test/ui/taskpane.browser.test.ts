/**
 * The built task pane (dist/addin, made by `npm run build:web` before jest runs) in a real Chromium —
 * the one test/support/browser-setup.cjs found, driven by playwright-core — outside Office: served from loopback, office.js's CDN request
 * refused (no internet in tests; the page then runs its preview host on the local backend). It builds a
 * filter, sees preview rows, and saves screenshots (dist/screenshots; `npm run screenshots` refreshes docs/).
 */
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { KEYS, startTestServer, type TestServer } from '../server/support.js';
import { searchBayernSoftware } from './search-steps.js';

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

beforeAll(async () => {
  if (!existsSync(join(DIST, 'taskpane.html'))) throw new Error('dist/addin is missing: `npm test` builds it (npm run build:web) before jest');
  const server = createServer((request, response) => {
    const file = normalize(join(DIST, decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/')));
    if (!file.startsWith(DIST) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  site = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  // The narrow width of Excel's task pane.
  page = await browser.newPage({ viewport: { width: 360, height: 900 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
}, 60_000);

// Whatever beforeAll got to, is closed: a failed start must not leave jest waiting on an open server.
afterAll(async () => {
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
