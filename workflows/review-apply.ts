/**
 * activityApplyWorkflow: the apply of a review activity (docs/api-review.md "Apply"), started by the API (temporal/client.ts `startApply`) under
 * `activity-apply-<activity_id>` with search attributes OrganizationId, CatalogId, JobKind=apply.
 *
 * A further apply of a completed activity (changes approved after its last apply; docs/review.md)
 * is a new run under the same id, which replaces a previous run still catching up the word index.
 *
 * State machine (the `progress` query answers the phase):
 *
 *   applying ── applyActivity returned ──▶ completed (result), then catchUpSearchWords (word index
 *               a large apply left behind, src/services/catalog/search/search-words.ts; a no-op otherwise)
 *               then, when it rewrote a large share of the catalog, a search index maintenance
 *               pass (workflows/churn-maintenance.ts)
 *   applying ── attempt failed (worker killed, database error) ───────▶ backoff, next attempt
 *   applying ── attempts spent, or not applicable (ApplyNotApplicable) ▶ markApplyFailed ▶ failed
 *
 * The one activity takes the `pre_apply` snapshot (reused by its retries) and applies every
 * approved change in one transaction that first checks the activity is not completed under its
 * row lock (src/services/review/apply.ts): a retry after a crash either finds nothing applied
 * (the transaction rolled back) or the stored result, never applies twice.
 *
 * Retries: 1 s doubling to 1 min, 10 attempts; start-to-close 1 h; heartbeat timeout 60 s (a
 * killed worker's attempt is retried after it). Continue-as-new: never (a handful of events).
 * Cancellation: the attempt is cancelled; its transaction commits whole or not at all.
 */
import { ActivityFailure, isCancellation, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ApplyActivities } from '../activities/apply';
import type { SearchIndexActivities } from '../activities/search-index';
import { maintainAfterChurn } from './churn-maintenance';
import { ReviewApplyArgs, ReviewApplyOutcome, ReviewApplyProgress, ReviewApplyResult, APPLY_NOT_APPLICABLE } from '../src/contracts/workflows';
import { applyProgressQuery } from './definitions';
import { BOOKKEEPING_RETRY, tunedRetry } from '../src/contracts/retry-policies';

// The function name is the registered workflow type (recorded histories, test/replay): it stays activityApplyWorkflow.
/**
 * Applies the approved changes of `args.activity_id` (see the state machine above).
 * @returns `completed` with the result, or `failed` with the error once every attempt failed
 *   (the activity then stays pending_review with apply_progress `{phase: 'failed', error}`)
 */
export async function activityApplyWorkflow(args: ReviewApplyArgs): Promise<ReviewApplyOutcome> {
  let progress: ReviewApplyProgress = { phase: 'queued' };
  setHandler(applyProgressQuery, () => progress);
  const { applyActivity } = proxyActivities<ApplyActivities>({
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: `${Math.max(1, args.heartbeat_timeout_s ?? 60)} seconds`,
    retry: tunedRetry(args, [APPLY_NOT_APPLICABLE]),
  });
  const { markApplyFailed } = proxyActivities<ApplyActivities>({
    startToCloseTimeout: '1 minute',
    retry: BOOKKEEPING_RETRY,
  });
  const { catchUpSearchWords } = proxyActivities<SearchIndexActivities>({
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: `${Math.max(1, args.heartbeat_timeout_s ?? 60)} seconds`,
    retry: BOOKKEEPING_RETRY,
  });
  progress = { phase: 'applying' };
  let result: ReviewApplyResult;
  try {
    result = await applyActivity(args);
  } catch (err) {
    if (err instanceof ActivityFailure && !isCancellation(err)) {
      const error = err.cause?.message ?? err.message;
      await markApplyFailed(args.activity_id, error);
      progress = { phase: 'failed', error };
      return { status: 'failed', error };
    }
    throw err;
  }
  progress = { phase: 'completed', result };
  // A large apply left the word index behind (search-words.ts; searches stay exact meanwhile):
  // catch it up now. A no-op, without a lock, when nothing is pending.
  await catchUpSearchWords(args.catalog_id);
  // An apply that rewrote a large share of the catalog maintains the search indexes now (churn-maintenance.ts).
  await maintainAfterChurn(args.catalog_id, result.applied);
  return { status: 'completed', result };
}
