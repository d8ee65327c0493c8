/**
 * enrichmentJobWorkflow: runs one enrichment job (docs/api-enrichment.md "Enrichment jobs" and "Job
 * states"). Items and results live in PostgreSQL; this workflow moves
 * only row indexes and counters (docs/workflows.md "Rules of the craft").
 *
 * State machine (the `status` answered by `progressQuery`):
 *
 *   running ── no pending row left ───────────────────▶ finalizing ─▶ completed (workflow completes)
 *   running ── page budget spent / history too long ──▶ continue-as-new, carrying cursor + counters
 *   running ── cancellation requested ────────────────▶ finalizing (non-cancellable) ─▶ cancelled
 *                                                         (CancelledFailure rethrown: UI shows Canceled)
 *   running ── an activity fails after all retries ───▶ finalizing ─▶ failed (workflow fails)
 *
 * Work loop: fetch a page of pending row indexes after the cursor (`pendingRowIndexes`), cut it
 * into batches of `batch_size` rows, run `processRows` for each batch with at most `concurrency`
 * batches in flight (a sliding window, as in samples-typescript batch-sliding-window; each batch
 * works row after row, so `concurrency` rows are processed at once), advance the cursor, count
 * outcomes from the activities' return values. Histories recorded before batching (one
 * `processRow` per row) replay on the old path: the `row-batches` patch marker selects it. Item-level engine errors are results (`failed` rows), not
 * activity failures; infrastructure errors are retried by Temporal with exponential backoff.
 *
 * Continue-as-new trigger: after `pages_per_run` pages, or as soon as the server sets
 * `continueAsNewSuggested`, the window is drained and the next run starts with only
 * `{job_id, cursor, counters}` and the tuning arguments (Temporal rule 3).
 *
 * Cancellation: the in-flight activities are cancelled, then `finalizeJob('cancelled')` runs in
 * a non-cancellable scope: the job becomes `cancelled`, results already written are kept and
 * `credits_used` counts the successful rows only (derived from the rows, so it always matches the
 * kept results); then the cancellation is rethrown (Temporal rule 6).
 *
 * Webhook (docs/api-enrichment.md "Webhooks"): once the job is finalized (completed, failed or cancelled) and it
 * has a `webhook_url`, the workflow starts the child `webhookDeliveryWorkflow` (id
 * `<this id>/webhook`, parent-close policy ABANDON) and closes without waiting for it: the job's
 * state is final before any delivery attempt, and a receiver that is down never changes it.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { EnrichmentActivities, JobCounters, RowOutcome } from '../activities/enrichment';
import type { RenderActivities } from '../activities/render';
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_CONCURRENCY,
  DEFAULT_PAGE_SIZE,
  DEFAULT_PAGES_PER_RUN,
  EnrichmentCounters,
  EnrichmentJobArgs,
  EnrichmentPhase,
  EnrichmentProgress,
  JOB_KIND,
  RENDER_QUEUE_SUFFIX,
  WEBHOOK_JOB_KIND,
  webhookWorkflowId,
} from '../src/contracts/workflows';
import { progressQuery } from './definitions';
import { webhookDeliveryWorkflow } from './webhook-delivery';
import { retryPolicy } from '../src/contracts/retry-policies';

/** Patch id of batched row activities (`processRows`); histories without it use `processRow`. */
export const ROW_BATCHES_PATCH = 'row-batches';

/**
 * Backoff for infrastructure failures (database or worker down): 1 s doubling to 1 min, 20
 * attempts, about a quarter of an hour before the job is given up as failed.
 */
const RETRY = retryPolicy('1 second', '1 minute', 20);

const db = proxyActivities<EnrichmentActivities>({ startToCloseTimeout: '1 minute', retry: RETRY });

/**
 * Row activities. One row may research the web for minutes; the activity heartbeats on a timer
 * every 10 s (a third of a shorter heartbeat timeout; activities/heartbeat.ts), so a dead worker
 * is noticed after one heartbeat timeout (default 30 s: three missed heartbeats) rather than after
 * the whole start-to-close timeout. A batch gets 2 h in all.
 */
function rowActivities(heartbeatTimeoutS: number, batched: boolean) {
  return proxyActivities<EnrichmentActivities>({
    startToCloseTimeout: batched ? '2 hours' : '15 minutes',
    heartbeatTimeout: `${heartbeatTimeoutS} seconds`,
    retry: RETRY,
  });
}

