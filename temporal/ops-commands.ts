/**
 * Operator tools over PostgreSQL + Temporal (run by `npm run ops`, src/cli/ops.ts): failed and
 * stuck jobs, failed flow runs, history export, replay of a history against the current workflow
 * code, and resume of a failed job (a failed flow run's rerun is src/services/flows/runs.ts). Each function takes its dependencies so tests call them directly.
 */
import fs from 'node:fs';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { Knex } from 'knex';
import { fn } from 'objection';
import { ConflictError, errorFields, NotFoundError } from '../src/lib/errors';
import { EnrichmentJob } from '../src/models/enrichment-job';
import { EnrichmentRow } from '../src/models/enrichment-row';
import { FlowRun } from '../src/models/flow-run';
import { ReviewActivity } from '../src/models/review-activity';
import { historyFromFixture } from './export-history';
import type { TemporalJobRunner } from './client';
import { workflowCode } from './workflow-bundle';

/** A job as operators see it: PostgreSQL state plus its workflow's Temporal status. */
export interface OpsJob {
  job_id: string;
  organization_id: string;
  status: string;
  total_items: number;
  completed_items: number;
  error: string | null;
  updated_at: string;
  workflow_id: string;
  /** Temporal status of the latest run (`RUNNING`, `FAILED`, ...) or `NOT_FOUND`. */
  workflow_status: string;
  /** Minutes since the job last moved (a row written or its status changed). */
  idle_minutes: number;
}

async function workflowStatus(client: Client, workflowId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    throw err;
  }
}

