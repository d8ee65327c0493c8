/**
 * enrichmentJobWorkflow: runs one enrichment job (interface-spec.md, "Enrichment" and "States
 * and transitions"; decisions.md §4). Items and results live in PostgreSQL; this workflow moves
 * only row indexes and counters (architecture.md, Temporal rule 2).
 *
 * State machine (the `status` answered by `progressQuery`):
 *
 *   running ── no pending row left ───────────────────▶ finalizing ─▶ completed (workflow completes)
 *   running ── page budget spent / history too long ──▶ continue-as-new, carrying cursor + counters
 *   running ── cancellation requested ────────────────▶ finalizing (non-cancellable) ─▶ cancelled
 *                                                         (CancelledFailure rethrown: UI shows Canceled)
 *   running ── an activity fails after all retries ───▶ finalizing ─▶ failed (workflow fails)
 *
 * Work loop: fetch a page of pending row indexes after the cursor (`pendingRowIndexes`), run
 * `processRow` for each with at most `concurrency` in flight (a sliding window, as in
 * samples-typescript batch-sliding-window), advance the cursor, count outcomes from the
 * activities' return values. Item-level engine errors are results (`failed` rows), not
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
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/workflow';
import type { EnrichmentActivities, JobCounters, RowOutcome } from '../activities';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_PAGE_SIZE,
  DEFAULT_PAGES_PER_RUN,
  EnrichmentCounters,
  EnrichmentJobArgs,
  EnrichmentPhase,
  EnrichmentProgress,
  progressQuery,
} from './definitions';

/**
 * Backoff for infrastructure failures (database or worker down): 1 s doubling to 1 min, 20
 * attempts, about a quarter of an hour before the job is given up as failed.
 */
const RETRY: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 };

const db = proxyActivities<EnrichmentActivities>({ startToCloseTimeout: '1 minute', retry: RETRY });

/**
 * One row may research the web for minutes; the activity heartbeats every 10 s, so a dead worker
 * is noticed after one heartbeat timeout rather than after the whole start-to-close timeout.
 */
const rows = proxyActivities<EnrichmentActivities>({ startToCloseTimeout: '15 minutes', heartbeatTimeout: '1 minute', retry: RETRY });

/** Thrown inside the work loop when a row activity failed for good (after its retries). */
class RowActivityFailed extends Error {
  constructor(readonly failure: unknown) {
    super('row activity failed');
  }
}

function phaseOf(status: string): EnrichmentPhase {
  return status === 'completed' || status === 'cancelled' || status === 'failed' ? status : 'running';
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
  const jobId = args.job_id;
  const concurrency = Math.max(1, args.concurrency ?? DEFAULT_CONCURRENCY);
  const pageSize = Math.max(1, args.page_size ?? DEFAULT_PAGE_SIZE);
  const pagesPerRun = Math.max(1, args.pages_per_run ?? DEFAULT_PAGES_PER_RUN);
  const progress: EnrichmentProgress = {
    ...(args.counters ?? { total_items: 0, completed_items: 0, successful: 0, failed: 0 }),
    cursor: args.cursor ?? -1,
    status: 'running',
  };
  setHandler(progressQuery, () => ({ ...progress }));

  const apply = (c: JobCounters): void => {
    progress.total_items = c.total_items;
    progress.completed_items = c.completed_items;
    progress.successful = c.successful;
    progress.failed = c.failed;
  };
  const count = (outcome: RowOutcome): void => {
    if (outcome === 'skipped') return;
    progress.completed_items += 1;
    if (outcome === 'succeeded') progress.successful += 1;
    else progress.failed += 1;
  };

  /** Processes pages until none is left (false) or the run's budget is spent (true). */
  const work = async (): Promise<boolean> => {
    const inflight = new Set<Promise<void>>();
    let failure: unknown = null;
    const drain = async (): Promise<void> => {
      await Promise.all(inflight);
      if (failure !== null) throw isCancellation(failure) ? failure : new RowActivityFailed(failure);
    };
    for (let page = 1; ; page++) {
      const indexes = await db.pendingRowIndexes(jobId, progress.cursor, pageSize);
      for (const rowIndex of indexes) {
        while (inflight.size >= concurrency && failure === null) await Promise.race(inflight);
        if (failure !== null) break;
        // Each promise settles without rejecting (failures are recorded), so none goes unhandled.
        const p: Promise<void> = rows.processRow(jobId, rowIndex).then(count, (err) => {
          failure ??= err;
        }).finally(() => inflight.delete(p));
        inflight.add(p);
        progress.cursor = rowIndex;
      }
      if (failure !== null || indexes.length < pageSize) {
        await drain(); // throws the recorded failure, if any
        return false;
      }
      if (page >= pagesPerRun || workflowInfo().continueAsNewSuggested) {
        await drain();
        return true;
      }
    }
  };

  try {
    if (!args.counters) apply(await db.loadJobCounters(jobId));
    if (await work()) {
      const { counters: _c, cursor: _k, ...tuning } = args;
      const counters: EnrichmentCounters = {
        total_items: progress.total_items, completed_items: progress.completed_items, successful: progress.successful, failed: progress.failed,
      };
      return await continueAsNew<typeof enrichmentJobWorkflow>({ ...tuning, cursor: progress.cursor, counters });
    }
    progress.status = 'finalizing';
    const final = await db.finalizeJob(jobId, 'completed');
    apply(final);
    progress.status = phaseOf(final.status);
    return { ...progress };
  } catch (err) {
    if (isCancellation(err)) {
      progress.status = 'finalizing';
      await CancellationScope.nonCancellable(async () => apply(await db.finalizeJob(jobId, 'cancelled')));
      progress.status = 'cancelled';
      throw err;
    }
    const cause = err instanceof RowActivityFailed ? err.failure : err;
    if (cause instanceof ActivityFailure) {
      const message = `Processing stopped after repeated infrastructure failures: ${cause.cause?.message ?? cause.message}`;
      progress.status = 'finalizing';
      apply(await db.finalizeJob(jobId, 'failed', message));
      progress.status = 'failed';
      throw ApplicationFailure.nonRetryable(message, 'EnrichmentJobFailed');
    }
    throw err;
  }
}
