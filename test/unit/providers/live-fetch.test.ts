/**
 * The live fetcher's manners on a loopback site, with its shared state in the real PostgreSQL
 *: robots.txt (RFC 9309: disallow, 4xx = allowed, 5xx = disallowed), outcomes
 * (blocked challenge pages), the HTTP cache (fresh reuse, 304 revalidation), Retry-After, and
 * spacing between request starts to one host across two fetcher instances sharing the database.
 * Every assertion about requests counts or times them at the server.
 */
import { performance } from 'node:perf_hooks';
import type { HttpFetcherOptions } from '../../../src/enrichment/providers/http-fetcher';
import { createLiveFetcher } from '../../../src/services/fetching/live-fetcher';
import { RetryLaterError } from '../../../src/enrichment/research/types';
import { closeTestKnex, testKnex } from '../../helpers/db';
import { startServer } from './fixtures';

const PRODUCT = '<html><head><title>Widget</title></head><body><h1>Widget</h1></body></html>';
const CHALLENGE = '<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>';

/** Requests the site received: path and arrival time (ms, performance clock), and headers. */
const log: Array<{ path: string; at: number; headers: Record<string, string | string[] | undefined> }> = [];
const hits = (path: string): number => log.filter((r) => r.path === path).length;
let robotsStatus = 200;
const ROBOTS = 'User-agent: *\nDisallow: /private/\n\nUser-agent: other-bot\nDisallow: /\n';
let robotsBody = ROBOTS;

let site: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  site = await startServer((req, res) => {
    const path = req.url ?? '/';
    log.push({ path, at: performance.timeOrigin + performance.now(), headers: req.headers });
    if (path === '/robots.txt') {
      if (robotsStatus !== 200) return res.writeHead(robotsStatus).end();
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(robotsBody);
    }
    if (path === '/etag') {
      if (req.headers['if-none-match'] === '"v1"') return res.writeHead(304, { etag: '"v1"' }).end();
      return res.writeHead(200, { 'content-type': 'text/html', etag: '"v1"', 'cache-control': 'no-cache' }).end(PRODUCT);
    }
    if (path === '/challenge') return res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '5' }).end(CHALLENGE);
    if (path === '/forbidden') return res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>no</body></html>');
    if (path === '/later') return res.writeHead(429, { 'retry-after': '3', 'content-type': 'text/html' }).end('slow down');
    if (path === '/error') return res.writeHead(500, { 'content-type': 'text/html' }).end('oops');
    return res.writeHead(200, { 'content-type': 'text/html' }).end(PRODUCT);
  });
});
afterAll(async () => {
  await site.close();
  await closeTestKnex();
});
beforeEach(async () => {
  log.length = 0;
  robotsStatus = 200;
  robotsBody = ROBOTS;
  // Each test starts with no stored robots.txt, cache or spacing for this site.
  const knex = testKnex();
  const origin = new URL(site.url('/')).origin;
  await knex('fetch_robots').where('origin', origin).delete();
  await knex('fetch_cache').where('url', 'like', `${origin}/%`).delete();
  await knex('fetch_hosts').where('host', new URL(origin).host).delete();
});

const options: HttpFetcherOptions = {
  timeoutMs: 5_000,
  connectTimeoutMs: 2_000,
  maxBytes: 1_000_000,
  maxRedirects: 3,
  perHostConcurrency: 2,
  userAgent: 'catalog-enrichment-service/0.1 (+test)',
  allowPrivate: true,
  hostIntervalMs: 0,
  crawlDelayMaxS: 0,
  maxAgeS: 3600,
  robotsCacheS: 3600,
  retryAfterMaxS: 60,
};

test('robots.txt: a disallowed page is never requested and is robots_denied; robots.txt is read once per origin', async () => {
  const fetcher = createLiveFetcher(testKnex(), options);
  const denied = await fetcher.fetch(site.url('/private/widget'));
  expect(denied).toMatchObject({ outcome: 'robots_denied', status: 0 });
  expect(denied.exchanges?.map((e) => [e.purpose, e.status])).toEqual([['robots', 200]]);
  expect(await fetcher.fetch(site.url('/public/widget'))).toMatchObject({ outcome: 'ok', status: 200 });
  expect(hits('/private/widget')).toBe(0);
  expect(hits('/public/widget')).toBe(1);
  expect(hits('/robots.txt')).toBe(1);
  // Another group's rules do not apply to our product token; another product token is refused.
  const other = createLiveFetcher(testKnex(), { ...options, userAgent: 'other-bot/2.0' });
  expect((await other.fetch(site.url('/public/widget'))).outcome).toBe('robots_denied');
  await Promise.all([fetcher.close(), other.close()]);
});