/**
 * The render activity, on the render task queue of this workflow's queue: a render
 * is bounded by 2 minutes once started and 10 minutes in all (so a missing render worker delays a
 * row, never blocks it), and retried once.
 */
function renderActivities() {
  return proxyActivities<RenderActivities>({
    taskQueue: `${workflowInfo().taskQueue}${RENDER_QUEUE_SUFFIX}`,
    startToCloseTimeout: '2 minutes',
    scheduleToCloseTimeout: '10 minutes',
    retry: retryPolicy('1 second', null, 2),
  });
}

/**
 * A row whose pages must be rendered first (outcome `render`): renders them (a failed render is
 * logged, the row then goes on with its static pages), then processes the row again with
 * `no_render`, which writes it.
 * @throws the cancellation, or the row activity's failure after its retries
 */
async function renderThenProcess(run: JobRun, rowIndex: number): Promise<RowOutcome> {
  try {
    await renderActivities().renderRowPages(run.jobId, rowIndex);
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('render failed; the row goes on without it', { job_id: run.jobId, row_index: rowIndex, error: String(err) });
  }
  const [outcome] = await run.rows.processRows(run.jobId, [rowIndex], { no_render: true });
  return outcome;
}

/** Thrown inside the work loop when a row activity failed for good (after its retries). */
class RowActivityFailed extends Error {
  constructor(readonly failure: unknown) {
    super('row activity failed');
  }
}

function phaseOf(status: string): EnrichmentPhase {
  return status === 'completed' || status === 'cancelled' || status === 'failed' ? status : 'running';
}

/** One run of the workflow: the job, its tuning, its activities and its live progress. */
interface JobRun {
  args: EnrichmentJobArgs;
  jobId: string;
  /** Rows work in batches (`processRows`); false on histories from before the `row-batches` patch. */
  batched: boolean;
  rows: EnrichmentActivities;
  concurrency: number;
  pageSize: number;
  pagesPerRun: number;
  batchSize: number;
  progress: EnrichmentProgress;
}

/** Copies PostgreSQL's counters into the live progress. */
function applyCounters(progress: EnrichmentProgress, c: JobCounters): void {
  progress.total_items = c.total_items;
  progress.completed_items = c.completed_items;
  progress.successful = c.successful;
  progress.failed = c.failed;
}

/** Counts one row outcome into the live progress (`skipped` and `render` rows stay pending). */
function countOutcome(progress: EnrichmentProgress, outcome: RowOutcome): void {
  if (outcome === 'skipped' || outcome === 'render') return;
  progress.completed_items += 1;
  if (outcome === 'succeeded') progress.successful += 1;
  else progress.failed += 1;
}

/**
 * Starts the job's webhook delivery when it has a `webhook_url` (docs/api-enrichment.md "Webhooks"), without
 * waiting for it: ABANDON lets it outlive this workflow. Never throws: a delivery that cannot
 * even start (e.g. a delivery of the same id still running) must not change the job.
 */
async function startWebhookDelivery(run: JobRun, final: JobCounters): Promise<void> {
  if (!final.has_webhook) return;
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: webhookWorkflowId(workflowInfo().workflowId),
      args: [{ ...run.args.webhook, job_id: run.jobId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // Same organization and catalog as the job, its own kind (operators filter deliveries apart).
      typedSearchAttributes: workflowInfo().typedSearchAttributes.updateCopy([{ key: JOB_KIND, value: WEBHOOK_JOB_KIND }]),
      staticSummary: `Webhook of enrichment job ${run.jobId} (${final.status})`,
    });
  } catch (err) {
    log.warn('webhook delivery could not be started', { job_id: run.jobId, error: String(err) });
  }
}

/**
 * The work loop (see the file header): processes pages of pending rows through a sliding window
 * of at most `concurrency` row activities until none is left (false) or the run's budget is
 * spent (true).
 * @throws the cancellation, or RowActivityFailed when a row activity failed after its retries
 */
