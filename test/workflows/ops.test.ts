/**
 * Operator tools (temporal/ops-commands.ts, `npm run ops`) against a real dev server and the PostgreSQL
 * test database: failed and stuck listings, export + replay (and a nondeterministic history
 * caught), and resume of a failed job, idempotently, with exactly one result per row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import { loadConfig } from '../../src/config';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import { createEnrichmentActivities, EnrichmentActivities } from '../../activities/enrichment';
import { ConflictError } from '../../src/lib/errors';
import { runOps } from '../../src/cli/ops';
import type { JobRunner } from '../../src/services/job-runner';
import { TemporalJobRunner } from '../../temporal/client';
import { exportHistory } from '../../temporal/export-history';
import { listFailedJobs, listStuckJobs, replayHistoryFile, resumeJob } from '../../temporal/ops-commands';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestJob, fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, workflowBundle } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-ops';
/** Jobs whose row activities fail for good (non-retryable), until removed from the set. */
const broken = new Set<string>();

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let organizationId: string;
let runner: TemporalJobRunner;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-test-'));

beforeAll(async () => {
  knex = testKnex();
  organizationId = (await createTestOrg('ops tests')).organizationId;
  env = await startTestTemporal();
  const real = createEnrichmentActivities({ knex, engine: fakeEngine(), storage: enrichmentStorage(loadConfig()) });
  const activities: EnrichmentActivities = {
    ...real,
    async processRows(jobId, rowIndexes) {
      if (broken.has(jobId) && rowIndexes.includes(5)) throw ApplicationFailure.nonRetryable('database is on fire', 'Injected');
      return real.processRows(jobId, rowIndexes);
    },
  };
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, activities });
  runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 }, { batch_size: 5 });
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('a failed job is listed, then resumed under a new run for its pending rows only, idempotently', async () => {
  const notYet: JobRunner = {
    startEnrichment: async () => undefined,
    cancel: async () => undefined,
    waitForClose: async () => undefined,
    startSearchIndexBuild: async () => false,
    startApply: async () => undefined,
    startFlowRun: async () => undefined,
    ping: async () => undefined,
  };
  const { jobId, workflowId } = await createTestJob(knex, notYet, organizationId, 12);
  broken.add(jobId);
  await runner.startEnrichment({ id: jobId, organization_id: organizationId, catalog_id: null, workflow_id: workflowId, total_items: 12 });
  await runner.waitForClose(workflowId);
  const failed = await knex('enrichment_jobs').where({ id: jobId }).first();
  expect(failed).toMatchObject({ status: 'failed', completed_items: 5 }); // rows 0-4 (first batch) done
  expect(failed.error).toMatch(/database is on fire/);

  const listed = (await listFailedJobs(knex, env.client)).find((j) => j.job_id === jobId);
  expect(listed).toMatchObject({ status: 'failed', workflow_status: 'FAILED', workflow_id: workflowId, completed_items: 5 });
  const firstRun = (await env.client.workflow.getHandle(workflowId).describe()).runId;

  broken.delete(jobId);
  const resumed = await resumeJob(knex, runner, env.client, jobId);
  expect(resumed).toMatchObject({ workflow_id: workflowId, pending_rows: 7 });
  expect(resumed.run_id).not.toBe(firstRun);
  const again = await resumeJob(knex, runner, env.client, jobId); // idempotent while running
  expect(again.run_id).toBe(resumed.run_id);
  await runner.waitForClose(workflowId);

  const job = await knex('enrichment_jobs').where({ id: jobId }).first();
  const [rows] = await knex('enrichment_rows')
    .where({ job_id: jobId })
    .select(knex.raw("count(*) filter (where status = 'pending')::int as pending"), knex.raw("count(*) filter (where status = 'succeeded')::int as succeeded"));
  expect(rows).toEqual({ pending: 0, succeeded: 12 });
  expect(job).toMatchObject({ status: 'completed', completed_items: 12, successful: 12, credits_used: 12, error: null });
  expect((await knex('review_activities').where({ id: jobId }).first('status')).status).toBe('completed');

  // A completed job is not resumable.
  await expect(resumeJob(knex, runner, env.client, jobId)).rejects.toBeInstanceOf(ConflictError);
});

test('a running job without progress for N minutes is listed as stuck with its workflow status', async () => {
  const notStarted: JobRunner = {
    startEnrichment: async () => undefined,
    cancel: async () => undefined,
    waitForClose: async () => undefined,
    startSearchIndexBuild: async () => false,
    startApply: async () => undefined,
    startFlowRun: async () => undefined,
    ping: async () => undefined,
  };
  const { jobId } = await createTestJob(knex, notStarted, organizationId, 2);
  await knex('enrichment_jobs')
    .where({ id: jobId })
    .update({ updated_at: knex.raw("now() - interval '20 minutes'") });
  // Scoped to this file's organization: other suites leave jobs `running` in the shared test
  // database, and enough of them would push this one out of the listing's 500.
  const stuck = await listStuckJobs(knex, env.client, 15, { organizationId });
  expect(stuck.find((j) => j.job_id === jobId)).toMatchObject({ status: 'running', workflow_status: 'NOT_FOUND' });
  expect(stuck.find((j) => j.job_id === jobId)!.idle_minutes).toBeGreaterThanOrEqual(20);
  expect(stuck.map((j) => j.organization_id)).toEqual(stuck.map(() => organizationId));
  expect((await listStuckJobs(knex, env.client, 30, { organizationId })).find((j) => j.job_id === jobId)).toBeUndefined();
  await knex('enrichment_jobs').where({ id: jobId }).update({ status: 'failed' }); // keep later listings clean
});

test('export-history then replay passes on current code and catches a nondeterministic history', async () => {
  const { workflowId } = await createTestJob(knex, runner, organizationId, 3);
  await runner.waitForClose(workflowId);
  const file = path.join(tmp, 'history.json');
  expect(await exportHistory(env.client, workflowId, file)).toBeGreaterThan(5);
  expect(await replayHistoryFile(file, { workflowBundle: await workflowBundle() })).toEqual({ ok: true });

  // The history says another activity was scheduled: current code disagrees.
  const tampered = path.join(tmp, 'tampered.json');
  fs.writeFileSync(tampered, fs.readFileSync(file, 'utf8').replace(/"name": "processRows"/g, '"name": "somethingElse"'));
  const outcome = await replayHistoryFile(tampered, { workflowBundle: await workflowBundle() });
  expect(outcome).toMatchObject({ ok: false, error: { kind: 'nondeterminism' } });

  const lines: string[] = [];
  expect(await runOps(['replay', tampered], (l) => lines.push(l))).toBe(1);
  expect(await runOps(['bogus'], (l) => lines.push(l))).toBe(2);
  await waitUntil(async () => lines.length >= 2, 'ops output');
});
