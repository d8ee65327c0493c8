/**
 * The channel and feed tools of the tool server (docs/mcp.md "Tools"): the SDK's own MCP client
 * drives `npm run mcp` over stdio against the real service (PostgreSQL, Temporal dev server and
 * worker running feedRunWorkflow). A Google Merchant Center feed of a small catalog (a product
 * with two variants, a product with a bad GTIN check digit, a plain product): the channels list,
 * the catalog's readiness (under its feed's mapping and currency), a run waited for to its end,
 * its issues filtered by code and severity, a run returned at once and polled, and the errors an
 * agent sees for bad input and unknown ids.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/lib/ids';
import { TemporalJobRunner } from '../../temporal/client';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { listen, ListeningApp, McpSession, startMcp } from '../helpers/mcp';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { FEED_MAPPING, FEED_SCHEMA, seedFeedCatalog } from '../helpers/feed-catalog';

const TASK_QUEUE = 'test-mcp-feeds';

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let service: ListeningApp;
let mcp: McpSession;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let workspace: string;

const SCHEMA = FEED_SCHEMA;
const MAPPING = FEED_MAPPING;
const seed = (catalogId: string) => seedFeedCatalog(knex, catalogId);

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('mcp feeds');
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine() });
  // Two items per page, so a run writes several pages.
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 }, {}, {}, {}, {}, {}, {}, { page_items: 2 });
  service = await listen(createApp({ config: loadConfig(), knex, jobRunner: runner }));
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-feeds-'));
  mcp = await startMcp({
    CATALOG_API_KEY: org.apiKey,
    CATALOG_BASE_URL: service.baseUrl,
    CATALOG_MCP_WORKSPACE: workspace,
    CATALOG_MCP_CREDENTIALS_FILE: path.join(workspace, 'no-credentials.json'),
  });
}, 300_000);

afterAll(async () => {
  await mcp?.close();
  await service?.close();
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
});

/** A feed of `catalogId` to Google Merchant Center (TSV) with {@link MAPPING}, created over HTTP as a person would in the dashboard. */
async function newFeed(catalogId: string): Promise<string> {
  const res = await request(service.origin)
    .post(`/api/public/catalogs/${catalogId}/feeds`)
    .set(org.auth)
    .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', currency: 'EUR', mapping: MAPPING });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** A run as the feed tools answer it (the fields asserted here). */
interface RunOut {
  run_id: string;
  id: string;
  status: string;
  done: boolean;
  counts: Record<string, number>;
  progress: Record<string, number>;
  issues_url: string;
}

test('lists the channels, reports a catalog’s readiness, runs its feed to the end and pages the run’s issues', async () => {
  const channels = await mcp.call<{ channels: Array<{ id: string; formats: string[]; attributes: Array<{ name: string }> }> }>('catalog_channel_list', {});
  expect(channels.channels.map((c) => c.id).sort()).toEqual(['google_merchant_center', 'meta_catalog', 'schema_org']);
  const google = channels.channels.find((c) => c.id === 'google_merchant_center');
  expect(google?.formats).toEqual(expect.arrayContaining(['tsv', 'xml']));
  expect(google?.attributes.map((a) => a.name)).toEqual(expect.arrayContaining(['id', 'title', 'gtin', 'item_group_id']));

  const catalogId = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: SCHEMA });
  const ids = await seed(catalogId);
  const feedId = await newFeed(catalogId);
  const readiness = await mcp.call<Record<string, unknown>>('catalog_channel_readiness', { catalog_id: catalogId, channel: 'google_merchant_center' });
  // Readiness checks with the catalog's feed for the channel (docs/channels.md "Readiness"): its
  // mapping and its currency, which makes the bare prices (19.5) valid, as in the run.
  expect(readiness).toMatchObject({
    channel: 'google_merchant_center',
    total: 4,
    ready: 3,
    blocked: { invalid_gtin: 1 },
    mapping_suggested: false,
    mapping_source: 'feed',
    feed_id: feedId,
    mapping: { id: 'sku', title: 'title', gtin: 'gtin', price: 'price', condition: { value: 'new' } },
  });
  expect(Object.keys(readiness.blocked as object)).toEqual(['invalid_gtin']);

  const run = await mcp.call<RunOut>('catalog_feed_run', { feed_id: feedId, wait_seconds: 120 });
  expect(run).toMatchObject({ done: true, status: 'completed', progress: { items_read: 4, total: 4 }, counts: { items: 4, exported: 3, excluded: 1 } });
  expect(run.run_id).toBe(run.id);
  expect(run.counts.items).toBe(readiness.total);
  expect(run.counts.exported).toBe(readiness.ready);
  expect(run.issues_url).toBe(`/api/public/feeds/${feedId}/runs/${run.id}/issues`);
  expect(await mcp.call('catalog_feed_run_get', { feed_id: feedId, run_id: run.id })).toMatchObject({ id: run.id, status: 'completed', counts: run.counts });

  const gtin = await mcp.call<{ total: number; page: number; total_pages: number; items: Array<Record<string, unknown>> }>('catalog_feed_run_issues', {
    feed_id: feedId,
    run_id: run.id,
    code: 'invalid_gtin',
  });
  expect(gtin).toMatchObject({ total: 1, page: 1, total_pages: 1 });
  expect(gtin.items).toEqual([
    expect.objectContaining({ item_id: ids.P2, sku: 'P2', attribute: 'gtin', severity: 'error', code: 'invalid_gtin', value: '4006381333932' }),
  ]);
  const errors = await mcp.call<{ total: number; items: Array<{ item_id: string; severity: string }> }>('catalog_feed_run_issues', {
    feed_id: feedId,
    run_id: run.id,
    severity: 'error',
    page_size: 100,
  });
  expect(new Set(errors.items.map((i) => i.item_id))).toEqual(new Set([ids.P2]));
  const byAttribute = await mcp.call<{ total: number }>('catalog_feed_run_issues', { feed_id: feedId, run_id: run.id, attribute: 'no_such_attribute' });
  expect(byAttribute.total).toBe(0);
});