/** Ids of up to `limit` workflows of `workflowType` that Temporal's visibility lists as Failed, TimedOut or Terminated. */
async function closedUnsuccessfully(client: Client, workflowType: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = '${workflowType}' AND ExecutionStatus IN ('Failed', 'TimedOut', 'Terminated')` })) {
    ids.push(wf.workflowId);
    if (ids.length >= limit) break;
  }
  return ids;
}

/** The `enrichment_jobs` columns an ops listing reads. */
type JobRow = Pick<EnrichmentJob, 'id' | 'organization_id' | 'status' | 'total_items' | 'completed_items' | 'error' | 'workflow_id' | 'updated_at'>;

async function withWorkflowStatus(client: Client, rows: JobRow[]): Promise<OpsJob[]> {
  const out: OpsJob[] = [];
  for (const r of rows) {
    out.push({
      job_id: r.id,
      organization_id: r.organization_id,
      status: r.status,
      total_items: r.total_items,
      completed_items: r.completed_items,
      error: r.error,
      updated_at: new Date(r.updated_at).toISOString(),
      workflow_id: r.workflow_id,
      workflow_status: await workflowStatus(client, r.workflow_id),
      idle_minutes: Math.round((Date.now() - new Date(r.updated_at).getTime()) / 6000) / 10,
    });
  }
  return out;
}

/**
 * Failed jobs, newest first: jobs `failed` in PostgreSQL, plus jobs whose workflow Temporal's
 * visibility lists as Failed/TimedOut/Terminated while PostgreSQL still says `running` (a
 * workflow that died without finalizing).
 * @param limit at most this many jobs from each source; default 50
 */
export async function listFailedJobs(knex: Knex, client: Client, limit = 50): Promise<OpsJob[]> {
  const failed = await EnrichmentJob.query(knex).where({ status: 'failed' }).orderBy('updated_at', 'desc').limit(limit);
  const closedBad = await closedUnsuccessfully(client, 'enrichmentJobWorkflow', limit);
  const orphans = closedBad.length ? await EnrichmentJob.query(knex).whereIn('workflow_id', closedBad).where({ status: 'running' }) : [];
  return withWorkflowStatus(client, [...failed, ...orphans]);
}

/**
 * Running jobs that made no progress for `minutes` (no row written, no status change), with
 * their workflow's status: `RUNNING` (slow or blocked activities: look at its pending
 * activities), or anything else (the workflow is gone: resume or fail the job). The 500 that
 * have been idle longest, of one organization when `options.organizationId` is given.
 */
export async function listStuckJobs(knex: Knex, client: Client, minutes = 15, options: { organizationId?: string } = {}): Promise<OpsJob[]> {
  const rows = await EnrichmentJob.query(knex)
    .where({ status: 'running' })
    .where('updated_at', '<', knex.raw('now() - make_interval(mins => ?)', [minutes]))
    .modify((q) => {
      if (options.organizationId) q.where({ organization_id: options.organizationId });
    })
    .orderBy('updated_at')
    .limit(500);
  return withWorkflowStatus(client, rows);
}

/** Result of {@link replayHistoryFile}. */
export interface ReplayOutcome {
  ok: boolean;
  /** `nondeterminism` when the current code makes different decisions than the history. */
  error?: { kind: 'nondeterminism' | 'other'; message: string };
}

/**
 * Replays a history file (temporal/export-history.ts format) against the current workflow code
 * (`workflowBundle` when given, else the worker's: temporal/workflow-bundle.ts workflowCode).
 * @throws Error when the file is not a history
 */
export async function replayHistoryFile(file: string, options: { workflowBundle?: { code: string } } = {}): Promise<ReplayOutcome> {
  const history = historyFromFixture(JSON.parse(fs.readFileSync(file, 'utf8')));
  try {
    await Worker.runReplayHistory(options.workflowBundle ? { workflowBundle: options.workflowBundle } : workflowCode(), history);
    return { ok: true };
  } catch (err) {
    return {
      ok: false,
      error: { kind: err instanceof DeterminismViolationError ? 'nondeterminism' : 'other', message: String(errorFields(err).message ?? err) },
    };
  }
}

/**
 * Resumes a failed job: sets it back to `running` (error and completed_at cleared) and starts a
 * new run of `enrichment-<job_id>` that processes the rows still pending (the rows already
 * written keep their results; credits are recomputed from the rows at the end). Idempotent: a
 * job that is already running again only makes sure its workflow runs.
 * @returns the job's workflow id and the run id now running
 * @throws NotFoundError for an unknown job; ConflictError for a completed or cancelled job, or
 *   when Temporal refuses a new run (the last run completed successfully)
 */
export async function resumeJob(
  knex: Knex,
  runner: TemporalJobRunner,
  client: Client,
  jobId: string,
): Promise<{ workflow_id: string; run_id: string; pending_rows: number }> {
  const job = await knex.transaction(async (trx) => {
    const row = await EnrichmentJob.query(trx).findById(jobId).forUpdate();
    if (!row) throw new NotFoundError('Job not found');
    if (row.status === 'completed' || row.status === 'cancelled') throw new ConflictError(`Job is ${row.status}; only failed jobs can be resumed`);
    if (row.status === 'failed') {
      await EnrichmentJob.query(trx).findById(jobId).patch({ status: 'running', error: null, completed_at: null, updated_at: fn.now() });
      await ReviewActivity.query(trx).findById(jobId).patch({ status: 'running', updated_at: fn.now() });
    }
    return row;
  });
  await runner.resumeEnrichment(job);
  const description = await client.workflow.getHandle(job.workflow_id).describe();
  if (description.status.name !== 'RUNNING') {
    // Temporal kept the old closed run (it completed): put the job back as it was.
    await EnrichmentJob.query(knex).where({ id: jobId, status: 'running' }).patch({ status: job.status, error: job.error, completed_at: job.completed_at });
    await ReviewActivity.query(knex).findById(jobId).patch({ status: job.status });
    throw new ConflictError(`Workflow ${job.workflow_id} is ${description.status.name}; no new run was started`);
  }
  const pending = await EnrichmentRow.query(knex).where({ job_id: jobId, status: 'pending' }).where('row_index', '<', job.total_items).resultSize();
  return { workflow_id: job.workflow_id, run_id: description.runId, pending_rows: pending };
}

/** A failed flow run as operators see it (`ops failed`). */
export interface OpsFlowRun {
  kind: 'flow-run';
  run_id: string;
  flow_id: string;
  organization_id: string;
  status: string;
  failed_node_id: string | null;
  error: string | null;
  attempts: number;
  updated_at: string;
  workflow_id: string;
  /** Temporal status of the latest execution (`FAILED`, ...) or `NOT_FOUND`. */
  workflow_status: string;
  /** What reruns it from its failed node. */
  rerun: string;
}

/**
 * Failed flow runs, newest first (the batch operator's list): runs `failed` in
 * PostgreSQL, plus runs whose `flow-run-<id>` workflow Temporal lists as Failed/TimedOut/Terminated
 * while PostgreSQL still says `running`.
 * @param limit at most this many runs from each source; default 50
 */
export async function listFailedFlowRuns(knex: Knex, client: Client, limit = 50): Promise<OpsFlowRun[]> {
  const failed = await FlowRun.query(knex).where({ status: 'failed' }).orderBy('updated_at', 'desc').limit(limit);
  const closedBad = await closedUnsuccessfully(client, 'flowRunWorkflow', limit);
  const orphans = closedBad.length ? await FlowRun.query(knex).whereIn('workflow_id', closedBad).where({ status: 'running' }) : [];
  const out: OpsFlowRun[] = [];
  for (const r of [...failed, ...orphans]) {
    out.push({
      kind: 'flow-run',
      run_id: r.id,
      flow_id: r.flow_id,
      organization_id: r.organization_id,
      status: r.status,
      failed_node_id: r.failed_node_id,
      error: r.error,
      attempts: r.attempts,
      updated_at: new Date(r.updated_at).toISOString(),
      workflow_id: r.workflow_id,
      workflow_status: await workflowStatus(client, r.workflow_id),
      rerun: `npm run ops -- rerun ${r.id}`,
    });
  }
  return out;
}
