/**
 * Review activities of enrichment jobs and the webhook secret, on the real PostgreSQL and a real
 * Temporal dev server with a worker (only the engine is fake): a job that targets a catalog is
 * one of the catalog's activities, its staged changes record the item's `current_version` as
 * `base_version` (docs/api-review.md "Conflicts"), and cancelling the activity while the job runs
 * cancels the job through the enrichment cancel (docs/api-review.md "Staged changes": staged changes kept). The
 * organization's webhook secret is readable and rotatable, and the webhook of that
 * cancelled job, delivered after a rotation, verifies with the new secret and not the old one.
 * Called through the typed client (packages/client).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { CatalogClient } from '@catalog-enrichment/client';
import { loadConfig } from '../../src/config';
import { verifyWebhook } from '../../src/services/enrichment/webhooks';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestCatalog } from '../helpers/catalogs';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-review-enrichment';
const engineOptions = { delayMs: 150 };

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let server: http.Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;

/** A receiver on 127.0.0.1 keeping every request's headers and raw body. */
async function receiver(): Promise<{ url: string; received: Array<{ headers: http.IncomingHttpHeaders; body: string }>; close(): Promise<void> }> {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

beforeAll(async () => {
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: fakeEngine(engineOptions), allowHttpWebhooks: true });
  server = await listenTestApp(testApiFor(env, TASK_QUEUE, { config: { ...loadConfig(), allowHttpWebhooks: true }, tuning: { batch_size: 1 } }));
  org = await createTestOrg('review enrichment');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

/** `GET /api/public/enrich/{job_id}`: the job's poll answer. */
async function pollJob(jobId: string) {
  return (await api.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: jobId } } })).data!;
}

test('the webhook secret is readable and rotatable', async () => {
  const before = await api.GET('/api/public/organization/webhook-secret');
  expect(before.response.status).toBe(200);
  expect(before.data).toEqual({ organization_id: org.organizationId, webhook_secret: expect.stringMatching(/^whsec_/) });
  const rotated = await api.POST('/api/public/organization/webhook-secret/rotate');
  expect(rotated.response.status).toBe(200);
  expect(rotated.data!.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(rotated.data!.webhook_secret).not.toBe(before.data!.webhook_secret);
  const after = await api.GET('/api/public/organization/webhook-secret');
  expect(after.data!.webhook_secret).toBe(rotated.data!.webhook_secret);
  expect((await typedClient(server).GET('/api/public/organization/webhook-secret')).response.status).toBe(401);
});

test('an enrichment job is an activity of its catalog; cancelling the activity cancels the job and keeps its changes; its webhook verifies with the rotated secret', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const items = Array.from({ length: 30 }, (_, i) => ({ sku: `E-${i}`, title: `Item ${i}` }));
  await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalogId } }, body: { items } });
  await testKnex()('catalog_items').where({ catalog_id: catalogId }).update({ current_version: 3 });
  const oldSecret = (await api.GET('/api/public/organization/webhook-secret')).data!.webhook_secret;
  const newSecret = (await api.POST('/api/public/organization/webhook-secret/rotate')).data!.webhook_secret;
  const rx = await receiver();
  try {
    const created = await api.POST('/api/public/enrich', {
      body: {
        items,
        catalog_id: catalogId,
        async_mode: true,
        webhook_url: rx.url,
        output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
      },
    });
    expect(created.response.status).toBe(200);
    const jobId: string = created.data!.job_id!;
    await waitUntil(async () => ((await pollJob(jobId)).completed_items ?? 0) >= 2, 'two rows done');

    const listed = await api.GET('/api/public/catalogs/{catalog_id}/activities', {
      params: { path: { catalog_id: catalogId }, query: { type: 'enrichment' } },
    });
    expect(listed.data!.total).toBe(1);
    expect(listed.data!.activities[0]).toMatchObject({ id: jobId, catalog_id: catalogId, type: 'enrichment', status: 'running' });
    expect(listed.data!.activities[0].staged_count).toBeGreaterThanOrEqual(2);

    const cancelled = await api.POST('/api/public/activities/{activity_id}/cancel', { params: { path: { activity_id: jobId } } });
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data).toMatchObject({ id: jobId, type: 'enrichment', status: 'cancelled' });
    const job = await testKnex()('enrichment_jobs').where({ id: jobId }).first('status');
    expect(job.status).toBe('cancelled');

    const changes = await api.GET('/api/activities/{activity_id}/staged-changes', { params: { path: { activity_id: jobId }, query: { page_size: 100 } } });
    expect(changes.data!.total).toBeGreaterThanOrEqual(2);
    expect(changes.data!.total).toBeLessThan(30);
    for (const c of changes.data!.items) {
      expect(c.catalog_item_id).not.toBeNull();
      expect(c.base_version).toBe(3);
    }

    await waitUntil(() => rx.received.length >= 1, 'webhook of the cancelled job delivered');
    const [hook] = rx.received;
    expect(JSON.parse(hook.body)).toMatchObject({ job_id: jobId, status: 'cancelled' });
    expect(verifyWebhook(newSecret, hook.headers, hook.body)).toBe(true);
    expect(verifyWebhook(oldSecret, hook.headers, hook.body)).toBe(false);
  } finally {
    await rx.close();
  }
});

