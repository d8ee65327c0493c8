/**
 * The pages items name themselves, end to end in the DEFAULT configuration (no SEARCH_PROVIDER, no
 * archive at all; docs/research.md, "An item's own page"): HTTP → PostgreSQL → a real Temporal dev
 * server → the worker's activities → the engine the worker builds, whose live fetcher reads each
 * item's `url` from shops started here on 127.0.0.1 (FETCH_ALLOW_PRIVATE). Requests are counted
 * at the shops: sourced prices, robots.txt obeyed and said on the row, one robots.txt request for
 * rows starting together, failures recorded on their rows, and FETCH_ITEM_URLS=false reaching no
 * shop at all.
 */
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createEngineFromConfig } from '../../src/enrichment';
import { createFetchState } from '../../src/services/fetching/live-fetcher';
import { archiveIndexFetcher, archiveIndexSearch } from '../../src/services/research-archives/search';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';

const TASK_QUEUE = 'test-e2e-item-urls';
const OFF_QUEUE = 'test-e2e-item-urls-off';

/** A product page whose JSON-LD names the product and its price in EUR. */
function productPage(name: string, price: string): string {
  const ld = { '@context': 'https://schema.org', '@type': 'Product', name, offers: { '@type': 'Offer', price, priceCurrency: 'EUR' } };
  return `<html><head><title>${name}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>${name}</h1><p>${price} EUR</p></body></html>`;
}

/** A shop on 127.0.0.1: robots.txt disallows /private/, /p/<n> is "Widget <n>" at <n>9.50 EUR, /broken answers 500; requests counted by path. */
interface Shop {
  server: http.Server;
  base: string;
  hits: (path: string) => number;
  total: () => number;
}

async function startShop(): Promise<Shop> {
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    seen.set(p, (seen.get(p) ?? 0) + 1);
    if (p === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
    const product = /^\/(?:p|private)\/(\d+)$/.exec(p);
    if (product) return res.writeHead(200, { 'content-type': 'text/html' }).end(productPage(`Widget ${product[1]}`, `${product[1]}9.50`));
    if (p === '/broken') return res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>oops</body></html>');
    return res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (p) => seen.get(p) ?? 0,
    total: () => [...seen.values()].reduce((a, b) => a + b, 0),
  };
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'item-urls-'));
/** The default configuration (no SEARCH_PROVIDER, no archive: a clone without ../shared), loopback shops allowed. */
const configOf = (extra: Record<string, string>): Config =>
  loadConfig({
    ...process.env,
    SEARCH_PROVIDER: '',
    SHARED_DATA_DIR: path.join(dir, 'no-shared-data'),
    RESEARCH_ARCHIVES: '',
    DATA_DIR: path.join(dir, 'data'),
    BLOB_DIR: path.join(dir, 'blobs'),
    S3_BUCKET: '',
    FETCH_ALLOW_PRIVATE: 'true',
    FETCH_HOST_INTERVAL_MS: '20',
    ...extra,
  });
const config = configOf({});
const offConfig = configOf({ FETCH_ITEM_URLS: 'false' });

let shop: Shop;
let crowd: Shop;
let airgap: Shop;
let env: TestWorkflowEnvironment;
const workers: RunningTestWorker[] = [];
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let offApp: ReturnType<ReturnType<typeof createApp>['callback']>;
let auth: { Authorization: string };

/** A worker as temporal/worker.ts builds it for `workerConfig`: the engine over the indexed archives and the live fetcher. */
async function startWorker(taskQueue: string, workerConfig: Config): Promise<RunningTestWorker> {
  const knex = testKnex();
  const storage = enrichmentStorage(workerConfig);
  const engine = createEngineFromConfig(workerConfig, {
    fetchState: createFetchState(knex, workerConfig.fetch),
    archiveIndex: { search: archiveIndexSearch(knex), fetcher: archiveIndexFetcher(knex, storage.blobs) },
  });
  return runTestWorker(env, { taskQueue, knex, engine, storage, config: workerConfig, research: workerConfig });
}

beforeAll(async () => {
  [shop, crowd, airgap] = await Promise.all([startShop(), startShop(), startShop()]);
  env = await startTestTemporal();
  workers.push(await startWorker(TASK_QUEUE, config), await startWorker(OFF_QUEUE, offConfig));
  // One row per activity, eight at once: rows of a job start together (as batches of ENRICH_CONCURRENCY do in production).
  app = testApiFor(env, TASK_QUEUE, { config, concurrency: 8, tuning: { batch_size: 1 } });
  offApp = testApiFor(env, OFF_QUEUE, { config: offConfig, concurrency: 8 });
  ({ auth } = await createTestOrg('item urls'));
}, 180_000);

afterAll(async () => {
  for (const w of workers) await w.stop();
  await env?.teardown();
  for (const s of [shop, crowd, airgap]) if (s) await new Promise((r) => s.server.close(r));
  await closeTestKnex();
  fs.rmSync(dir, { recursive: true, force: true });
});

const SCHEMA = [
  { name: 'price', type: 'number', description: 'Current selling price' },
  { name: 'currency', type: 'string', description: 'ISO 4217 currency code' },
];

interface Row {
  after_data: Record<string, unknown> & { sources: Record<string, string[]> };
  review_info: { flags: string[]; field_issues: Array<{ field: string; message: string }>; reasoning: string };
  error?: string;
}

