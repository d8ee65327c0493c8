/**
 * Worker metrics: a job run by a real worker on a real Temporal dev server counts its
 * final status, items, credits, engine calls and activity durations in the process's Prometheus
 * registry (served by the worker at WORKER_METRICS_PORT, and by the API at /metrics).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { metrics } from '../../src/lib/metrics';
import { TemporalJobRunner } from '../../temporal/client';
import { serveWorkerMetrics } from '../../temporal/worker';
import type { AddressInfo } from 'node:net';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestJob, fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';

const TASK_QUEUE = 'test-observability';
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;

/** The value of one sample of the registry (0 when absent). */
async function sample(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await metrics.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (metric?.values ?? []) as Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
  const match = values.find(
    (v) =>
      (v.metricName === undefined || v.metricName === name || v.metricName === `${name}_count`) && Object.entries(labels).every(([k, l]) => v.labels[k] === l),
  );
  return match?.value ?? 0;
}

beforeAll(async () => {
  env = await startTestTemporal();
  worker = await runTestWorker(env, {
    taskQueue: TASK_QUEUE,
    knex: testKnex(),
    engine: fakeEngine({ delayMs: 0, errorFor: (item) => String(item.name).endsWith('2') }),
  });
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

it('counts the finished job, its items and credits, engine calls and activity durations', async () => {
  const before = {
    completed: await sample('enrichment_jobs_finished_total', { status: 'completed' }),
    succeeded: await sample('enrichment_items_total', { outcome: 'succeeded' }),
    failed: await sample('enrichment_items_total', { outcome: 'failed' }),
    credits: await sample('enrichment_credits_total'),
    engine: await sample('enrichment_engine_duration_seconds', { method: 'enrich' }),
    finalize: await sample('temporal_activity_duration_seconds', { activity: 'finalizeJob', result: 'ok' }),
  };
  const { organizationId } = await createTestOrg('observability org');
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 });
  const { workflowId } = await createTestJob(testKnex(), runner, organizationId, 5);
  await env.client.workflow.getHandle(workflowId).result();

  // Items "item 0" … "item 4": "item 2" fails in the engine, the other four succeed.
  expect(await sample('enrichment_jobs_finished_total', { status: 'completed' })).toBe(before.completed + 1);
  expect(await sample('enrichment_items_total', { outcome: 'succeeded' })).toBe(before.succeeded + 4);
  expect(await sample('enrichment_items_total', { outcome: 'failed' })).toBe(before.failed + 1);
  expect(await sample('enrichment_credits_total')).toBe(before.credits + 4);
  expect(await sample('enrichment_engine_duration_seconds', { method: 'enrich' })).toBe(before.engine + 5);
  expect(await sample('temporal_activity_duration_seconds', { activity: 'finalizeJob', result: 'ok' })).toBe(before.finalize + 1);
  expect(await metrics.metrics()).toContain('webhook_attempts_total');
});

it('serves the worker registry at /metrics on its own port', async () => {
  const server = await serveWorkerMetrics(0);
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('enrichment_jobs_finished_total');
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  } finally {
    server.close();
  }
});
