/** The Chromium of the browser tests (found once by browser-setup.cjs), launched through playwright-core. */
import { chromium, type Browser } from 'playwright-core';

export async function launchChromium(): Promise<Browser> {
  const path = process.env.CHROMIUM_PATH;
  if (!path) throw new Error(process.env.CHROMIUM_UNAVAILABLE ?? 'no Chromium: run the browser tests through jest (its global setup finds one) or set CHROMIUM_PATH');
  return chromium.launch({ executablePath: path, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
}
