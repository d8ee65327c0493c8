/**
 * Fill the gaps for a channel, end to end (docs/channels.md, "Fill the gaps for a channel"): a
 * catalog whose items, imported from a CSV file, lack GTIN and brand is blocked for Google
 * Merchant Center; `POST …/channel-readiness/fill-gaps` starts an enrichment job that runs through a real
 * Temporal dev server on the worker's own deterministic engine (no LLM, no search provider),
 * which reads each item's own page from a shop served here on 127.0.0.1 (FETCH_ALLOW_PRIVATE);
 * the staged values carry those pages as sources; approved and applied through the review API,
 * they make readiness count the items ready, and a feed run's file then holds them with the
 * values found.
 */
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { feedRunWorkflowId } from '../../src/contracts/feed-workflows';
import { createEngineFromConfig } from '../../src/enrichment';
import { createFetchState } from '../../src/services/fetching/live-fetcher';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import { archiveIndexFetcher, archiveIndexSearch } from '../../src/services/research-archives/search';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-e2e-channel-fill-gaps';

/** What the shop's page of each product says: its brand and GTIN-13 (valid GS1 check digits). */
const PAGES: Record<string, { name: string; brand: string; gtin: string }> = {
  LAMP: { name: 'Nordlicht Desk Lamp 40 cm', brand: 'Nordlicht', gtin: '4006381333931' },
  KETTLE: { name: 'Brava Steel Kettle 1.7 l', brand: 'Brava', gtin: '5901234123457' },
};

/** A product page: JSON-LD Product with brand and gtin13, and the same in the visible text. */
function productPage(sku: string): string {
  const p = PAGES[sku];
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: p.name,
    sku,
    brand: { '@type': 'Brand', name: p.brand },
    gtin13: p.gtin,
    offers: { '@type': 'Offer', price: '24.90', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' },
  };
  return `<html><head><title>${p.name}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head>
<body><h1>${p.name}</h1><p>Brand: ${p.brand}</p><p>EAN: ${p.gtin}</p><p>24.90 EUR</p></body></html>`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'channel-fill-gaps-'));
let shop: http.Server;
let base: string;
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let auth: { Authorization: string };

beforeAll(async () => {
  shop = http.createServer((req, res) => {
    const m = /^\/p\/([A-Z]+)$/.exec(req.url ?? '');
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (m && PAGES[m[1]]) return res.writeHead(200, { 'content-type': 'text/html' }).end(productPage(m[1]));
    return res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  // The default configuration (no search provider, no archive, no LLM), loopback shops allowed.
  const config = loadConfig({
    ...process.env,
    SEARCH_PROVIDER: '',
    SHARED_DATA_DIR: path.join(dir, 'no-shared-data'),
    RESEARCH_ARCHIVES: '',
    DATA_DIR: path.join(dir, 'data'),
    BLOB_DIR: path.join(dir, 'blobs'),
    S3_BUCKET: '',
    OPENAI_BASE_URL: '',
    FETCH_ALLOW_PRIVATE: 'true',
    FETCH_HOST_INTERVAL_MS: '20',
  });
  env = await startTestTemporal();
  const knex = testKnex();
  const storage = enrichmentStorage(config);
  const engine = createEngineFromConfig(config, {
    fetchState: createFetchState(knex, config.fetch),
    archiveIndex: { search: archiveIndexSearch(knex), fetcher: archiveIndexFetcher(knex, storage.blobs) },
  });
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine, storage, config, research: config });
  app = testApiFor(env, TASK_QUEUE, { config });
  ({ auth } = await createTestOrg('channel fill gaps e2e'));
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  if (shop) await new Promise((r) => shop.close(r));
  await closeTestKnex();
  fs.rmSync(dir, { recursive: true, force: true });
});

const FIELDS: Record<string, { type: string; description: string }> = {
  sku: { type: 'string', description: 'Stock keeping unit' },
  title: { type: 'string', description: 'Product name' },
  description: { type: 'string', description: 'Product description' },
  url: { type: 'string', description: 'Product page URL' },
  image_link: { type: 'string', description: 'Main image URL' },
  price: { type: 'number', description: 'Price in EUR' },
  availability: { type: 'string', description: 'Stock availability' },
  brand: { type: 'string', description: 'Brand of the product' },
  gtin: { type: 'string', description: 'GTIN-13 barcode (EAN)' },
};

/** Google attribute → catalog field (the feed's own mapping, so the test does not rest on the proposal). */
const MAPPING = {
  id: 'sku',
  title: 'title',
  description: 'description',
  link: 'url',
  image_link: 'image_link',
  price: 'price',
  availability: 'availability',
  brand: 'brand',
  gtin: 'gtin',
  condition: { value: 'new' },
};

const product = (sku: string, extra: Record<string, unknown> = {}) => ({
  sku,
  title: sku === 'MUG' ? 'Stoneware Mug' : PAGES[sku].name,
  description: `The ${sku.toLowerCase()}, described`,
  url: `${base}/p/${sku}`,
  image_link: `https://shop.example/${sku}.jpg`,
  price: 24.9,
  availability: 'in stock',
  ...extra,
});

/** A CSV file (RFC 4180: every value quoted) of `rows`, columns in the order of the first row's keys plus any later ones. */
function toCsv(rows: Array<Record<string, unknown>>): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => `"${v === undefined ? '' : String(v).replace(/"/g, '""')}"`;
  return [cols.map(cell).join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\r\n') + '\r\n';
}

