/**
 * The built sidebar (dist/appsscript/Sidebar.html) in Chromium (the one test/support/browser-setup.cjs found,
 * driven by playwright-core). Its
 * google.script.run is a STAND-IN (Google's page runtime exists only inside Sheets) that forwards each
 * call to the real bundle running in the Apps Script sandbox of harness.ts — so the sidebar talks to the
 * same script, on the embedded sample, that Sheets would run, over a STAND-IN spreadsheet. It renders,
 * builds a filter, previews rows, inserts them as refreshable values and schedules their refresh.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { countOnMap, searchBayernSoftware, searchInPlainWords } from '../ui/search-steps.js';
import { loadBundle, type AppsScriptSandbox } from './harness.js';
import { spreadsheetStandIn } from './spreadsheet-stand-in.js';

const SHOTS = join(process.cwd(), process.env.SCREENSHOT_DIR ?? 'dist/screenshots');
let browser: Browser | undefined;
let sandbox: AppsScriptSandbox;
let spreadsheet: ReturnType<typeof spreadsheetStandIn>;

beforeAll(async () => {
  spreadsheet = spreadsheetStandIn();
  sandbox = loadBundle(undefined, spreadsheet.globals);
  browser = await launchChromium();
}, 60_000);
afterAll(() => browser?.close());

/** The built page in Chromium, its google.script.run forwarding to the sandboxed script; `tab` as the menu sets it. */
async function openSidebar(tab: 'search' | 'refresh', calls: string[], errors: string[]): Promise<Page> {
  if (!browser) throw new Error('Chromium did not start');
  const page = await browser.newPage({ viewport: { width: 300, height: 1100 } });
  page.on('pageerror', (error) => errors.push(error.message));
  // The page is served under a reserved name (HtmlService serves it from Google); nothing else is reachable.
  const sidebarHtml = readFileSync(join(process.cwd(), 'dist/appsscript/Sidebar.html'), 'utf8').replace('data-tab="search"', `data-tab="${tab}"`);
  await page.route(/^https?:\/\//, (route) => (route.request().url() === 'https://sidebar.test/' ? route.fulfill({ body: sidebarHtml, contentType: 'text/html' }) : route.abort()));
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
  return page;
}

test('the sidebar renders on the Sheets host, builds a search against the script and previews rows', async () => {
  const errors: string[] = [];
  const calls: string[] = [];
  const page = await openSidebar('search', calls, errors);
  expect(await page.getByText('built-in sample · Google Sheets').count()).toBe(1);

  await searchBayernSoftware(page);
  expect(await page.getByRole('region', { name: 'Preview rows' }).getByRole('row').count()).toBeGreaterThan(1);
  expect(await page.getByLabel('Formula').innerText()).toBe('=ORGSEARCH("software", "state=Bayern", "domain, name, country", "size=100")');
  expect(calls).toEqual(expect.arrayContaining(['connection', 'filterOptions', 'locationSearch', 'search']));

  await page.screenshot({ path: join(SHOTS, 'sidebar.png'), fullPage: true });
  expect(statSync(join(SHOTS, 'sidebar.png')).size).toBeGreaterThan(10_000);
  expect(errors).toEqual([]);

  // Insert as refreshable values: written at the selected cell (A1 of the stand-in sheet) and saved.
  await page.getByRole('button', { name: 'Insert as refreshable values' }).click();
  await page.getByText("Saved at 'Sheet1'!A1").waitFor({ timeout: 60_000 });
  expect(spreadsheet.sheet.getRange(1, 1, 1, 3).getValues()).toEqual([['domain', 'name', 'country']]);
  // Every hit up to the form's 100 rows, not the 20 of the preview.
  const hits = Number(/^([\d,]+) hits/.exec(await page.getByTestId('preview-summary').innerText())?.[1]?.replace(/,/g, ''));
  expect(hits).toBeGreaterThan(20);
  expect(spreadsheet.sheet.getLastRow()).toBe(1 + Math.min(hits, 100));
  expect(spreadsheet.sheet.getRange(2, 1, Math.min(hits, 100), 1).getValues().every(([domain]) => typeof domain === 'string' && domain.includes('.'))).toBe(true);
  await page.close();
}, 300_000);

test('plain words are understood by the script (nlp_search on its built-in parser), shown as chips and a formula, then searched', async () => {
  const errors: string[] = [];
  const calls: string[] = [];
  const page = await openSidebar('search', calls, errors);
  const formula = await searchInPlainWords(page, 'ORGSEARCH', join(SHOTS, 'sidebar-plain-words.png'));
  expect(formula.startsWith('=ORGSEARCH("bakeries", "municipality=München')).toBe(true);
  // Understanding is one call to the script, and the search runs only after "Use this search".
  expect(calls.filter((op) => op === 'nlpSearch')).toHaveLength(1);
  expect(calls.indexOf('search')).toBeGreaterThan(calls.indexOf('nlpSearch'));
  expect(errors).toEqual([]);
  await page.close();
}, 300_000);

test('counts by state and by country go on the sidebar\'s own map, placed by the script from the built-in geography; no map chart is offered', async () => {
  const errors: string[] = [];
  const calls: string[] = [];
  const page = await openSidebar('search', calls, errors);
  const states = await countOnMap(page, 'state');
  expect(states.circles).toBe(50);
  expect(states.labels).toEqual(expect.arrayContaining(['Bayern', 'Nordrhein-Westfalen', 'Baden-Württemberg']));
  expect(calls).toEqual(expect.arrayContaining(['stats', 'placeCoordinates']));
  expect(await page.getByRole('button', { name: 'Insert table and map chart' }).count()).toBe(0);
  // Every country the sample fills, on the map of Europe.
  const countries = await countOnMap(page, 'country');
  expect(countries.caption).toMatch(/^13 of 13 countries on the map/);
  expect(countries.labels).toEqual(expect.arrayContaining(['Deutschland', 'Österreich', 'Schweiz']));
  await page.screenshot({ path: join(SHOTS, 'sidebar-map.png'), fullPage: true });
  expect(errors).toEqual([]);
  await page.close();
}, 300_000);

test('"Schedule refresh…" opens the Refresh tab: the saved queries, and a schedule saved as one trigger', async () => {
  const errors: string[] = [];
  const page = await openSidebar('refresh', [], errors);
  const list = page.getByRole('list', { name: 'Saved queries' });
  await list.waitFor({ timeout: 60_000 });
  expect(await list.getByRole('listitem').count()).toBe(1);
  expect(await list.getByRole('listitem').innerText()).toMatch(/^'Sheet1'!A1 search · 100 rows\s+Refreshed .*2026.* · ok\s+Remove$/);

  await page.getByRole('combobox', { name: 'Refresh saved queries' }).click();
  await page.getByRole('option', { name: 'Every day' }).click();
  await page.getByRole('combobox', { name: 'At (Europe/Berlin)' }).click();
  await page.getByRole('option', { name: '07:00' }).click();
  await page.getByRole('button', { name: 'Save schedule' }).click();
  await page.getByText('Saved: every day, under your account.').waitFor({ timeout: 60_000 });
  expect(sandbox.triggers.map((trigger) => [trigger.handler, trigger.settings])).toEqual([['orgindexScheduledRefresh', { everyDays: 1, atHour: 7, inTimezone: 'Europe/Berlin' }]]);

  await page.getByRole('button', { name: 'Refresh all now' }).click();
  await page.getByText('1 refreshed, 0 failed.').waitFor({ timeout: 60_000 });
  await page.screenshot({ path: join(SHOTS, 'sidebar-refresh.png'), fullPage: true });
  expect(errors).toEqual([]);
  await page.close();
}, 300_000);
