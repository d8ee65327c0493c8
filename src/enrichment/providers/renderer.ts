import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { assertFetchableUrl } from './address-policy';

/** Settings of {@link createRenderer} (config `render`, env `RENDER_*`, `CHROMIUM_PATH`). */
export interface RendererOptions {
  /** Headless Chromium binary (Debian's /usr/bin/chromium). */
  chromiumPath: string;
  /** Pages rendered by one browser before it is closed and a fresh one (fresh profile) started. */
  pagesPerBrowser: number;
  userAgent: string;
  /** Allow loopback/private targets (FETCH_ALLOW_PRIVATE); else such requests of the page are aborted. */
  allowPrivate: boolean;
}

/** A rendered page: the DOM after its scripts ran, a screenshot, and the main document's answer. */
export interface RenderedPage {
  final_url: string;
  status: number;
  html: string;
  /** PNG of the viewport. */
  screenshot: Buffer;
  rendered_at: string;
}

/** Launch flags: no sandbox (containers), no GPU, no first-run, no background traffic, no updates, no sync. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Longest wait for product data or network idle after the document loaded, ms. */
const SETTLE_MS = 10_000;
/** Hard bound of one render, ms. */
const HARD_TIMEOUT_MS = 30_000;

/** True in the page when it holds product data: JSON-LD or microdata Product, or product meta tags. */
const PRODUCT_DATA_IN_PAGE = `(() => {
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) if (/"@type"\\s*:\\s*\\[?[^\\]}]*"Product"/.test(s.textContent || '')) return true;
  return !!document.querySelector('[itemtype*="schema.org/Product"], meta[property="product:price:amount"], meta[property="og:type"][content="product"]');
})()`;

/** A renderer of pages in headless Chromium (see {@link createRenderer}). */
export interface Renderer {
  /**
   * Renders `url`: navigates, waits for product data or network idle (at most 10 s), and returns
   * the DOM and a screenshot; the whole render is bounded by 30 s.
   * @throws Error when the page cannot be loaded in time, or the URL is refused
   */
  render(url: string): Promise<RenderedPage>;
  /** Closes the browser (and removes its profile). */
  close(): Promise<void>;
}

/** Whether the Chromium binary exists (the engine works without rendering where it does not). */
export function chromiumAvailable(chromiumPath: string): boolean {
  return fs.existsSync(chromiumPath);
}

/**
 * Headless Chromium driven by playwright-core: a persistent context on a fresh
 * temporary user-data-dir with {@link CHROMIUM_FLAGS}, recycled (closed, profile removed, a new one
 * started) after `pagesPerBrowser` pages. Requests of the page to other schemes, and unless
 * `allowPrivate` to loopback/private IP literals or localhost, are aborted. One renderer renders
 * one page at a time per call; the render activity's worker bounds how many run at once.
 */
export function createRenderer(options: RendererOptions): Renderer {
  const state: { context: BrowserContext | null; dir: string | null; pages: number } = { context: null, dir: null, pages: 0 };

  const shutdown = async (): Promise<void> => {
    const { context, dir } = state;
    state.context = null;
    state.dir = null;
    state.pages = 0;
    await context?.close().catch(() => undefined);
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  };

  const browser = async (): Promise<BrowserContext> => {
    if (state.context && state.pages >= options.pagesPerBrowser) await shutdown();
    if (!state.context) {
      state.dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'render-profile-'));
      state.context = await chromium.launchPersistentContext(state.dir, {
        executablePath: options.chromiumPath,
        headless: true,
        args: CHROMIUM_FLAGS,
        userAgent: options.userAgent,
        viewport: { width: 1280, height: 900 },
        javaScriptEnabled: true,
      });
      await state.context.route('**/*', (route) => {
        try {
          assertFetchableUrl(new URL(route.request().url()), options.allowPrivate);
          return route.continue();
        } catch {
          return route.abort('blockedbyclient');
        }
      });
    }
    state.pages++;
    return state.context;
  };

  const renderOnce = async (url: string): Promise<RenderedPage> => {
    assertFetchableUrl(new URL(url), options.allowPrivate);
    const context = await browser();
    const page = await context.newPage();
    try {
      const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: HARD_TIMEOUT_MS });
      await Promise.race([
        page.waitForFunction(PRODUCT_DATA_IN_PAGE, undefined, { timeout: SETTLE_MS, polling: 100 }),
        page.waitForLoadState('networkidle', { timeout: SETTLE_MS }),
      ]).catch(() => undefined);
      return {
        final_url: page.url(),
        status: response?.status() ?? 200,
        html: await page.content(),
        screenshot: await page.screenshot({ type: 'png' }),
        rendered_at: new Date().toISOString(),
      };
    } finally {
      await page.close().catch(() => undefined);
    }
  };

  return {
    async render(url) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`render of ${url} took longer than ${HARD_TIMEOUT_MS} ms`)), HARD_TIMEOUT_MS);
      });
      try {
        return await Promise.race([renderOnce(url), timeout]);
      } catch (err) {
        // A browser in an unknown state is not reused.
        await shutdown();
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
    close: shutdown,
  };
}