/** A TSV file as rows of objects by its header. */
function parseTsv(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trimEnd().split('\n');
  const cols = head.split('\t');
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])));
}

const readiness = async (catalogId: string) =>
  (await request(app).get(`/api/public/catalogs/${catalogId}/channel-readiness?channel=google_merchant_center`).set(auth)).body;

/** Waits until the job has finished; returns its poll. */
async function finishedJob(jobId: string): Promise<Record<string, unknown>> {
  return waitUntil(async () => {
    const res = await request(app).get(`/api/public/enrich/${jobId}?page=1&page_size=10`).set(auth);
    return res.body.status === 'running' ? null : res.body;
  }, `job ${jobId}`);
}

it("fills GTIN and brand from the items' own pages: staged, reviewed, applied, ready, in the feed file", async () => {
  const created = await request(app)
    .post('/api/public/catalogs')
    .set(auth)
    .send({ name: 'Shop', unique_id_field: 'sku', schema_definition: { properties: FIELDS, required: ['sku'] } });
  expect(created.status).toBe(200);
  const catalogId = created.body.id as string;
  // The items arrive as a spreadsheet import (CSV through the import workflow), as a shop's catalog would.
  const csv = toCsv([product('LAMP'), product('KETTLE'), product('MUG', { brand: 'Potter', gtin: '9780201379624' })]);
  const imported = await request(app).post(`/api/public/catalogs/${catalogId}/items/import`).set(auth).attach('file', Buffer.from(csv), 'shop.csv');
  expect(imported.status).toBe(202);
  const importDone = await waitUntil(async () => {
    const res = await request(app).get(`/api/public/catalogs/${catalogId}/items/import/${imported.body.import_id}`).set(auth);
    return res.body.status === 'running' ? null : res.body;
  }, 'the CSV import');
  expect(importDone).toMatchObject({ status: 'completed', created: 3, failed: 0 });
  const feed = await request(app)
    .post(`/api/public/catalogs/${catalogId}/feeds`)
    .set(auth)
    .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', currency: 'EUR', mapping: MAPPING });
  expect(feed.status).toBe(201);

  // Before: the lamp and the kettle have neither GTIN nor brand.
  expect(await readiness(catalogId)).toMatchObject({ total: 3, ready: 1, blocked: { identifier_missing: 2 }, by_attribute: { brand: 2 } });

  const started = await request(app)
    .post(`/api/public/catalogs/${catalogId}/channel-readiness/fill-gaps`)
    .set(auth)
    .send({ channel: 'google_merchant_center' });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ fields: ['brand', 'gtin'], items: 2, mapping_source: 'feed', not_fillable: [{ attribute: 'mpn' }] });
  const jobId = started.body.job_id as string;
  expect(await finishedJob(jobId)).toMatchObject({ status: 'completed', successful: 2 });

  // Staged for review: the values of each item's own page, with that page as their source.
  const staged = await request(app).get(`/api/activities/${jobId}/staged-changes?page=1&page_size=10`).set(auth);
  expect(staged.status).toBe(200);
  const changes = staged.body.items as Array<{ after_data: Record<string, unknown>; source_data: { sources: Record<string, string[]> } }>;
  expect(changes).toHaveLength(2);
  for (const c of changes) {
    const sku = String(c.after_data.sku);
    expect(c.after_data).toMatchObject({ brand: PAGES[sku].brand, gtin: PAGES[sku].gtin });
    expect(c.source_data.sources.gtin).toEqual([`${base}/p/${sku}`]);
    expect(c.source_data.sources.brand).toEqual([`${base}/p/${sku}`]);
  }

  // Approve and apply through the review API.
  const review = await request(app).post(`/api/public/activities/${jobId}/staged-changes/bulk-review`).set(auth).send({ action: 'approve_all' });
  expect(review.status).toBe(200);
  const apply = await request(app).post(`/api/public/activities/${jobId}/apply`).set(auth).send({});
  expect(apply.status).toBe(202);
  const applied = await waitUntil(async () => {
    const row = await testKnex()('review_activities').where('id', jobId).first('status', 'apply_progress');
    return row.status === 'completed' || row.apply_progress?.phase === 'failed' ? row : null;
  }, 'the apply');
  expect(applied.status).toBe('completed');

  // After: every item ready.
  expect(await readiness(catalogId)).toMatchObject({ total: 3, ready: 3, blocked: {}, by_attribute: {} });

  // A feed run's file holds the filled items with the values found.
  const run = await request(app).post(`/api/public/feeds/${feed.body.id}/runs`).set(auth).send({});
  expect(run.status).toBe(202);
  await env.client.workflow.getHandle(feedRunWorkflowId(run.body.run_id)).result();
  const done = await request(app).get(`/api/public/feeds/${feed.body.id}/runs/${run.body.run_id}`).set(auth);
  expect(done.body).toMatchObject({ status: 'completed', counts: { items: 3, exported: 3, excluded: 0 } });
  const file = await request(app).get(done.body.file_url).set(auth).buffer(true);
  expect(file.status).toBe(200);
  const rows = parseTsv(file.text);
  expect(rows.map((r) => r.id).sort()).toEqual(['KETTLE', 'LAMP', 'MUG']);
  for (const sku of ['LAMP', 'KETTLE']) expect(rows.find((r) => r.id === sku)).toMatchObject({ brand: PAGES[sku].brand, gtin: PAGES[sku].gtin });
}, 240_000);
