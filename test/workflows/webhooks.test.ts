/**
 * Job webhooks (docs/api-enrichment.md "Webhooks") against a real Temporal dev server and the PostgreSQL test
 * database: receivers on 127.0.0.1 that fail once (500 then 200), hang past the attempt timeout,
 * refuse connections, or succeed; every receiver verifies the Standard-Webhooks signature with
 * the organization's secret. The job is final before delivery and a failed delivery never
 * changes it; every attempt is on the poll response. Only the engine is fake.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import { ValidationError } from '../../src/lib/errors';
import { cancelEnrichmentJob, createEnrichmentJob, getEnrichmentJob } from '../../src/services/enrichment/jobs/jobs';
import { presentJobPage } from '../../src/presenters/enrich';
import { verifyWebhook } from '../../src/services/enrichment/webhooks';
import { TemporalJobRunner } from '../../temporal/client';
import { ENRICHMENT_JOB_KIND, enrichmentWorkflowId, JOB_KIND, ORGANIZATION_ID, WEBHOOK_JOB_KIND, webhookWorkflowId } from '../../src/contracts/workflows';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

/** A polled job's `webhook`: its delivery attempts. */
interface WebhookState {
  attempts: Array<{ attempt: number; delivered_at: string | null }>;
}

const TASK_QUEUE = 'test-webhooks';
/**
 * Attempt timeout of the hang test's own worker. The other tests run with the production timeout
 * (30 s), so an attempt that answers is never cut short by a busy machine and their attempt
 * counts are exact.
 */
const HANG_TIMEOUT_MS = 2000;
const HANG_TASK_QUEUE = 'test-webhooks-hang';
const engineOptions = { delayMs: 0 };

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let organizationId: string;
let secret: string;
let runner: TemporalJobRunner;

/** What a receiver does on its n-th request (1-based). */
type Behaviour = (n: number) => 'ok' | 'fail' | 'hang';
interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

