/**
 * snapshotRestoreWorkflow: the restore of a catalog snapshot (docs/api-reference.md "Snapshots"),
 * started by the API or the console (src/services/catalog/snapshots/snapshot-restores.ts, temporal/client.ts
 * `startSnapshotRestore`) under `snapshot-restore-<restore_id>` with search attributes
 * OrganizationId, CatalogId, JobKind=snapshot-restore.
 *
 * State machine (the `progress` query answers the phase; the API and pages read `snapshot_restores`):
 *
 *   restoring ── restoreSnapshotActivity returned ──▶ completed (result), then, when the restore
 *                left the word index behind, catchUpSearchWords (src/services/catalog/search/search-words.ts),
 *                then, when it rewrote a large share of the catalog, a search index maintenance
 *                pass (workflows/churn-maintenance.ts)
 *   restoring ── attempt failed (worker killed, database error) ─────▶ backoff, next attempt
 *   restoring ── attempts spent, or not applicable (RestoreNotApplicable) ▶ markSnapshotRestoreFailed ▶ failed
 *
 * The one activity takes the safety snapshot, restores and records the result in one transaction
 * that first locks the restore row and finds it not completed: a retry after a crash finds
 * nothing restored (rolled back) or the stored result, never restores twice.
 *
 * Retries: 1 s doubling to 1 min, 10 attempts; start-to-close 1 h; heartbeat timeout 60 s.
 * Continue-as-new: never (a handful of events). Cancellation: the attempt is cancelled; its
 * transaction commits whole or not at all.
 */
import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SearchIndexActivities } from '../activities/search-index';
import type { SnapshotRestoreActivities } from '../activities/snapshot-restore';
import { maintainAfterChurn } from './churn-maintenance';
import {
  RESTORE_NOT_APPLICABLE,
  SnapshotRestoreArgs,
  SnapshotRestoreOutcome,
  SnapshotRestoreProgress,
  SnapshotRestoreResult,
} from '../src/contracts/workflows';
import { restoreProgressQuery } from './definitions';
import { BOOKKEEPING_RETRY, tunedRetry } from '../src/contracts/retry-policies';

/**
 * Restores the snapshot of `args.restore_id` (see the state machine above).
 * @returns `completed` with the result, or `failed` with the error once every attempt failed or
 *   the restore cannot run (the row then says `failed` with the error)
 */
export async function snapshotRestoreWorkflow(args: SnapshotRestoreArgs): Promise<SnapshotRestoreOutcome> {
  let progress: SnapshotRestoreProgress = { phase: 'queued' };
  setHandler(restoreProgressQuery, () => progress);
  const heartbeatTimeout = `${Math.max(1, args.heartbeat_timeout_s ?? 60)} seconds` as const;
  const { restoreSnapshotActivity } = proxyActivities<SnapshotRestoreActivities>({
    startToCloseTimeout: '1 hour',
    heartbeatTimeout,
    retry: tunedRetry(args, [RESTORE_NOT_APPLICABLE]),
  });
  const { markSnapshotRestoreFailed } = proxyActivities<SnapshotRestoreActivities>({
    startToCloseTimeout: '1 minute',
    retry: BOOKKEEPING_RETRY,
  });
  const { catchUpSearchWords } = proxyActivities<SearchIndexActivities>({
    startToCloseTimeout: '1 hour',
    heartbeatTimeout,
    retry: BOOKKEEPING_RETRY,
  });
  progress = { phase: 'restoring' };
  let result: SnapshotRestoreResult;
  try {
    result = await restoreSnapshotActivity(args.restore_id);
  } catch (err) {
    if (err instanceof ActivityFailure && !isCancellation(err)) {
      const error = err.cause?.message ?? err.message;
      const notApplicable = err.cause instanceof ApplicationFailure && err.cause.type === RESTORE_NOT_APPLICABLE;
      await markSnapshotRestoreFailed(args.restore_id, error, notApplicable ? 'not_applicable' : 'error');
      progress = { phase: 'failed', error };
      return { status: 'failed', error };
    }
    throw err;
  }
  progress = { phase: 'completed', result };
  // A large restore left the word index behind (searches stay exact meanwhile): catch it up now.
  if (result.words_pending) await catchUpSearchWords(args.catalog_id);
  // A restore that rewrote a large share of the catalog maintains the search indexes now (churn-maintenance.ts).
  await maintainAfterChurn(args.catalog_id, result.items_restored);
  return { status: 'completed', result };
}
