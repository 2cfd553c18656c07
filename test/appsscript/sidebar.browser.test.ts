/**
 * The built sidebar (dist/appsscript/Sidebar.html) in Debian's Chromium (playwright-core). Its
 * google.script.run is a STAND-IN (Google's page runtime exists only inside Sheets) that forwards each
 * call to the real bundle running in the Apps Script sandbox of harness.ts — so the sidebar talks to the
 * same script, on the embedded sample, that Sheets would run. It renders, builds a filter, previews rows.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { searchBayernSoftware } from '../ui/search-steps.js';
import { loadBundle, type AppsScriptSandbox } from './harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(process.cwd(), process.env.SCREENSHOT_DIR ?? 'dist/screenshots');
let browser: Browser;
let sandbox: AppsScriptSandbox;

beforeAll(async () => {
  sandbox = loadBundle();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);
afterAll(() => browser.close());

test('the sidebar renders on the Sheets host, builds a search against the script and previews rows', async () => {
  const page = await browser.newPage({ viewport: { width: 300, height: 1100 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // The page is served under a reserved name (HtmlService serves it from Google); nothing else is reachable.
  const sidebarHtml = readFileSync(join(process.cwd(), 'dist/appsscript/Sidebar.html'), 'utf8');
  await page.route(/^https?:\/\//, (route) => (route.request().url() === 'https://sidebar.test/' ? route.fulfill({ body: sidebarHtml, contentType: 'text/html' }) : route.abort()));
  const calls: string[] = [];
  await page.exposeFunction('forwardToScript', (op: string, payload: string) => {
    calls.push(op);
    return sandbox.call('orgindexSidebarCall', op, payload) as string;
  });
  // google.script.run as the page sees it: chained handlers, the call answered asynchronously.
  await page.addInitScript(() => {
    const runner = (success: (value: string) => void = () => undefined, failure: (error: Error) => void = () => undefined): unknown => ({
      withSuccessHandler: (handler: (value: string) => void) => runner(handler, failure),
      withFailureHandler: (handler: (error: Error) => void) => runner(success, handler),
      orgindexSidebarCall: (op: string, payload: string) => {
        (window as unknown as { forwardToScript: (op: string, payload: string) => Promise<string> }).forwardToScript(op, payload).then(success, failure);
      },
    });
    (window as unknown as { google: unknown }).google = { script: { run: runner() } };
  });
  await page.goto('https://sidebar.test/');
  await page.getByRole('heading', { name: 'OrgIndex' }).waitFor({ timeout: 60_000 });
  expect(await page.getByText('built-in sample · Google Sheets').count()).toBe(1);

  await searchBayernSoftware(page);
  expect(await page.getByRole('region', { name: 'Preview rows' }).getByRole('row').count()).toBeGreaterThan(1);
  expect(await page.getByLabel('Formula').innerText()).toBe('=ORGSEARCH("software", "state=Bayern", "domain, name, country", "size=100")');
  expect(calls).toEqual(expect.arrayContaining(['connection', 'filterOptions', 'locationSearch', 'search']));

  await page.screenshot({ path: join(SHOTS, 'sidebar.png'), fullPage: true });
  expect(statSync(join(SHOTS, 'sidebar.png')).size).toBeGreaterThan(10_000);
  expect(errors).toEqual([]);
}, 300_000);
