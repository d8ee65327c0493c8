/**
 * Snapshot restore activities of snapshotRestoreWorkflow (workflows/snapshot-restore.ts): thin
 * adapters over src/services/catalog/snapshots/snapshot-restores.ts, built by
 * {@link createSnapshotRestoreActivities}. Only the restore id and the result cross Temporal
 * (docs/workflows.md "Rules of the craft").
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError } from '../src/lib/errors';
import { logger } from '../src/lib/logger';
import { markSnapshotRestoreFailed, runSnapshotRestore } from '../src/services/catalog/snapshots/snapshot-restores';
import type { SnapshotRestoreResult } from '../src/contracts/workflows';
import { RESTORE_NOT_APPLICABLE } from '../src/contracts/workflows';
import { heartbeatingOneTransaction } from './heartbeat';

/** The snapshot restore activities registered on the worker; the workflow proxies them by these names. */
export interface SnapshotRestoreActivities {
  /**
   * Restores the snapshot of restore `restoreId` in one transaction that also records the result
   * (src/services/catalog/snapshots/snapshot-restores.ts `runSnapshotRestore`); heartbeats while it runs.
   * Idempotent: never restores twice.
   * @returns the result (the stored one when the restore completed already)
   * @throws ApplicationFailure `RestoreNotApplicable` (non-retryable) when the catalog, the
   *   snapshot or its schema version is gone; the database's error otherwise (retried)
   */
  restoreSnapshotActivity(restoreId: string): Promise<SnapshotRestoreResult>;
  /** Records a failed restore (status failed with the error and `not_applicable` or `error`); idempotent. */
  markSnapshotRestoreFailed(restoreId: string, error: string, failure: 'not_applicable' | 'error'): Promise<void>;
}

/**
 * Builds the snapshot restore activities over the worker's database.
 * @param deps `searchWordsDeferMinItems`: snapshots of at least this many items leave the word
 *   index behind (default as src/services/catalog/search/search-words.ts); tests lower it
 * @returns an object of async functions to pass (with the others) to `Worker.create`
 */
export function createSnapshotRestoreActivities(deps: { knex: Knex; searchWordsDeferMinItems?: number }): SnapshotRestoreActivities {
  return {
    async restoreSnapshotActivity(restoreId) {
      try {
        return await heartbeatingOneTransaction(async (ctx, started) => {
          const result = await runSnapshotRestore(deps, restoreId);
          logger.info({ restore_id: restoreId, attempt: ctx.info.attempt, result, ms: Date.now() - started }, 'snapshot restored');
          return result;
        });
      } catch (err) {
        if (err instanceof ConflictError || err instanceof NotFoundError || err instanceof ForbiddenError) {
          throw ApplicationFailure.nonRetryable(err.message, RESTORE_NOT_APPLICABLE);
        }
        throw err;
      }
    },
    async markSnapshotRestoreFailed(restoreId, error, failure) {
      await markSnapshotRestoreFailed(deps.knex, restoreId, error, failure);
    },
  };
}
