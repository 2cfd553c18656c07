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