async function workPages(run: JobRun): Promise<boolean> {
  const { jobId, progress, rows } = run;
  const inflight = new Set<Promise<void>>();
  let failure: unknown = null;
  const drain = async (): Promise<void> => {
    await Promise.all(inflight);
    if (failure !== null) throw isCancellation(failure) ? failure : new RowActivityFailed(failure);
  };
  for (let page = 1; ; page++) {
    const indexes = await db.pendingRowIndexes(jobId, progress.cursor, run.pageSize);
    const step = run.batched ? run.batchSize : 1;
    for (let at = 0; at < indexes.length; at += step) {
      const batch = indexes.slice(at, at + step);
      while (inflight.size >= run.concurrency && failure === null) await Promise.race(inflight);
      if (failure !== null) break;
      const work: Promise<void> = run.batched
        ? rows.processRows(jobId, batch).then(async (outcomes) => {
            for (const [i, o] of outcomes.entries()) countOutcome(progress, o === 'render' ? await renderThenProcess(run, batch[i]) : o);
          })
        : rows.processRow(jobId, batch[0]).then((o) => countOutcome(progress, o));
      // Each promise settles without rejecting (failures are recorded), so none goes unhandled.
      const p: Promise<void> = work
        .then(undefined, (err) => {
          failure ??= err;
        })
        .finally(() => inflight.delete(p));
      inflight.add(p);
      progress.cursor = batch[batch.length - 1];
    }
    if (failure !== null || indexes.length < run.pageSize) {
      await drain(); // throws the recorded failure, if any
      return false;
    }
    if (page >= run.pagesPerRun || workflowInfo().continueAsNewSuggested) {
      await drain();
      return true;
    }
  }
}

/** Finalizes the job with `outcome` in PostgreSQL, updates the progress and starts its webhook. */
async function finalize(run: JobRun, outcome: 'completed' | 'cancelled' | 'failed', message?: string): Promise<void> {
  run.progress.status = 'finalizing';
  // Only the failed outcome carries a message (the activity's input stays as recorded before).
  const final = message === undefined ? await db.finalizeJob(run.jobId, outcome) : await db.finalizeJob(run.jobId, outcome, message);
  applyCounters(run.progress, final);
  run.progress.status = outcome === 'completed' ? phaseOf(final.status) : outcome;
  await startWebhookDelivery(run, final);
}

/**
 * Runs an enrichment job to its end (see the state machine above).
 * @param args job id, plus cursor and counters when continued-as-new, plus tuning
 * @returns the final progress (status `completed`, or `cancelled` when the API cancelled the
 *   job in PostgreSQL while the last rows ran)
 * @throws CancelledFailure when cancelled (after finalizing); ApplicationFailure (non-retryable)
 *   when an activity failed after all retries (after marking the job failed)
 */
export async function enrichmentJobWorkflow(args: EnrichmentJobArgs): Promise<EnrichmentProgress> {
  // Runs started before batching existed replay with one processRow per row.
  const batched = patched(ROW_BATCHES_PATCH);
  const run: JobRun = {
    args,
    jobId: args.job_id,
    batched,
    rows: rowActivities(Math.max(1, args.row_heartbeat_timeout_s ?? 30), batched),
    concurrency: Math.max(1, args.concurrency ?? DEFAULT_CONCURRENCY),
    pageSize: Math.max(1, args.page_size ?? DEFAULT_PAGE_SIZE),
    pagesPerRun: Math.max(1, args.pages_per_run ?? DEFAULT_PAGES_PER_RUN),
    batchSize: Math.max(1, args.batch_size ?? DEFAULT_BATCH_SIZE),
    progress: {
      ...(args.counters ?? { total_items: 0, completed_items: 0, successful: 0, failed: 0 }),
      cursor: args.cursor ?? -1,
      status: 'running',
    },
  };
  const { progress } = run;
  setHandler(progressQuery, () => ({ ...progress }));

  try {
    if (!args.counters) applyCounters(progress, await db.loadJobCounters(run.jobId));
    if (await workPages(run)) {
      const { counters: _c, cursor: _k, ...tuning } = args;
      const counters: EnrichmentCounters = {
        total_items: progress.total_items,
        completed_items: progress.completed_items,
        successful: progress.successful,
        failed: progress.failed,
      };
      return await continueAsNew<typeof enrichmentJobWorkflow>({ ...tuning, cursor: progress.cursor, counters });
    }
    await finalize(run, 'completed');
    return { ...progress };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => finalize(run, 'cancelled'));
      throw err;
    }
    const cause = err instanceof RowActivityFailed ? err.failure : err;
    if (cause instanceof ActivityFailure) {
      const message = `Processing stopped after repeated infrastructure failures: ${cause.cause?.message ?? cause.message}`;
      await finalize(run, 'failed', message);
      throw ApplicationFailure.nonRetryable(message, 'EnrichmentJobFailed');
    }
    throw err;
  }
}