test('a job staging drafts on a catalog: absolute review_url on POST, poll and activity; drafts read back like any change, never bulk-approved until submitted, then approved and applied', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const items = Array.from({ length: 3 }, (_, i) => ({ sku: `D-${i}`, title: `Draft item ${i}` }));
  expect(
    (await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalogId } }, body: { items } })).response.status,
  ).toBe(200);
  const created = await api.POST('/api/public/enrich', {
    body: {
      items,
      catalog_id: catalogId,
      async_mode: true,
      staged_status: 'draft',
      output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
    },
  });
  expect(created.response.status).toBe(200);
  const jobId: string = created.data!.job_id!;
  const reviewUrl = `${loadConfig().publicUrl}/dashboard/catalogs/${catalogId}/activities/${jobId}`;
  expect(reviewUrl).toMatch(/^https?:\/\//);
  expect(created.data!.review_url).toBe(reviewUrl);
  const polled = await waitUntil(async () => {
    const job = await pollJob(jobId);
    return job.status === 'completed' ? job : null;
  }, 'job completed');
  expect(polled.review_url).toBe(reviewUrl);
  const noCatalog = await api.POST('/api/public/enrich', {
    body: { items: items.slice(0, 1), async_mode: true, output_schema: [{ name: 'enriched', type: 'boolean', description: 'x' }] },
  });
  expect(noCatalog.data!.review_url).toBeUndefined();

  const getActivity = async () => (await api.GET('/api/activities/{activity_id}', { params: { path: { activity_id: jobId } } })).data!;
  expect(await getActivity()).toMatchObject({ status: 'pending_review', staged_count: 3, draft_count: 3, review_url: reviewUrl });
  const activities = async (query: { include_drafts?: boolean } = {}) =>
    (await api.GET('/api/public/catalogs/{catalog_id}/activities', { params: { path: { catalog_id: catalogId }, query } })).data!;
  expect((await activities()).activities).toEqual([expect.objectContaining({ id: jobId, staged_count: 3, review_url: reviewUrl })]);
  expect((await activities({ include_drafts: false })).total).toBe(0);
  const approveAll = async () =>
    (await api.POST('/api/activities/{activity_id}/staged-changes/bulk-review', { params: { path: { activity_id: jobId } }, body: { action: 'approve_all' } }))
      .data!;
  expect((await approveAll()).updated).toBe(0);

  const submitted = await api.POST('/api/public/activities/{activity_id}/submit', { params: { path: { activity_id: jobId } }, body: {} });
  expect(submitted.data).toEqual({ activity_id: jobId, status: 'pending_review', submitted: 3, review_url: reviewUrl });
  expect((await activities({ include_drafts: false })).activities).toEqual([expect.objectContaining({ id: jobId, staged_count: 3 })]);
  expect((await approveAll()).updated).toBe(3);
  expect((await api.POST('/api/activities/{activity_id}/apply', { params: { path: { activity_id: jobId } }, body: {} })).response.status).toBe(202);
  const applied = await waitUntil(async () => {
    const activity = await getActivity();
    return activity.status === 'completed' ? activity : null;
  }, 'apply completed');
  expect(applied.apply_result).toMatchObject({ applied: 3, failed: 0 });
  const rows = await testKnex()('catalog_items').where({ catalog_id: catalogId }).select('data');
  expect(rows.map((r: { data: Record<string, unknown> }) => r.data.enriched)).toEqual([true, true, true]);
});
