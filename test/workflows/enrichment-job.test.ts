/**
 * enrichmentJobWorkflow against a real Temporal dev server and the real PostgreSQL test
 * database: progress query, cancellation (partial results and credits kept), idempotent writes
 * (one result, one charge in the credit ledger) on activity retry, and continue-as-new. Only the engine is fake (an echo with a delay).
 */
import { Context } from '@temporalio/activity';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import { loadConfig } from '../../src/config';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import { createEnrichmentActivities, EnrichmentActivities } from '../../activities/enrichment';
import { cancelEnrichmentJob } from '../../src/services/enrichment/jobs/jobs';
import type { JobRunner } from '../../src/services/job-runner';
import { TemporalJobRunner } from '../../temporal/client';
import { progressQuery } from '../../workflows/definitions';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestJob, fakeEngine, FakeEngineOptions, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-enrichment-workflow';
/** Rows named "item <n>3" (3, 13, 23, ...) get an item-level error from the fake engine. */
const engineOptions: FakeEngineOptions = { delayMs: 0, errorFor: (item) => String(item.name).endsWith('3') };
const engine = fakeEngine(engineOptions);
/** `<job_id>:<row_index>` keys whose processRow throws once, on its first attempt, after writing. */
const failAfterWrite = new Set<string>();
/** Row activities running now, per job id (a cancelled activity runs on until its engine call returns). */
const running = new Map<string, number>();

/** Runs a row activity of `jobId`, counted in {@link running} while it runs. */
async function counted<T>(jobId: string, activity: () => Promise<T>): Promise<T> {
  running.set(jobId, (running.get(jobId) ?? 0) + 1);
  try {
    return await activity();
  } finally {
    running.set(jobId, running.get(jobId)! - 1);
  }
}

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let organizationId: string;
let runner: TemporalJobRunner;

beforeAll(async () => {
  knex = testKnex();
  organizationId = (await createTestOrg('workflow tests')).organizationId;
  env = await startTestTemporal();
  const real = createEnrichmentActivities({ knex, engine, storage: enrichmentStorage(loadConfig()) });
  const activities: EnrichmentActivities = {
    ...real,
    processRow: (jobId, rowIndex) =>
      counted(jobId, async () => {
        const outcome = await real.processRow(jobId, rowIndex);
        if (failAfterWrite.has(`${jobId}:${rowIndex}`) && Context.current().info.attempt === 1) throw new Error('injected failure after the write');
        return outcome;
      }),
    processRows: (jobId, rowIndexes) =>
      counted(jobId, async () => {
        const outcomes = await real.processRows(jobId, rowIndexes);
        if (rowIndexes.some((i) => failAfterWrite.has(`${jobId}:${i}`)) && Context.current().info.attempt === 1)
          throw new Error('injected failure after the write');
        return outcomes;
      }),
  };
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, activities });
  runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 3 });
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

afterEach(() => {
  engineOptions.delayMs = 0;
  engineOptions.holdFor = undefined;
});

/** The job row plus counts from its rows. */
async function jobState(jobId: string) {
  const job = await knex('enrichment_jobs').where({ id: jobId }).first();
  const [rows] = await knex('enrichment_rows')
    .where({ job_id: jobId })
    .select(
      knex.raw("count(*) filter (where status = 'succeeded')::int as succeeded"),
      knex.raw("count(*) filter (where status <> 'pending')::int as done"),
      knex.raw('count(result)::int as with_result'),
    );
  return { job, rows: rows as unknown as { succeeded: number; done: number; with_result: number } };
}

