/**
 * Debian's Chromium for the browser tests (puppeteer-core against the system binary; browser
 * downloads do not work here): where it is, whether it is there (outside CI the tests skip loudly
 * when it is not; under CI that fails), how the tests launch it, and their optional screenshots
 * (`DASHBOARD_SCREENSHOTS`, e.g. docs/screenshots).
 */
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { prerequisite } from '../helpers/prerequisites';

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's /usr/bin/chromium. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Whether Chromium is installed (test/setup/prepare.ts installs it as root).
 * @throws Error under CI when it is not (test/helpers/prerequisites.ts: no silent skips)
 */
export function chromiumPresent(): boolean {
  return prerequisite(fs.existsSync(CHROMIUM), `Chromium at ${CHROMIUM}`, "install Debian's chromium, or set CHROMIUM_PATH");
}

/** Launches headless Chromium with the tests' window size. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'], defaultViewport: { width: 1400, height: 900 } });
}

/** Saves a full-page screenshot of `page` as `name` in `DASHBOARD_SCREENSHOTS`; nothing when that is unset. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.DASHBOARD_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name), fullPage: true });
}