test('wait_seconds 0 returns the run at once; catalog_feed_run_get polls it to its end', async () => {
  const catalogId = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: SCHEMA });
  await seed(catalogId);
  const feedId = await newFeed(catalogId);
  const started = await mcp.call<RunOut>('catalog_feed_run', { feed_id: feedId, wait_seconds: 0, delta: true });
  expect(started.run_id).toEqual(expect.any(String));
  expect(started.done).toBe(['completed', 'failed', 'cancelled'].includes(started.status));
  const last = await waitUntil(
    async () => {
      const r = await mcp.call<RunOut>('catalog_feed_run_get', { feed_id: feedId, run_id: started.run_id });
      return r.status === 'completed' ? r : null;
    },
    'the delta run to complete',
    120_000,
    200,
  );
  // A delta run with no completed run before it: every exportable item is "changed" (docs/feeds.md "Delta runs").
  expect(last).toMatchObject({ delta: true, counts: { items: 4, exported: 3, excluded: 1 } });
});

test('bad input and unknown ids reach the agent as errors with the service’s status and detail', async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  // The tool's input schema refuses an unknown channel before any call.
  const r = await mcp.client.callTool({ name: 'catalog_channel_readiness', arguments: { catalog_id: catalogId, channel: 'ebay' } });
  expect(r.isError).toBe(true);
  expect(JSON.stringify(r.content)).toMatch(/channel/);
  expect(await mcp.callError('catalog_channel_readiness', { catalog_id: newId(), channel: 'meta_catalog' })).toMatchObject({ error: 'ApiError', status: 404 });
  expect(await mcp.callError('catalog_feed_run', { feed_id: newId(), wait_seconds: 0 })).toMatchObject({ error: 'ApiError', status: 404 });
  const feedId = await newFeed(catalogId);
  expect(await mcp.callError('catalog_feed_run_get', { feed_id: feedId, run_id: newId() })).toMatchObject({ status: 404 });
  expect(await mcp.callError('catalog_feed_run_issues', { feed_id: feedId, run_id: newId() })).toMatchObject({ status: 404 });
});
