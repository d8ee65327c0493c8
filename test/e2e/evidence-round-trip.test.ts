/**
 * The evidence round trip ("a later job can work from it with no network"): a job
 * researches a shop on 127.0.0.1 live (`SEARCH_PROVIDER=searxng`, `FETCH_ALLOW_PRIVATE`) with
 * `capture_source_artifacts`; its `evidence.wacz` is downloaded, uploaded as a research archive
 * and indexed by the Temporal workflow; then, with the shop and the search server gone and the
 * live page cache emptied, a second job finds the same values in that archive, citing the
 * original URLs and the archive's WARC record. Real PostgreSQL and a real Temporal dev server.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createEngineFromConfig } from '../../src/enrichment';
import { createFetchState } from '../../src/services/fetching/live-fetcher';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import { archiveIndexFetcher, archiveIndexSearch } from '../../src/services/research-archives/search';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { bufferBody } from '../helpers/wire';

const TASK_QUEUE = 'test-e2e-evidence-round-trip';

/** A product page whose JSON-LD names the product, its brand and SKU. */
function productPage(name: string, brand: string, sku: string): string {
  const ld = { '@context': 'https://schema.org', '@type': 'Product', name, sku, brand: { '@type': 'Brand', name: brand } };
  return `<html><head><title>${name}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>${name}</h1><p>By ${brand}.</p></body></html>`;
}

const shopHits: string[] = [];
let searchUp = true;

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evidence-round-trip-'));
let shop: { server: http.Server; base: string };
let searx: { server: http.Server; base: string };
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let auth: { Authorization: string };

beforeAll(async () => {
  shop = await listen((req, res) => {
    shopHits.push(req.url ?? '/');
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (req.url === '/trip-widget')
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(productPage('Trip Widget', 'Roundco', 'TW-42'));
    return res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
  });
  // A SearXNG-compatible search API; once "unreachable" it answers 503 like a search backend that is down.
  searx = await listen((req, res) => {
    if (!searchUp) return res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    const results = /trip/i.test(q) ? [{ url: `${shop.base}/trip-widget`, title: q, content: q }] : [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
  });
  const config = loadConfig({
    ...process.env,
    SEARCH_PROVIDER: 'searxng',
    SEARXNG_URL: searx.base,
    FETCH_ALLOW_PRIVATE: 'true',
    FETCH_HOST_INTERVAL_MS: '50',
    RESEARCH_ARCHIVES: '',
    DATA_DIR: path.join(dir, 'data'),
  });
  env = await startTestTemporal();
  const knex = testKnex();
  // As the worker builds it: the archive index in PostgreSQL first, then the live web.
  // The worker keeps artifacts where the API reads them (the blob store), as deployed.
  const storage = enrichmentStorage(config);
  const engine = createEngineFromConfig(config, {
    fetchState: createFetchState(knex, config.fetch),
    archiveIndex: { search: archiveIndexSearch(knex), fetcher: archiveIndexFetcher(knex, storage.blobs) },
  });
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine, fetchRetryAttempts: 1, storage });
  app = testApiFor(env, TASK_QUEUE, { config });
  ({ auth } = await createTestOrg('evidence round trip'));
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  if (shop?.server.listening) await new Promise((r) => shop.server.close(r));
  await new Promise((r) => searx?.server.close(r));
  await closeTestKnex();
  fs.rmSync(dir, { recursive: true, force: true });
});

const SCHEMA = [
  { name: 'brand', type: 'string', description: 'brand name' },
  { name: 'sku', type: 'string', description: 'seller SKU' },
];

test('evidence.wacz of a live job is accepted by the archive upload, and a later job with no network researches it', async () => {
  const pageUrl = `${shop.base}/trip-widget`;
  const live = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: [{ name: 'Trip Widget' }], output_schema: SCHEMA, speed: 'fast', capture_source_artifacts: true });
  expect(live.status).toBe(200);
  expect(live.body.results[0].after_data).toMatchObject({ brand: 'Roundco', sku: 'TW-42' });
  expect(shopHits).toContain('/trip-widget');

  const wacz = await request(app).get(`/api/public/enrich/${live.body.job_id}/evidence.wacz`).set(auth).buffer(true).parse(bufferBody);
  expect(wacz.status).toBe(200);
  const file = path.join(dir, 'evidence.wacz');
  fs.writeFileSync(file, wacz.body as Buffer);

  const upload = await request(app).post('/api/public/research-archives').set(auth).attach('file', file);
  expect(upload.status).toBe(202);
  const archive = await waitUntil(
    async () => {
      const got = await request(app).get(`/api/public/research-archives/${upload.body.id}`).set(auth);
      if (got.body.status === 'failed') throw new Error(got.body.error);
      return got.body.status === 'ready' ? got.body : null;
    },
    'the evidence archive to be indexed',
    60_000,
  );
  // The page is indexed; robots.txt and the request records are not pages.
  expect(archive.progress.pages_indexed).toBe(1);

  // No network: the shop is gone, the search backend answers 503, the live page cache is empty.
  await new Promise((r) => shop.server.close(r));
  searchUp = false;
  await testKnex()('fetch_cache').delete();
  const hitsBefore = shopHits.length;

  const offline = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: [{ name: 'Trip Widget' }], output_schema: SCHEMA, speed: 'fast', include_debug_log: true });
  expect(offline.status).toBe(200);
  expect(offline.body.status).toBe('completed');
  const result = offline.body.results[0];
  expect(result.after_data).toMatchObject({ brand: 'Roundco', sku: 'TW-42' });
  expect(result.after_data.sources.brand).toEqual([pageUrl]);
  expect(shopHits.length).toBe(hitsBefore);
  const row = await testKnex()('enrichment_rows').where({ job_id: offline.body.job_id, row_index: 0 }).first('evidence');
  expect(JSON.stringify(row.evidence)).toContain(upload.body.id);
  // The live search that failed is recorded, though the archive answered.
  expect(row.evidence.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^search "Trip Widget": .*503/)]));
  expect(result.review_info.debug_log.join('\n')).toMatch(new RegExp(`document read: ${pageUrl.replace(/[.]/g, '\\.')} \\(captured .*WARC record <urn:uuid:`));
}, 120_000);
