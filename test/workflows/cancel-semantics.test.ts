/**
 * Cancel semantics over HTTP (docs/api-enrichment.md "Enrichment jobs" and Errors; docs/api-enrichment.md "Job states") with a real
 * dev server and worker: running → cancelled (partial results kept, polls as `failed`), cancelling
 * a cancelled job succeeds again, a completed job → 409 {detail}, a failed job → 409 {detail}.
 */
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import type { JobRunner } from '../../src/services/job-runner';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, type FakeEngineOptions, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { enrichmentWorkflowId } from '../../src/contracts/workflows';

const TASK_QUEUE = 'test-cancel-semantics';
const engineOptions: FakeEngineOptions = {};
const SCHEMA = [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }];

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let auth: { Authorization: string };

beforeAll(async () => {
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: fakeEngine(engineOptions) });
  app = testApiFor(env, TASK_QUEUE, { tuning: { batch_size: 1 } });
  auth = (await createTestOrg('cancel semantics')).auth;
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `item ${i}` }));

test('running → cancelled keeps partial results; cancelling again succeeds; the poll shows failed', async () => {
  // Items 0 and 1 finish; every other one is held until both cancels have been answered, so the
  // job is certainly running when it is cancelled, however fast or slow the machine is.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  engineOptions.holdFor = (item) => (Number(String(item.name).split(' ')[1]) >= 2 ? gate : undefined);
  try {
    const created = await request(app)
      .post('/api/public/enrich')
      .set(auth)
      .send({ items: items(30), output_schema: SCHEMA, async_mode: true });
    const jobId = created.body.job_id;
    await waitUntil(async () => (await request(app).get(`/api/public/enrich/${jobId}`).set(auth)).body.completed_items >= 2, 'rows done');

    const first = await request(app).post(`/api/public/enrich/${jobId}/cancel`).set(auth);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ job_id: jobId, status: 'cancelled' });
    const again = await request(app).post(`/api/public/enrich/${jobId}/cancel`).set(auth);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ job_id: jobId, status: 'cancelled' });
    release();

    await env.client.workflow
      .getHandle(enrichmentWorkflowId(jobId))
      .result()
      .catch(() => undefined);
    const poll = await request(app).get(`/api/public/enrich/${jobId}`).set(auth);
    expect(poll.body.status).toBe('failed'); // cancelled polls as failed
    expect(poll.body.completed_items).toBeGreaterThanOrEqual(2);
    expect(poll.body.completed_items).toBeLessThan(30);
    expect(poll.body.credits_used).toBe(poll.body.successful);
    expect(poll.body.results).toHaveLength(poll.body.completed_items);
  } finally {
    release();
    engineOptions.holdFor = undefined;
  }
});

test('a completed job → 409 {detail}', async () => {
  const created = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: items(2), output_schema: SCHEMA });
  expect(created.body.status).toBe('completed');
  const res = await request(app).post(`/api/public/enrich/${created.body.job_id}/cancel`).set(auth);
  expect(res.status).toBe(409);
  expect(res.body.detail).toMatch(/completed/);
});

test('a failed job → 409 {detail}', async () => {
  // A job whose workflow cannot be started is stored as failed (503 to the creator).
  const down: JobRunner = {
    startEnrichment: async () => {
      throw new Error('temporal down');
    },
    cancel: async () => undefined,
    waitForClose: async () => undefined,
    startSearchIndexBuild: async () => false,
    startApply: async () => undefined,
    startFlowRun: async () => undefined,
    ping: async () => undefined,
  };
  const downApp = createApp({ config: loadConfig(), knex: testKnex(), jobRunner: down }).callback();
  const created = await request(downApp)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: items(2), output_schema: SCHEMA, async_mode: true });
  expect(created.status).toBe(503);
  const list = await request(app).get('/api/public/enrich/jobs?status=failed').set(auth);
  const jobId = list.body.jobs[0].job_id;
  const res = await request(app).post(`/api/public/enrich/${jobId}/cancel`).set(auth);
  expect(res.status).toBe(409);
  expect(res.body.detail).toMatch(/failed/);
});
