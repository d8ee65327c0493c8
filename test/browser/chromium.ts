/**
 * Debian's Chromium for the browser tests (playwright-core against the system binary, which supports
 * every Node version of the engines range (puppeteer-core 25 needs Node ≥ 22.12); browser
 * downloads do not work here): where it is, whether it is there (the tests fail saying what to
 * install when it is not), how the tests launch it, and their optional screenshots
 * (`DASHBOARD_SCREENSHOTS`, e.g. docs/screenshots).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { requirePrerequisite } from '../helpers/prerequisites';

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's /usr/bin/chromium. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Checks that Chromium is installed (test/setup/prepare.ts installs it as root).
 * @throws Error naming what to install when it is not: the browser tests fail, never skip
 */
export function requireChromium(): void {
  requirePrerequisite(fs.existsSync(CHROMIUM), `Chromium at ${CHROMIUM}`, "install Debian's chromium, or set CHROMIUM_PATH");
}

/** What the tests drive: one browser context (its pages share cookies); closing it closes the browser. */
export type Browser = BrowserContext;
export type { Page };

/** The Chromium flags of this project's machines (no sandbox as root, no background networking). */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches headless Chromium (a fresh profile) with the tests' window size. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.on('close', () => void browser.close());
  return context;
}

/** Saves a full-page screenshot of `page` as `name` in `DASHBOARD_SCREENSHOTS`; nothing when that is unset. */
async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.DASHBOARD_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name), fullPage: true });
}

/** One accessibility violation as {@link seriousViolations} reports it. */
interface A11yViolation {
  id: string;
  impact: string;
  help: string;
  /** CSS selectors of the offending elements. */
  targets: string[];
}

/**
 * The serious and critical accessibility violations of the page as it is now, found by axe-core
 * (Deque's rules for WCAG 2.0/2.1 A and AA and best practices: no serious or
 * critical violations). axe is evaluated through the DevTools protocol, so the dashboard's CSP
 * (no inline script) stays on. A page that navigates while axe runs is checked again once loaded.
 */
async function seriousViolations(page: Page): Promise<A11yViolation[]> {
  const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // A page that reloads itself (a running flow run's) may do so while axe runs: check the new one.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await axeViolations(page, source);
    } catch (err) {
      if (attempt >= 3 || !/Execution context was destroyed|navigat/i.test(String(err))) throw err;
      await page.waitForLoadState('load');
    }
  }
}

/** One axe-core run on the page (see {@link seriousViolations}). */
async function axeViolations(page: Page, source: string): Promise<A11yViolation[]> {
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> };
      }
    ).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')) }));
}

/**
 * What every browser test does with a page it shows: a screenshot ({@link screenshot}) and the
 * accessibility check ({@link seriousViolations}): fails the test, naming the page, when axe-core
 * finds a serious or critical violation.
 */
export async function shotAndCheck(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
}
