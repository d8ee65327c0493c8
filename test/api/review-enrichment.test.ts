/**
 * Review activities of enrichment jobs and the webhook secret, on the real PostgreSQL and a real
 * Temporal dev server with a worker (only the engine is fake): a job that targets a catalog is
 * one of the catalog's activities, its staged changes record the item's `current_version` as
 * `base_version` (decisions.md §5, Conflicts), and cancelling the activity while the job runs
 * cancels the job through the enrichment cancel (decisions.md §5: staged changes kept). The
 * organization's webhook secret is readable and rotatable (issue 17), and the webhook of that
 * cancelled job, delivered after a rotation, verifies with the new secret and not the old one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { verifyWebhook } from '../../src/services/enrichment/webhooks';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestCatalog } from '../helpers/catalogs';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-review-enrichment';
const engineOptions = { delayMs: 150 };

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
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
  app = testApiFor(env, TASK_QUEUE, { config: { ...loadConfig(), allowHttpWebhooks: true }, tuning: { batch_size: 1 } });
  org = await createTestOrg('review enrichment');
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

test('the webhook secret is readable and rotatable', async () => {
  const before = await request(app).get('/api/public/organization/webhook-secret').set(org.auth);
  expect(before.status).toBe(200);
  expect(before.body).toEqual({ organization_id: org.organizationId, webhook_secret: expect.stringMatching(/^whsec_/) });
  const rotated = await request(app).post('/api/public/organization/webhook-secret/rotate').set(org.auth);
  expect(rotated.status).toBe(200);
  expect(rotated.body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(rotated.body.webhook_secret).not.toBe(before.body.webhook_secret);
  const after = await request(app).get('/api/public/organization/webhook-secret').set(org.auth);
  expect(after.body.webhook_secret).toBe(rotated.body.webhook_secret);
  expect((await request(app).get('/api/public/organization/webhook-secret')).status).toBe(401);
});

test('an enrichment job is an activity of its catalog; cancelling the activity cancels the job and keeps its changes; its webhook verifies with the rotated secret', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const items = Array.from({ length: 30 }, (_, i) => ({ sku: `E-${i}`, title: `Item ${i}` }));
  await request(app).post(`/api/public/catalogs/${catalogId}/items/bulk`).set(org.auth).send({ items });
  await testKnex()('catalog_items').where({ catalog_id: catalogId }).update({ current_version: 3 });
  const oldSecret = (await request(app).get('/api/public/organization/webhook-secret').set(org.auth)).body.webhook_secret;
  const newSecret = (await request(app).post('/api/public/organization/webhook-secret/rotate').set(org.auth)).body.webhook_secret;
  const rx = await receiver();
  try {
    const created = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        items,
        catalog_id: catalogId,
        async_mode: true,
        webhook_url: rx.url,
        output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
      });
    expect(created.status).toBe(200);
    const jobId: string = created.body.job_id;
    await waitUntil(async () => (await request(app).get(`/api/public/enrich/${jobId}`).set(org.auth)).body.completed_items >= 2, 'two rows done');

    const listed = await request(app).get(`/api/public/catalogs/${catalogId}/activities`).query({ type: 'enrichment' }).set(org.auth);
    expect(listed.body.total).toBe(1);
    expect(listed.body.activities[0]).toMatchObject({ id: jobId, catalog_id: catalogId, type: 'enrichment', status: 'running' });
    expect(listed.body.activities[0].staged_count).toBeGreaterThanOrEqual(2);

    const cancelled = await request(app).post(`/api/public/activities/${jobId}/cancel`).set(org.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: jobId, type: 'enrichment', status: 'cancelled' });
    const job = await testKnex()('enrichment_jobs').where({ id: jobId }).first('status');
    expect(job.status).toBe('cancelled');

    const changes = await request(app).get(`/api/activities/${jobId}/staged-changes`).query({ page_size: 100 }).set(org.auth);
    expect(changes.body.total).toBeGreaterThanOrEqual(2);
    expect(changes.body.total).toBeLessThan(30);
    for (const c of changes.body.items as Array<{ base_version: number | null; catalog_item_id: string | null }>) {
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

test('a job staging drafts on a catalog: absolute review_url on POST, poll and activity; drafts hidden until submitted, then approved and applied', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const items = Array.from({ length: 3 }, (_, i) => ({ sku: `D-${i}`, title: `Draft item ${i}` }));
  await request(app).post(`/api/public/catalogs/${catalogId}/items/bulk`).set(org.auth).send({ items }).expect(200);
  const created = await request(app)
    .post('/api/public/enrich')
    .set(org.auth)
    .send({
      items,
      catalog_id: catalogId,
      async_mode: true,
      staged_status: 'draft',
      output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
    });
  expect(created.status).toBe(200);
  const jobId: string = created.body.job_id;
  const reviewUrl = `${loadConfig().publicUrl}/dashboard/catalogs/${catalogId}/activities/${jobId}`;
  expect(reviewUrl).toMatch(/^https?:\/\//);
  expect(created.body.review_url).toBe(reviewUrl);
  const polled = await waitUntil(async () => {
    const res = await request(app).get(`/api/public/enrich/${jobId}`).set(org.auth);
    return res.body.status === 'completed' ? res.body : null;
  }, 'job completed');
  expect(polled.review_url).toBe(reviewUrl);
  const noCatalog = await request(app)
    .post('/api/public/enrich')
    .set(org.auth)
    .send({ items: items.slice(0, 1), async_mode: true, output_schema: [{ name: 'enriched', type: 'boolean', description: 'x' }] });
  expect(noCatalog.body.review_url).toBeUndefined();

  const activity = await request(app).get(`/api/activities/${jobId}`).set(org.auth);
  expect(activity.body).toMatchObject({ status: 'pending_review', staged_count: 0, draft_count: 3, review_url: reviewUrl });
  expect((await request(app).get(`/api/public/catalogs/${catalogId}/activities`).set(org.auth)).body.total).toBe(0);
  expect((await request(app).get(`/api/public/catalogs/${catalogId}/activities`).query({ include_drafts: true }).set(org.auth)).body.total).toBe(1);
  const review = (body: Record<string, unknown>) => request(app).post(`/api/activities/${jobId}/staged-changes/bulk-review`).set(org.auth).send(body);
  expect((await review({ action: 'approve_all' })).body.updated).toBe(0);

  const submitted = await request(app).post(`/api/public/activities/${jobId}/submit`).set(org.auth).send({});
  expect(submitted.body).toEqual({ activity_id: jobId, status: 'pending_review', submitted: 3, review_url: reviewUrl });
  expect((await request(app).get(`/api/public/catalogs/${catalogId}/activities`).set(org.auth)).body.activities).toEqual([
    expect.objectContaining({ id: jobId, staged_count: 3, review_url: reviewUrl }),
  ]);
  expect((await review({ action: 'approve_all' })).body.updated).toBe(3);
  expect((await request(app).post(`/api/activities/${jobId}/apply`).set(org.auth).send({})).status).toBe(202);
  const applied = await waitUntil(async () => {
    const res = await request(app).get(`/api/activities/${jobId}`).set(org.auth);
    return res.body.status === 'completed' ? res.body : null;
  }, 'apply completed');
  expect(applied.apply_result).toMatchObject({ applied: 3, failed: 0 });
  const rows = await testKnex()('catalog_items').where({ catalog_id: catalogId }).select('data');
  expect(rows.map((r: { data: Record<string, unknown> }) => r.data.enriched)).toEqual([true, true, true]);
});