test('robots.txt: fetches of one origin starting together share one robots.txt request (single-flight in the fetcher)', async () => {
  const fetcher = createLiveFetcher(testKnex(), options);
  const pages = await Promise.all(['/public/1', '/public/2', '/public/3', '/private/4', '/public/5'].map((p) => fetcher.fetch(site.url(p))));
  expect(pages.map((p) => p.outcome)).toEqual(['ok', 'ok', 'ok', 'robots_denied', 'ok']);
  expect(hits('/robots.txt')).toBe(1);
  expect(hits('/private/4')).toBe(0);
  // Only the fetch that started the read keeps its exchange (the others waited for it).
  expect(pages.filter((p) => p.exchanges?.some((e) => e.purpose === 'robots'))).toHaveLength(1);
  await fetcher.close();
});

test('robots.txt: an unreachable robots.txt (5xx) disallows the page and says robots_unreachable; a disallowing rule does not', async () => {
  const fetcher = createLiveFetcher(testKnex(), options);
  expect(await fetcher.fetch(site.url('/private/x'))).toMatchObject({ outcome: 'robots_denied' });
  expect((await fetcher.fetch(site.url('/private/x'))).robots_unreachable).toBeUndefined();
  await testKnex()('fetch_robots')
    .where('origin', new URL(site.url('/')).origin)
    .delete();
  robotsStatus = 500;
  expect(await fetcher.fetch(site.url('/public/y'))).toMatchObject({ outcome: 'robots_denied', robots_unreachable: true });
  await fetcher.close();
});

test('robots.txt: a 4xx answer allows everything, a 5xx answer disallows everything (RFC 9309 §2.3.1)', async () => {
  const fetcher = createLiveFetcher(testKnex(), options);
  robotsStatus = 404;
  expect((await fetcher.fetch(site.url('/private/a'))).outcome).toBe('ok');
  await testKnex()('fetch_robots')
    .where('origin', new URL(site.url('/')).origin)
    .delete();
  robotsStatus = 503;
  expect((await fetcher.fetch(site.url('/public/b'))).outcome).toBe('robots_denied');
  expect(hits('/public/b')).toBe(0);
  await fetcher.close();
});

test('outcomes: challenge pages and 403 are blocked (never rescheduled), 5xx is server_error', async () => {
  const fetcher = createLiveFetcher(testKnex(), options);
  expect(await fetcher.fetch(site.url('/challenge'), { defer_retry: true })).toMatchObject({ outcome: 'blocked', status: 503 });
  expect(await fetcher.fetch(site.url('/forbidden'))).toMatchObject({ outcome: 'blocked', status: 403 });
  expect(await fetcher.fetch(site.url('/error'))).toMatchObject({ outcome: 'server_error', status: 500 });
  await fetcher.close();
});

test('429 with Retry-After throws RetryLaterError when deferring, else it is a server_error', async () => {
  const fetcher = createLiveFetcher(testKnex(), options);
  const err = await fetcher.fetch(site.url('/later'), { defer_retry: true }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RetryLaterError);
  expect((err as RetryLaterError).delayMs).toBe(3000);
  expect(await fetcher.fetch(site.url('/later'))).toMatchObject({ outcome: 'server_error', status: 429 });
  await fetcher.close();
});

test('HTTP cache: reused within FETCH_MAX_AGE_S with no request; older copies revalidated (304 reuses the stored bytes)', async () => {
  const fresh = createLiveFetcher(testKnex(), options);
  const first = await fresh.fetch(site.url('/etag'));
  expect(first).toMatchObject({ outcome: 'ok', status: 200 });
  const again = await fresh.fetch(site.url('/etag'));
  expect(again.cache).toBe('fresh');
  expect(hits('/etag')).toBe(1);

  const stale = createLiveFetcher(testKnex(), { ...options, maxAgeS: 0 });
  await new Promise((r) => setTimeout(r, 5));
  const revalidated = await stale.fetch(site.url('/etag'));
  expect(hits('/etag')).toBe(2);
  expect(log.filter((r) => r.path === '/etag')[1].headers['if-none-match']).toBe('"v1"');
  expect(revalidated).toMatchObject({ outcome: 'ok', status: 200, cache: 'revalidated' });
  expect(revalidated.body.toString()).toBe(PRODUCT);
  expect(revalidated.exchanges?.map((e) => e.status)).toEqual([304, 200]);
  await Promise.all([fresh.close(), stale.close()]);
});