/** A receiver on 127.0.0.1 that verifies each request's signature, then answers per `behaviour`. */
async function receiver(behaviour: Behaviour): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body, verified: verifyWebhook(secret, req.headers, body) });
      const what = behaviour(received.length);
      if (what === 'hang') return; // never answers; the attempt times out
      res.writeHead(what === 'ok' ? 200 : 500).end(what);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/enrichment`,
    received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const scope = () => ({ organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [organizationId] } });

/** Creates an async job of `count` echo items with a webhook_url (loopback http allowed). */
async function createJob(webhookUrl: string, count = 3, allowHttpWebhooks = true): Promise<{ jobId: string; workflowId: string }> {
  const job = await createEnrichmentJob({ knex, jobRunner: runner, config: { allowHttpWebhooks } }, scope(), {
    items: Array.from({ length: count }, (_, i) => ({ name: `item ${i}` })),
    async_mode: true,
    webhook_url: webhookUrl,
    output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
  });
  return { jobId: job.job.id, workflowId: enrichmentWorkflowId(job.job.id) };
}

async function deliveries(jobId: string) {
  return knex('webhook_deliveries').where({ job_id: jobId }).orderBy('attempt').select('attempt', 'status_code', 'error', 'delivered_at');
}

beforeAll(async () => {
  knex = testKnex();
  organizationId = (await createTestOrg('webhook tests')).organizationId;
  secret = (await knex('organizations').where({ id: organizationId }).first('webhook_secret')).webhook_secret;
  env = await startTestTemporal();
  worker = await runTestWorker(env, {
    taskQueue: TASK_QUEUE,
    knex,
    engine: fakeEngine(engineOptions),
    publicUrl: 'https://enrich.example.test',
    allowHttpWebhooks: true,
  });
  runner = new TemporalJobRunner(
    env.client,
    { taskQueue: TASK_QUEUE, enrichConcurrency: 2 },
    {
      webhook: { initial_interval_s: 0.2, maximum_interval_s: 0.5, maximum_attempts: 3 },
    },
  );
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

afterEach(() => {
  engineOptions.delayMs = 0;
});

test('a receiver that fails once gets one signed payload, retried by Temporal; every attempt shows on the poll', async () => {
  const rx = await receiver((n) => (n === 1 ? 'fail' : 'ok'));
  try {
    const { jobId, workflowId } = await createJob(rx.url);
    await runner.waitForClose(workflowId);
    const child = env.client.workflow.getHandle(webhookWorkflowId(workflowId));
    expect(await child.result()).toEqual({ delivered: true, attempts: 2, status_code: 200 });
    // The delivery is filed under the job's organization with its own kind.
    const [childAttrs, jobAttrs] = await Promise.all([child.describe(), env.client.workflow.getHandle(workflowId).describe()]);
    expect(childAttrs.typedSearchAttributes.get(JOB_KIND)).toBe(WEBHOOK_JOB_KIND);
    expect(childAttrs.typedSearchAttributes.get(ORGANIZATION_ID)).toBe(jobAttrs.typedSearchAttributes.get(ORGANIZATION_ID));
    expect(jobAttrs.typedSearchAttributes.get(JOB_KIND)).toBe(ENRICHMENT_JOB_KIND);

    expect(rx.received).toHaveLength(2);
    expect(rx.received.every((r) => r.verified)).toBe(true);
    // One logical message: the same webhook-id and body on both attempts.
    expect(rx.received[1].headers['webhook-id']).toBe(rx.received[0].headers['webhook-id']);
    expect(rx.received[1].body).toBe(rx.received[0].body);
    const body = JSON.parse(rx.received[1].body);
    const job = await knex('enrichment_jobs').where({ id: jobId }).first();
    expect(body).toEqual({
      type: 'enrichment.job.completed',
      job_id: jobId,
      status: 'completed',
      total_items: 3,
      successful: 3,
      credits_used: 3,
      completed_at: job.completed_at.toISOString(),
      results_url: `https://enrich.example.test/api/public/enrich/${jobId}`,
    });
    expect(rx.received[0].headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(rx.received[0].headers['content-type']).toBe('application/json');

    const polled = presentJobPage(await getEnrichmentJob({ knex }, scope(), jobId, 1, 10), 'http://127.0.0.1');
    expect(polled.status).toBe('completed');
    expect(polled.webhook).toMatchObject({
      url: rx.url,
      delivered: true,
      attempts: [
        { attempt: 1, event_status: 'completed', status_code: 500, error: 'HTTP 500', delivered_at: null },
        { attempt: 2, event_status: 'completed', status_code: 200, error: null },
      ],
    });
    expect((polled.webhook as WebhookState).attempts[1].delivered_at).toEqual(expect.any(String));
    // A tampered body does not verify.
    expect(verifyWebhook(secret, rx.received[0].headers, rx.received[0].body.replace('completed', 'failed'))).toBe(false);
  } finally {
    await rx.close();
  }
});

test('an attempt that hangs times out and a later attempt delivers', async () => {
  // Its own worker with a short attempt timeout, and room for more attempts: on a busy machine an
  // answering attempt may time out too, which only adds attempts before the delivery.
  const hangWorker = await runTestWorker(env, {
    taskQueue: HANG_TASK_QUEUE,
    knex,
    engine: fakeEngine(engineOptions),
    publicUrl: 'https://enrich.example.test',
    allowHttpWebhooks: true,
    webhookTimeoutMs: HANG_TIMEOUT_MS,
  });
  const hangRunner = new TemporalJobRunner(
    env.client,
    { taskQueue: HANG_TASK_QUEUE, enrichConcurrency: 2 },
    { webhook: { initial_interval_s: 0.2, maximum_interval_s: 0.5, maximum_attempts: 10 } },
  );
  const rx = await receiver((n) => (n === 1 ? 'hang' : 'ok'));
  try {
    const job = await createEnrichmentJob({ knex, jobRunner: hangRunner, config: { allowHttpWebhooks: true } }, scope(), {
      items: [{ name: 'item 0' }, { name: 'item 1' }],
      async_mode: true,
      webhook_url: rx.url,
      output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
    });
    const workflowId = enrichmentWorkflowId(job.job.id);
    await hangRunner.waitForClose(workflowId);
    await env.client.workflow.getHandle(webhookWorkflowId(workflowId)).result();
    const rows = await deliveries(job.job.id);
    const timedOut = { status_code: null, error: `timed out after ${HANG_TIMEOUT_MS} ms`, delivered_at: null };
    expect(rows[0]).toMatchObject({ attempt: 1, ...timedOut });
    expect(rows.at(-1)).toMatchObject({ status_code: 200, error: null });
    for (const row of rows.slice(1, -1)) expect(row).toMatchObject(timedOut);
    expect(rx.received.every((r) => r.verified)).toBe(true);
  } finally {
    await rx.close();
    await hangWorker.stop();
  }
});

