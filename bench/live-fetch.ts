/**
 * The live fetcher's own cost against a loopback site, on the bench database:
 *
 * - first fetch of a host: robots.txt read and stored, slot lease, spacing reservation, page
 *   stored in the fetch cache;
 * - cold fetches: `BENCH_PAGES` (default 200) distinct pages of one host with no spacing
 *   (FETCH_HOST_INTERVAL_MS=0), robots.txt from PostgreSQL: per-page overhead of politeness and
 *   caching in PostgreSQL plus the loopback request;
 * - reused fetches: the same pages again within FETCH_MAX_AGE_S (no request at all);
 * - spacing: `BENCH_SPACED` (default 10) pages with FETCH_HOST_INTERVAL_MS=200 from two fetchers
 *   sharing the database; smallest gap between arrivals at the site (must be ≥ 200).
 *
 *   npx tsx bench/live-fetch.ts          env: BENCH_PAGES, BENCH_SPACED, BENCH_DATABASE_URL
 *
 * Prints one JSON line: milliseconds per fetch (median, p95), the smallest gap, the load average.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKnex, ensureDatabase, migrateLatest } from '../src/db';
import type { HttpFetcherOptions } from '../src/enrichment/providers/http-fetcher';
import { createLiveFetcher } from '../src/services/fetching/live-fetcher';
import { BENCH_DATABASE_URL, loadAvg, median } from './lib';

const PAGES = Number(process.env.BENCH_PAGES ?? 200);
const SPACED = Number(process.env.BENCH_SPACED ?? 10);
const PAGE = `<html><head><title>Bench</title></head><body>${'<p>product text</p>'.repeat(200)}</body></html>`;

const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const round = (x: number): number => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const loadStart = loadAvg();
  await ensureDatabase(BENCH_DATABASE_URL);
  const knex = createKnex(BENCH_DATABASE_URL, { min: 0, max: 10 });
  await migrateLatest(knex);
  const arrivals: number[] = [];
  const server = http.createServer((req, res) => {
    arrivals.push(performance.timeOrigin + performance.now());
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
    return res.writeHead(200, { 'content-type': 'text/html', etag: '"1"' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const options: HttpFetcherOptions = {
    timeoutMs: 10_000,
    connectTimeoutMs: 2_000,
    maxBytes: 5_000_000,
    maxRedirects: 5,
    perHostConcurrency: 2,
    userAgent: 'catalog-enrichment-service/0.1 (+bench)',
    allowPrivate: true,
    hostIntervalMs: 0,
    crawlDelayMaxS: 0,
    maxAgeS: 3600,
    robotsCacheS: 3600,
    retryAfterMaxS: 60,
  };
  const fetcher = createLiveFetcher(knex, options);
  const time = async (url: string): Promise<number> => {
    const t = performance.now();
    await fetcher.fetch(url);
    return performance.now() - t;
  };
  const first = await time(`${base}/first`);
  const cold: number[] = [];
  for (let i = 0; i < PAGES; i++) cold.push(await time(`${base}/p/${i}`));
  const reused: number[] = [];
  for (let i = 0; i < PAGES; i++) reused.push(await time(`${base}/p/${i}`));

  arrivals.length = 0;
  const a = createLiveFetcher(knex, { ...options, hostIntervalMs: 200 });
  const b = createLiveFetcher(knex, { ...options, hostIntervalMs: 200 });
  await Promise.all(Array.from({ length: SPACED }, (_, i) => (i % 2 ? a : b).fetch(`${base}/spaced/${i}`)));
  const gaps = arrivals
    .sort((x, y) => x - y)
    .slice(1)
    .map((t, i) => t - arrivals[i]);

  console.log(
    JSON.stringify({
      bench: 'live-fetch',
      pages: PAGES,
      first_fetch_ms: round(first),
      cold_ms: { median: round(median(cold)), p95: round(p95(cold)) },
      reused_ms: { median: round(median(reused)), p95: round(p95(reused)) },
      spaced: { interval_ms: 200, requests: arrivals.length, smallest_gap_ms: round(Math.min(...gaps)) },
      load: { start: loadStart, end: loadAvg() },
    }),
  );
  await Promise.all([fetcher.close(), a.close(), b.close()]);
  await knex('fetch_cache').where('url', 'like', `${base}/%`).delete();
  await knex.destroy();
  server.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