test('runs a job to completion, with a live progress query and search attributes', async () => {
  // The first ten items (the first batch of rows) wait until the test has seen the job running,
  // with the last batch done: no race with the job's end, however fast or slow the machine.
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  engineOptions.holdFor = (item) => (Number(String(item.name).split(' ')[1]) < 10 ? released : undefined);
  const { jobId, workflowId } = await createTestJob(knex, runner, organizationId, 12);
  const handle = env.client.workflow.getHandle(workflowId);
  try {
    const live = await waitUntil(async () => {
      const p = await handle.query(progressQuery).catch(() => null);
      return p && p.completed_items >= 2 && p.status === 'running' ? p : null;
    }, 'progress while running');
    expect(live.total_items).toBe(12);
    expect(live.completed_items).toBeLessThan(12);
    expect(live.cursor).toBeGreaterThanOrEqual(live.completed_items - 1);
  } finally {
    release();
  }

  await runner.startEnrichment({ id: jobId, organization_id: organizationId, catalog_id: null, workflow_id: workflowId, total_items: 12 }); // already started: no error
  await runner.waitForClose(workflowId);

  const { job, rows } = await jobState(jobId);
  expect(job.status).toBe('completed');
  expect(job.completed_items).toBe(12);
  expect(job.successful).toBe(11); // "item 3" failed at item level
  expect(job.credits_used).toBe(11);
  expect(rows).toEqual({ succeeded: 11, done: 12, with_result: 12 });
  expect(await handle.query(progressQuery)).toEqual({ total_items: 12, completed_items: 12, successful: 11, failed: 1, cursor: 11, status: 'completed' });

  const description = await handle.describe();
  expect(description.typedSearchAttributes.get({ name: 'OrganizationId', type: 'KEYWORD' })).toBe(organizationId);
  expect(description.typedSearchAttributes.get({ name: 'JobKind', type: 'KEYWORD' })).toBe('enrichment');
  // Operators read the job from the Web UI: readable id, summary and details.
  expect(description.workflowId).toBe(`enrichment-${jobId}`);
  expect(await description.staticSummary()).toBe(`Enrichment job ${jobId}: 12 items`);
  const details = await description.staticDetails();
  expect(details).toContain(`Organization: ${organizationId}`);
  expect(details).toContain('Catalog: (none');
  expect(details).toContain('Items: 12');
  expect(details).toContain(`/api/public/enrich/${jobId}`);
});

/** A job's charges in the credit ledger, by row. */
function chargesOf(jobId: string): Promise<Array<{ row_index: number; credits: number }>> {
  return knex('credit_charges').where({ job_id: jobId }).orderBy('row_index').select('row_index', 'credits');
}

/**
 * Holds every item from row `from` on (items are named `item <row>`) until the returned release is
 * called: the job is then certainly running, with rows in flight, whatever the machine's speed.
 */
function holdFrom(from: number): () => void {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  engineOptions.holdFor = (item) => (Number(String(item.name).split(' ')[1]) >= from ? gate : undefined);
  releaseHeld = () => {
    release();
    engineOptions.holdFor = undefined;
  };
  return releaseHeld;
}
/** The release of the items {@link holdFrom} holds; called after every test, so a failed one holds nothing for the next. */
let releaseHeld: () => void = () => undefined;
afterEach(() => releaseHeld());

test('cancelling through the API keeps partial results and charges only successful rows', async () => {
  const release = holdFrom(4);
  const { jobId, workflowId } = await createTestJob(knex, runner, organizationId, 30);
  await waitUntil(async () => (await jobState(jobId)).job.completed_items >= 4, 'a few rows done');

  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [organizationId] } };
  await cancelEnrichmentJob({ knex, jobRunner: runner }, scope, jobId).finally(release);
  const error = await env.client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      () => null,
      (e) => e,
    );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(error.cause).toBeInstanceOf(CancelledFailure);

  const after = await jobState(jobId);
  expect(after.job.status).toBe('cancelled');
  expect(after.job.completed_items).toBeGreaterThanOrEqual(4);
  expect(after.job.completed_items).toBeLessThan(30);
  expect(after.job.completed_items).toBe(after.rows.done);
  expect(after.rows.with_result).toBe(after.rows.done);
  expect(after.job.successful).toBe(after.rows.succeeded);
  expect(after.job.credits_used).toBe(after.rows.succeeded);
  expect(after.job.credits_used).toBe((await chargesOf(jobId)).length);
  expect(after.job.completed_at).not.toBeNull();

  // Rows still in flight when the cancel arrived write nothing: credits stay consistent.
  await waitUntil(() => running.get(jobId) === 0, 'the in-flight row activities to end');
  const later = await jobState(jobId);
  expect(later.rows).toEqual(after.rows);
  expect(later.job.credits_used).toBe(after.job.credits_used);
  await runner.cancel(workflowId); // cancelling a closed workflow is not an error
});

