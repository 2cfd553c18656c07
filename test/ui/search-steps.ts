/** What a user does in the search builder of the task pane or sidebar, as browser steps both UI tests share. */
import type { Page } from 'playwright-core';

/**
 * Picks "Bayern" from the place autocomplete (the local engine loads and indexes on first use, hence the
 * long waits), adds the keyword chip "software" from the keyboard, and waits for the keyword preview.
 */
export async function searchBayernSoftware(page: Page): Promise<void> {
  await page.getByRole('combobox', { name: 'Places' }).fill('Bayern');
  const bayern = page.getByRole('option', { name: /^Bayern \(state/ });
  await bayern.waitFor({ timeout: 180_000 });
  await bayern.click();
  const anyWords = page.getByRole('textbox', { name: 'Any of these words' });
  await anyWords.fill('software');
  await anyWords.press('Enter');
  await page.getByTestId('preview-summary').waitFor({ timeout: 120_000 });
  await page.waitForFunction(() => /hits · fulltext/.test(document.querySelector('[data-testid="preview-summary"]')?.textContent ?? ''), undefined, { timeout: 120_000 });
}

/** What the plain-language box makes of the example sentence, as chips. */
export const PLAIN_WORDS = 'top 20 bakeries in Munich with at least 50 employees, without gluten, founded after 2015';
export const UNDERSTOOD_CHIPS = [
  'Any word: bakeries',
  'Not: gluten',
  'Municipality: München',
  'Size: Medium-sized (50-249)',
  'Size: Large enterprise (250+)',
  'Registered from: 2016-01-01',
];
const SIZES = 'organization_size=Medium-sized (50-249), Large enterprise (250+)';

/**
 * Types the example sentence into "Search in plain words", checks the chips and formula it becomes
 * (nothing searched yet), drops the "Not: gluten" chip, and uses the search: the form takes the word, the
 * place and the date, and the preview runs. Returns the formula shown before "Use this search".
 */
export async function searchInPlainWords(page: Page, searchFunction: string, chipsShot?: string): Promise<string> {
  const summary = page.getByTestId('preview-summary');
  const previewBefore = (await summary.count()) > 0 ? await summary.innerText() : null;
  await page.getByRole('textbox', { name: /Search in plain words/ }).fill(PLAIN_WORDS);
  await page.getByRole('button', { name: 'Understand' }).click();
  await page.getByRole('button', { name: 'Use this search' }).waitFor({ timeout: 180_000 });
  const texts = (await page.locator('section[aria-label="Understood as"] [aria-label="Understood as"] > *').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim()).filter((text) => text !== '');
  expect(texts).toEqual(UNDERSTOOD_CHIPS);
  // A number with nothing to count is not a keyword: it is named, and left out.
  expect(await page.getByLabel('Not understood').innerText()).toBe('Not understood: “20” (left out of the search).');
  // Nothing ran: the preview shows what it showed before.
  expect((await summary.count()) > 0 ? await summary.innerText() : null).toBe(previewBefore);
  const formula = page.getByLabel('Formula of these words');
  expect(await formula.innerText()).toBe(`=${searchFunction}("bakeries -gluten", "municipality=München; ${SIZES}; register_date_from=2016-01-01", "domain, name, country", "size=100")`);
  if (chipsShot) await page.locator('section[aria-label="Search in plain words"]').screenshot({ path: chipsShot });
  await page.getByRole('button', { name: 'remove Not gluten' }).click();
  const shown = await formula.innerText();
  expect(shown).toBe(`=${searchFunction}("bakeries", "municipality=München; ${SIZES}; register_date_from=2016-01-01", "domain, name, country", "size=100")`);
  await page.getByRole('button', { name: 'Use this search' }).click();
  await page.waitForFunction((before) => {
    const text = document.querySelector('[data-testid="preview-summary"]')?.textContent ?? null;
    return text !== null && text !== before;
  }, previewBefore, { timeout: 120_000 });
  expect(await page.locator('[aria-label="Any of these words"]:not(input)').innerText()).toContain('bakeries');
  expect(await page.locator('[aria-label="Chosen places"]').innerText()).toContain('München · municipality');
  expect(await page.getByLabel('Formula', { exact: true }).innerText()).toBe(shown);
  expect(await page.getByLabel('Registered from').inputValue()).toBe('2016-01-01');
  return shown;
}

/**
 * Counts by a place level in the Stats tab (with the Stats filters given, else none) and waits for the map
 * and a caption under it matching `caption` ("12 of 16 states on the map; …"; one that differs from the last
 * map's, when the level stays): returns how many circles it drew, the names written on it and the caption.
 */
export async function countOnMap(page: Page, level: 'country' | 'state' | 'municipality', { filters = '', caption = /on the map/ } = {}): Promise<{ circles: number; labels: string[]; caption: string }> {
  await page.getByRole('tab', { name: 'Stats' }).click();
  await page.getByRole('combobox', { name: 'Count by' }).click();
  await page.getByRole('option', { name: level, exact: true }).click();
  await page.getByRole('textbox', { name: 'Filters' }).fill(filters);
  await page.getByRole('button', { name: 'Count', exact: true }).click();
  const map = page.getByRole('img', { name: `Map of the counts by ${level}` });
  await map.waitFor({ timeout: 120_000 });
  const shown = page.locator('section[aria-label="Map"]').getByText(caption);
  await shown.waitFor({ timeout: 120_000 });
  return { circles: await map.locator('circle').count(), labels: await map.locator('text').allTextContents(), caption: await shown.innerText() };
}
