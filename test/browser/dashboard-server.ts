/**
 * What every browser test sets up around its app: the HTTP app served on a loopback port, and
 * Chromium with one page that accepts every dialog (recording its message).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium, type Browser, type Page } from './chromium';

/** An app served to Chromium: its base URL, the browser, its first page and the dialogs that page accepted. */
export interface OpenDashboard {
  /** `http://127.0.0.1:<port>` of the served app. */
  base: string;
  browser: Browser;
  page: Page;
  /** The messages of the dialogs the page accepted, in order. */
  dialogs: string[];
  /** Closes the browser, then the server. */
  close(): Promise<void>;
}

/**
 * Serves `app` (a Koa callback, e.g. `testApiFor(env, queue)`) on 127.0.0.1 and opens a page in a
 * fresh Chromium (see launchChromium) whose dialogs are accepted and recorded.
 * @throws Error when the server cannot listen or Chromium cannot start
 */
export async function openDashboard(app: http.RequestListener): Promise<OpenDashboard> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.accept();
  });
  return {
    base,
    browser,
    page,
    dialogs,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