test('cancelling the workflow directly finalizes the job as cancelled', async () => {
  const release = holdFrom(2);
  const { jobId, workflowId } = await createTestJob(knex, runner, organizationId, 20);
  await waitUntil(async () => (await jobState(jobId)).job.completed_items >= 2, 'a few rows done');
  await runner.cancel(workflowId).finally(release);
  await runner.waitForClose(workflowId);

  const { job, rows } = await jobState(jobId);
  expect(job.status).toBe('cancelled');
  expect(job.completed_items).toBe(rows.done);
  expect(job.credits_used).toBe(rows.succeeded);
  const activity = await knex('review_activities').where({ id: jobId }).first('status');
  expect(activity.status).toBe('cancelled');
  const progress = await env.client.workflow.getHandle(workflowId).query(progressQuery);
  expect(progress).toMatchObject({ status: 'cancelled', completed_items: rows.done, successful: rows.succeeded });
});

test('a row activity retried after its write leaves exactly one result and one credit', async () => {
  // Create the job without starting it, so the fault can be armed for its row 1 first.
  const notYet: JobRunner = {
    startEnrichment: async () => undefined,
    cancel: async () => undefined,
    waitForClose: async () => undefined,
    startSearchIndexBuild: async () => false,
    startApply: async () => undefined,
    startFlowRun: async () => undefined,
    ping: async () => undefined,
  };
  const { jobId, workflowId } = await createTestJob(knex, notYet, organizationId, 4);
  failAfterWrite.add(`${jobId}:1`);
  const callsBefore = engine.calls;
  await runner.startEnrichment({ id: jobId, organization_id: organizationId, catalog_id: null, workflow_id: workflowId, total_items: 4 });
  await runner.waitForClose(workflowId);

  const handle = env.client.workflow.getHandle(workflowId);
  const history = await handle.fetchHistory();
  const attempts = history.events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
  expect(attempts).toContain(2); // the injected failure was retried

  expect(engine.calls - callsBefore).toBe(4); // the retry found row 1 written and did not enrich again
  const { job, rows } = await jobState(jobId);
  expect(rows).toEqual({ succeeded: 3, done: 4, with_result: 4 }); // "item 3" failed at item level
  expect(job).toMatchObject({ status: 'completed', completed_items: 4, successful: 3, credits_used: 3 });
  expect(await handle.query(progressQuery)).toMatchObject({ completed_items: 4, successful: 3, failed: 1 });
  // The credit ledger: row 1, written twice over, charged once; the failed row 3 not at all.
  expect(await chargesOf(jobId)).toEqual([0, 1, 2].map((row_index) => ({ row_index, credits: 1 })));
});

test('continues as new with small pages, carrying the cursor and counters', async () => {
  const smallPages = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, { page_size: 2, pages_per_run: 2 });
  const { jobId, workflowId } = await createTestJob(knex, smallPages, organizationId, 9);
  await smallPages.waitForClose(workflowId);

  // Walk the chain of runs back from the latest: 4 rows per run → 3 runs, each begun with the
  // previous run's cursor and counters.
  let runId: string | undefined = (await env.client.workflow.getHandle(workflowId).describe()).runId;
  const inputs: unknown[] = [];
  while (runId) {
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const started = history.events![0].workflowExecutionStartedEventAttributes!;
    inputs.unshift(JSON.parse(Buffer.from(started.input!.payloads![0].data!).toString('utf8')));
    runId = started.continuedExecutionRunId || undefined;
  }
  expect(inputs).toEqual([
    { job_id: jobId, concurrency: 2, page_size: 2, pages_per_run: 2 },
    { job_id: jobId, concurrency: 2, page_size: 2, pages_per_run: 2, cursor: 3, counters: { total_items: 9, completed_items: 4, successful: 3, failed: 1 } },
    { job_id: jobId, concurrency: 2, page_size: 2, pages_per_run: 2, cursor: 7, counters: { total_items: 9, completed_items: 8, successful: 7, failed: 1 } },
  ]);

  const { job, rows } = await jobState(jobId);
  expect(rows).toEqual({ succeeded: 8, done: 9, with_result: 9 });
  expect(job).toMatchObject({ status: 'completed', completed_items: 9, successful: 8, credits_used: 8 });
  expect(await env.client.workflow.getHandle(workflowId).query(progressQuery)).toEqual({
    total_items: 9,
    completed_items: 9,
    successful: 8,
    failed: 1,
    cursor: 8,
    status: 'completed',
  });
});