/** Posts a synchronous enrich job of `items` and returns its body (status 200 asserted). */
async function enrich(
  target: typeof app,
  items: Array<Record<string, unknown>>,
): Promise<{ results: Row[]; notices?: string[]; status: string; successful: number }> {
  const res = await request(target).post('/api/public/enrich').set(auth).send({ items, output_schema: SCHEMA, speed: 'fast' });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  return res.body;
}

test('readiness and the banner lines say whether item URLs are fetched', async () => {
  const on = await request(app).get('/readyz');
  expect(on.status).toBe(200);
  expect(on.body.research).toMatchObject({ live_search: null, archive_folders: [], archive_files: [], item_urls: true });
  const off = await request(offApp).get('/readyz');
  expect(off.body.research).toMatchObject({ item_urls: false });
}, 30_000);

test('default configuration: items with a url get the sourced price of their page, which the shop served', async () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ name: `Widget ${i + 1}`, url: `${shop.base}/p/${i + 1}` }));
  const body = await enrich(app, items);
  expect(body.successful).toBe(10);
  body.results.forEach((row, i) => {
    expect(row.after_data.price).toBe(Number(`${i + 1}9.5`));
    expect(row.after_data.currency).toBe('EUR');
    expect(row.after_data.sources.price).toEqual([`${shop.base}/p/${i + 1}`]);
  });
  for (let i = 1; i <= 10; i++) expect(shop.hits(`/p/${i}`)).toBe(1);
  expect(shop.hits('/robots.txt')).toBe(1);
  // The organization has no research source: the job says so, and that the items' pages were still read.
  expect(body.notices!.join(' ')).toMatch(/no research source is configured.*pages they name/);
}, 90_000);

test('a page robots.txt disallows is never requested; its row says robots_denied and why in a field issue', async () => {
  const url = `${shop.base}/private/7`;
  const [row] = (await enrich(app, [{ name: 'Widget 7', url }])).results;
  expect(shop.hits('/private/7')).toBe(0);
  expect(row.error).toBeUndefined();
  expect(row.after_data.price).toBeUndefined();
  expect(row.review_info.flags).toContain('robots_denied');
  expect(row.review_info.field_issues).toContainEqual({ field: 'url', message: `The page at ${url} was not read because its robots.txt disallows it.` });
}, 60_000);

test('rows of one origin starting together make one robots.txt request', async () => {
  const items = Array.from({ length: 8 }, (_, i) => ({ name: `Widget ${i + 1}`, product_url: `${crowd.base}/p/${i + 1}` }));
  const body = await enrich(app, items);
  expect(body.results.map((r) => r.after_data.price)).toEqual(items.map((_, i) => Number(`${i + 1}9.5`)));
  expect(crowd.hits('/robots.txt')).toBe(1);
}, 90_000);

test('a 500 and a refused connection are the rows’ recorded outcomes; the job and its other rows go on', async () => {
  const refused = `http://127.0.0.1:${await closedPort()}/p/1`;
  const body = await enrich(app, [
    { name: 'Broken', url: `${shop.base}/broken` },
    { name: 'Gone', url: refused },
    { name: 'Widget 3', url: `${shop.base}/p/3` },
  ]);
  expect(body.successful).toBe(3);
  const [broken, gone, fine] = body.results;
  expect(shop.hits('/broken')).toBe(1);
  expect(broken.review_info.flags).toContain('research_problems');
  expect(broken.review_info.field_issues).toContainEqual({
    field: 'url',
    message: `The page at ${shop.base}/broken could not be read: server error (HTTP 500).`,
  });
  // Nothing answers at all: robots.txt is unreachable, which RFC 9309 counts as disallowing every page.
  expect(gone.review_info.flags).toContain('research_problems');
  expect(gone.review_info.flags).not.toContain('robots_denied');
  expect(gone.review_info.field_issues).toContainEqual(
    expect.objectContaining({ field: 'url', message: expect.stringMatching(/robots\.txt could not be read/) }),
  );
  expect(fine.after_data.price).toBe(39.5);
  const rows = await testKnex()('enrichment_rows')
    .join('enrichment_jobs', 'enrichment_jobs.id', 'enrichment_rows.job_id')
    .where('enrichment_rows.input', '@>', JSON.stringify({ name: 'Broken' }))
    .select('enrichment_rows.evidence');
  expect(rows.at(-1).evidence.fetches).toContainEqual(expect.objectContaining({ url: `${shop.base}/broken`, outcome: 'server_error', status: 500 }));
}, 60_000);

test('FETCH_ITEM_URLS=false: no request reaches the shop and the notices say item URLs were not fetched and why', async () => {
  const body = await enrich(offApp, [{ name: 'Widget 2', url: `${airgap.base}/p/2` }]);
  expect(airgap.total()).toBe(0);
  expect(body.results[0].after_data.price).toBeUndefined();
  expect(body.notices).toEqual(expect.arrayContaining([expect.stringMatching(/were not fetched because this deployment sets FETCH_ITEM_URLS=false/)]));
  // A job whose items name no page carries no such notice.
  const plain = await enrich(offApp, [{ name: 'Widget 2' }]);
  expect((plain.notices ?? []).join(' ')).not.toMatch(/FETCH_ITEM_URLS/);
}, 60_000);
