/**
 * What every browser test sets up around its app: the HTTP app served on a loopback port, and
 * Chromium with one page that accepts every dialog (recording its message); for the suites that
 * start durable work, a Temporal dev server and an in-process worker beside it
 * ({@link useBrowserSession}).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { EnrichmentEngine } from '../../src/enrichment/types';
import { closeTestKnex, testKnex } from '../helpers/db';
import { type RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { launchChromium, requireChromium, type Browser, type Page } from './chromium';

/** An app served to Chromium: its base URL, the browser, its first page and the dialogs that page accepted. */
interface OpenDashboard {
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
async function openDashboard(app: http.RequestListener): Promise<OpenDashboard> {
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

/** A browser suite's set-up and tear-down, as {@link useBrowserSession} runs them. */
export interface BrowserSessionOptions {
  /**
   * A Temporal dev server (startTestTemporal) and a worker in this process on task queue
   * `taskQueue`, running `engine` on the test database; started before `setUp`, which reaches the
   * server through `session.env`. Without it the suite has no Temporal.
   */
  worker?: { taskQueue: string; engine: EnrichmentEngine };
  /**
   * The suite's own set-up (its organization, catalogs, fixtures), run in `beforeAll` once the
   * worker (if any) runs; resolves with the app (a Koa callback) to serve to Chromium.
   */
  setUp(session: BrowserSession): Promise<http.RequestListener>;
  /** The suite's own tear-down, run in `afterAll` once Chromium and the server are closed, before the worker stops. */
  tearDown?(): void | Promise<void>;
  /** Timeout of the `beforeAll` in ms; Jest's `testTimeout` when unset. */
  timeoutMs?: number;
}

/** What a browser suite reads once its `beforeAll` ran (each accessor throws before that). */
export interface BrowserSession {
  /** `http://127.0.0.1:<port>` of the served app. */
  readonly base: string;
  /** The browser context (closing it closes Chromium). */
  readonly browser: Browser;
  /** The first page of the browser; it accepts every dialog. */
  readonly page: Page;
  /** The messages of the dialogs the page accepted, in order (the suite may empty it). */
  readonly dialogs: string[];
  /** The Temporal dev server. @throws Error when the suite has no `worker` */
  readonly env: TestWorkflowEnvironment;
  /**
   * Signs the page in with `apiKey` on the console's sign-in form: opens `path` (default
   * `/dashboard/login`; with `?next=` the form leads there), fills the credential, submits and
   * waits for the navigation.
   */
  signIn(apiKey: string, path?: string): Promise<void>;
}

/**
 * Registers a browser suite's `beforeAll` and `afterAll` in the calling `describe` and returns
 * their accessors. Requires Chromium (the file fails, naming what to install, when it is not
 * there). `beforeAll`: the Temporal dev server and worker (`options.worker`), then
 * `options.setUp`, then the app it returns served on a loopback port and a fresh headless
 * Chromium with one page. `afterAll`, in reverse: Chromium and the server, `options.tearDown`,
 * the worker, the dev server, then the file's Knex instance.
 */
export function useBrowserSession(options: BrowserSessionOptions): BrowserSession {
  requireChromium();
  let env: TestWorkflowEnvironment | undefined;
  let worker: RunningTestWorker | undefined;
  let dashboard: OpenDashboard | undefined;
  const opened = (): OpenDashboard => {
    if (!dashboard) throw new Error('useBrowserSession: the browser is not open (read it in a test, after beforeAll)');
    return dashboard;
  };
  const session: BrowserSession = {
    get base() {
      return opened().base;
    },
    get browser() {
      return opened().browser;
    },
    get page() {
      return opened().page;
    },
    get dialogs() {
      return opened().dialogs;
    },
    get env() {
      if (!env) throw new Error('useBrowserSession: this suite has no Temporal dev server (options.worker), or it is not started yet');
      return env;
    },
    async signIn(apiKey, path = '/dashboard/login') {
      const { page, base } = opened();
      await page.goto(`${base}${path}`);
      await page.fill('#credential', apiKey);
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    },
  };

  beforeAll(async () => {
    if (options.worker) {
      env = await startTestTemporal();
      worker = await runTestWorker(env, { taskQueue: options.worker.taskQueue, knex: testKnex(), engine: options.worker.engine });
    }
    dashboard = await openDashboard(await options.setUp(session));
  }, options.timeoutMs);

  afterAll(async () => {
    await dashboard?.close();
    await options.tearDown?.();
    await worker?.stop();
    await env?.teardown();
    await closeTestKnex();
  });

  return session;
}
