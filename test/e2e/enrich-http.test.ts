// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * End to end: real products from ../shared/data enriched through HTTP (Koa app) → PostgreSQL →
 * a real Temporal dev server → the worker's activities → the deterministic engine on the offline
 * web archive. Values are checked against the benchmark's human labels and their source URLs
 * against the pages' original URLs.
 */
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createEngineFromConfig } from '../../src/enrichment';
import { pageItem, PAGES_SCHEMA } from '../../bench/eval/pages';
import { SHARED_DATA } from '../helpers/data';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { bodyOf, EnrichBody } from '../helpers/wire';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const TASK_QUEUE = 'test-e2e-enrichment';
/** Four labelled pages of four different sites (Best Buy CA, John Lewis, Almedina, Amazon FR). */
const PAGE_IDS = [
  '2c42fb6035ff369f80148ebbe5ad62c93fe1532e0435e7ec1be87474cb5578d7',
  '4e545337e1205c88bdb099402a53153050ce51b1f99cf77e1598ddabbbabd390',
  '91f0a111a06e65b04300672fe3707e2b92250d2e60d99c08d19115e7cca11e8e',
  '64915d8c2251307c4c8d4c9f3e506a26d4740e2a806b13e33622b3c889b2b037',
];

const index: Array<Parameters<typeof pageItem>[0]> = JSON.parse(fs.readFileSync(path.join(ZYTE, 'page-index.json'), 'utf8'));
/** ground-truth.json: per page, the acceptable values of each field (and the page's `url`). */
const labels: Record<string, Record<string, string[] | string>> = JSON.parse(fs.readFileSync(path.join(ZYTE, 'ground-truth.json'), 'utf8'));
const pages = PAGE_IDS.map((id) => index.find((p) => p.id === id)!);

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let auth: { Authorization: string };

beforeAll(async () => {
  const config = { ...loadConfig(), researchArchives: [ZYTE, path.join(SHARED_DATA, 'pages', 'metascraper-shopping')] };
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: createEngineFromConfig(config) });
  app = testApiFor(env, TASK_QUEUE, { config, concurrency: 4 });
  auth = (await createTestOrg('e2e')).auth;
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

test('a synchronous job enriches real products with values and source URLs that match the human labels', async () => {
  const items = pages.map((p) => pageItem(p, labels[p.id], 'A'));
  const res = await request(app).post('/api/public/enrich').set(auth).send({ items, output_schema: PAGES_SCHEMA, speed: 'fast' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'completed', total_items: 4, total_rows: 4, completed_items: 4, successful: 4, credits_used: 4 });
  expect(res.body.results).toHaveLength(4);

  bodyOf<EnrichBody>(res).results.forEach((result, i) => {
    const page = pages[i];
    const truth = (field: string): string[] => [labels[page.id][field] ?? []].flat();
    expect(result.original_data).toEqual(items[i]);
    const after = result.after_data;
    expect(truth('price').map(Number)).toContain(Number(after.price));
    expect(truth('sku')).toContain(after.sku);
    for (const field of ['price', 'sku']) {
      expect(after.sources[field]).toEqual([page.url]);
      expect(after.source_explanations[field]).toMatch(/\S/);
      expect(result.review_info.field_confidence[field]).toMatch(/^(high|medium|low)$/);
      expect(result.review_info.field_methods[field]).toBeDefined();
    }
    expect(result.all_sources).toContain(page.url);
    // No value without a source: every extracted field cites at least one source.
    for (const field of PAGES_SCHEMA.map((f) => f.name)) {
      if (after[field] !== undefined && !(field in items[i])) expect(after.sources[field]?.length).toBeGreaterThan(0);
    }
  });
}, 120_000);

test('an async job returns at once, shows results while polled page by page, and lists with its credits', async () => {
  const items = pages.slice(0, 2).map((p) => pageItem(p, labels[p.id], 'A'));
  const created = await request(app).post('/api/public/enrich').set(auth).send({ items, output_schema: PAGES_SCHEMA, async_mode: true, max_rows: 2 });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ status: 'running', results: [], total_items: 2, credits_used: 0 });
  const jobId = created.body.job_id;

  const done = await waitUntil(
    async () => {
      const poll = await request(app).get(`/api/public/enrich/${jobId}?page=2&page_size=1`).set(auth);
      return poll.body.status === 'completed' ? poll : null;
    },
    'the async job to complete',
    60_000,
  );
  expect(done.body).toMatchObject({ page: 2, page_size: 1, total_pages: 2, completed_items: 2, successful: 2, credits_used: 2 });
  expect(done.body.results).toHaveLength(1);
  expect(done.body.results[0].after_data.sources.price).toEqual([pages[1].url]);

  const list = await request(app).get('/api/public/enrich/jobs?status=completed').set(auth);
  expect(bodyOf<{ jobs: Array<{ job_id: string }> }>(list).jobs.find((j) => j.job_id === jobId)).toMatchObject({
    status: 'completed',
    total_items: 2,
    credits_used: 2,
  });

  const cancel = await request(app).post(`/api/public/enrich/${jobId}/cancel`).set(auth);
  expect(cancel.status).toBe(409);
  expect(cancel.body.detail).toMatch(/completed/);
}, 120_000);
