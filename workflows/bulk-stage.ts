/**
 * bulkStageWorkflow: stages a bulk action of the catalog console (src/services/review/bulk-edit.ts) under `bulk-stage-<activity_id>`, started by the dashboard
 * (temporal/client.ts `startBulkStage`).
 *
 *   staging ── stageBulkPage(after) returned next ──▶ staging (next page)
 *   staging ── last page staged ──▶ finishBulkStaging ──▶ done (activity pending_review)
 *
 *   staging ── a page not stageable (BulkStageNotStageable) or attempts spent ──▶ failBulkStaging
 *              ──▶ done (activity failed, the reason its last message)
 *
 * Each page is one activity call and one transaction with its own batch key, so a retried page
 * stages nothing twice and a worker restart resumes at the page it was on. Retries: 1 s doubling
 * to 1 min, 20 attempts (the service's own 4xx errors are not retried); start-to-close 10 min per
 * page; heartbeat timeout 30 s (the page heartbeats while its transaction runs), so a page whose
 * worker died is retried within half a minute, not after the whole start-to-close (docs/testing.md,
 * "Durability": bulk-stage-crash). Continue-as-new after 1,000 pages
 * (500,000 items) keeps the history small.
 */
import { ActivityFailure, continueAsNew, defineQuery, isCancellation, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BulkActionActivities } from '../activities/bulk-actions';
import { BULK_STAGE_NOT_STAGEABLE } from '../src/contracts/workflows';
import { retryPolicy } from '../src/contracts/retry-policies';

/** Arguments of {@link bulkStageWorkflow}. */
export interface BulkStageArgs {
  activity_id: string;
  /** The item id to continue after (continue-as-new), null at the start. */
  after?: string | null;
  /** Changes staged by earlier runs (continue-as-new). */
  staged?: number;
}

/** Answer of the `progress` query: changes staged so far and whether staging is done. */
export interface BulkStageProgress {
  staged: number;
  done: boolean;
}

/** The `progress` query of {@link bulkStageWorkflow}. */
export const bulkStageProgressQuery = defineQuery<BulkStageProgress>('progress');

/** Pages per run before continue-as-new. */
const PAGES_PER_RUN = 1000;

/**
 * Stages every item of the bulk action page by page, then marks the activity pending_review.
 * @returns how many changes the activity stages
 */
export async function bulkStageWorkflow(args: BulkStageArgs): Promise<number> {
  const progress: BulkStageProgress = { staged: args.staged ?? 0, done: false };
  setHandler(bulkStageProgressQuery, () => progress);
  const acts = proxyActivities<BulkActionActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '30 seconds',
    retry: retryPolicy('1 second', '1 minute', 20, [BULK_STAGE_NOT_STAGEABLE]),
  });
  let after = args.after ?? null;
  for (let page = 0; page < PAGES_PER_RUN; page += 1) {
    let res: { staged: number; next: string | null };
    try {
      res = await acts.stageBulkPage(args.activity_id, after);
    } catch (err) {
      if (err instanceof ActivityFailure && !isCancellation(err)) {
        // Not stageable, or every attempt failed: the activity says so (status failed), staging stops.
        await acts.failBulkStaging(args.activity_id, err.cause?.message ?? err.message);
        progress.done = true;
        return progress.staged;
      }
      throw err;
    }
    progress.staged += res.staged;
    if (res.next === null) {
      const total = await acts.finishBulkStaging(args.activity_id);
      progress.done = true;
      return total;
    }
    after = res.next;
  }
  return continueAsNew<typeof bulkStageWorkflow>({ activity_id: args.activity_id, after, staged: progress.staged });
}