test('a receiver that is down never changes the job: it is final before delivery, and delivery gives up in bounded time', async () => {
  const rx = await receiver(() => 'ok');
  const deadUrl = rx.url;
  await rx.close(); // nothing listens on this port any more: connection refused
  const { jobId, workflowId } = await createJob(deadUrl, 4);
  await runner.waitForClose(workflowId);
  const before = await knex('enrichment_jobs').where({ id: jobId }).first();
  expect(before).toMatchObject({ status: 'completed', completed_items: 4, successful: 4, credits_used: 4 });

  const error = await env.client.workflow
    .getHandle(webhookWorkflowId(workflowId))
    .result()
    .then(
      () => null,
      (e) => e,
    );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(error.cause?.message).toMatch(/not delivered/);
  const rows = await deliveries(jobId);
  expect(rows.map((r) => r.attempt)).toEqual([1, 2, 3]); // maximum_attempts of this test
  expect(rows.every((r) => r.status_code === null && /ECONNREFUSED/.test(r.error))).toBe(true);

  const after = await knex('enrichment_jobs').where({ id: jobId }).first();
  expect(after).toEqual(before);
  const polled = presentJobPage(await getEnrichmentJob({ knex }, scope(), jobId, 1, 10), 'http://127.0.0.1');
  expect(polled).toMatchObject({ status: 'completed', credits_used: 4, webhook: { url: deadUrl, delivered: false } });
  expect((polled.webhook as WebhookState).attempts).toHaveLength(3);
});

test('a cancelled job sends its webhook with status cancelled', async () => {
  engineOptions.delayMs = 200;
  const rx = await receiver(() => 'ok');
  try {
    const { jobId, workflowId } = await createJob(rx.url, 20);
    await waitUntil(async () => (await knex('enrichment_jobs').where({ id: jobId }).first('completed_items')).completed_items >= 2, 'a few rows done');
    await cancelEnrichmentJob({ knex, jobRunner: runner }, scope(), jobId);
    await runner.waitForClose(workflowId);
    await env.client.workflow.getHandle(webhookWorkflowId(workflowId)).result();
    const job = await knex('enrichment_jobs').where({ id: jobId }).first();
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].verified).toBe(true);
    expect(JSON.parse(rx.received[0].body)).toMatchObject({ job_id: jobId, status: 'cancelled', successful: job.successful, credits_used: job.credits_used });
  } finally {
    await rx.close();
  }
});

test('webhook_url is validated at request time: HTTPS only, loopback http only when allowed', async () => {
  const refuse = async (url: string, allow: boolean) => {
    const err = await createJob(url, 1, allow).then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details[0].loc).toEqual(['body', 'webhook_url']);
  };
  await refuse('http://hooks.example.com/x', true);
  await refuse('http://127.0.0.1:9/x', false);
  await refuse('ftp://hooks.example.com/x', true);
  await refuse('https://user:pw@hooks.example.com/x', true);
  const before = await knex('enrichment_jobs').where({ organization_id: organizationId }).count({ n: '*' });
  const ok = await createJob('https://hooks.example.invalid/enrichment', 1, false);
  expect(ok.jobId).toEqual(expect.any(String));
  await runner.waitForClose(ok.workflowId);
  const after = await knex('enrichment_jobs').where({ organization_id: organizationId }).count({ n: '*' });
  expect(Number(after[0].n)).toBe(Number(before[0].n) + 1);
});