/** Everything jest can fake but Date. */
const REAL_TIMERS: Array<
  | 'hrtime'
  | 'nextTick'
  | 'performance'
  | 'queueMicrotask'
  | 'requestAnimationFrame'
  | 'cancelAnimationFrame'
  | 'requestIdleCallback'
  | 'cancelIdleCallback'
  | 'setImmediate'
  | 'clearImmediate'
  | 'setInterval'
  | 'clearInterval'
  | 'setTimeout'
  | 'clearTimeout'
> = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
];

test('two fetchers sharing the database, one slot per host: the host sees their requests FETCH_HOST_INTERVAL_MS apart', async () => {
  // With one slot, each request starts only after the previous one was answered and then the
  // interval passed, so the spacing holds at the server however late a sender runs. (With more
  // slots the spacing is between granted starts: test/unit/providers/host-politeness.test.ts.)
  const interval = 300;
  const serial = { ...options, hostIntervalMs: interval, perHostConcurrency: 1 };
  const a = createLiveFetcher(testKnex(), serial);
  const b = createLiveFetcher(testKnex(), serial);
  // Node's Date an hour behind the database's clock (only Date is faked; timers stay real), so an
  // exchange stamped with the Node clock instead of its grant's time cannot match the grant.
  jest.useFakeTimers({ doNotFake: REAL_TIMERS, now: Date.now() - 3_600_000, advanceTimers: true });
  const pages = await Promise.all([a.fetch(site.url('/s1')), b.fetch(site.url('/s2')), a.fetch(site.url('/s3')), b.fetch(site.url('/s4'))]).finally(() =>
    jest.useRealTimers(),
  );
  const starts = log.map((r) => r.at).sort((x, y) => x - y);
  // Each exchange is stamped with its grant (the database's clock): the last one is the host's last granted start.
  const stamped = pages.flatMap((p) => p.exchanges ?? []).map((e) => e.started_at);
  const host = new URL(site.url('/s1')).host;
  const last = await testKnex()('fetch_hosts').where('host', host).first('updated_at');
  expect(stamped.sort().at(-1)).toBe(new Date(last.updated_at).toISOString());
  // Four pages, and robots.txt once or more (fetchers that find no stored copy at once each read it).
  expect(['/s1', '/s2', '/s3', '/s4'].map(hits)).toEqual([1, 1, 1, 1]);
  expect(starts.length).toBeGreaterThanOrEqual(5);
  for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(interval);
  await Promise.all([a.close(), b.close()]);
});

test('Crawl-delay widens the spacing to a host, up to FETCH_CRAWL_DELAY_MAX_S', async () => {
  robotsBody = 'User-agent: catalog-enrichment-service\nCrawl-delay: 0.4\nDisallow: /private/\n';
  const fetcher = createLiveFetcher(testKnex(), { ...options, crawlDelayMaxS: 1 });
  await fetcher.fetch(site.url('/c1'));
  await fetcher.fetch(site.url('/c2'));
  const starts = log.map((r) => r.at);
  expect(log.map((r) => r.path)).toEqual(['/robots.txt', '/c1', '/c2']);
  expect(starts[2] - starts[1]).toBeGreaterThanOrEqual(400);
  const host = new URL(site.url('/')).host;
  expect((await testKnex()('fetch_hosts').where('host', host).first('crawl_delay_ms')).crawl_delay_ms).toBe(400);
  // A longer delay is cut to the cap.
  await testKnex()('fetch_robots')
    .where('origin', new URL(site.url('/')).origin)
    .delete();
  robotsBody = 'User-agent: *\nCrawl-delay: 120\n';
  const capped = createLiveFetcher(testKnex(), { ...options, crawlDelayMaxS: 0.5 });
  await capped.fetch(site.url('/c3'));
  expect((await testKnex()('fetch_hosts').where('host', host).first('crawl_delay_ms')).crawl_delay_ms).toBe(500);
  await Promise.all([fetcher.close(), capped.close()]);
});
