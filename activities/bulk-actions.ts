/**
 * Activities of the bulk-action staging workflow (workflows/bulk-stage.ts): thin adapters over
 * src/services/review/bulk-edit.ts. Only ids and counts cross Temporal (docs/workflows.md
 * "Rules of the craft", Temporal rule 2).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Knex } from 'knex';
import { AppError } from '../src/lib/errors';
import { BULK_STAGE_NOT_STAGEABLE } from '../src/contracts/workflows';
import type { CatalogCaches } from '../src/services/catalog/catalog-caches';
import { createCatalogCaches } from '../src/services/catalog/catalog-caches';
import { failBulkStaging, finishBulkStaging, stageBulkPage } from '../src/services/review/bulk-edit';
import { heartbeatingOneTransaction } from './heartbeat';

/** The bulk-action activities registered on the worker; the workflow proxies them by these names. */
export interface BulkActionActivities {
  /**
   * Stages the page of items after `after` (bulk-edit.ts `stageBulkPage`); idempotent per page.
   * Heartbeats while the page's transaction runs (heartbeat.ts), so a dead worker's page is
   * retried after the workflow's heartbeat timeout.
   * @throws ApplicationFailure `BulkStageNotStageable` (non-retryable) for the service's own
   *   errors (a filter or field no longer valid, 4xx); the database's error otherwise (retried)
   */
  stageBulkPage(activityId: string, after: string | null): Promise<{ staged: number; next: string | null }>;
  /** Moves the activity to pending_review (idempotent). @returns the changes it stages */
  finishBulkStaging(activityId: string): Promise<number>;
  /** Records that staging failed for good (the activity `failed`, the reason its last message); idempotent. */
  failBulkStaging(activityId: string, error: string): Promise<void>;
}

/** Builds the bulk-action activities over the worker's database and catalog caches. */
export function createBulkActionActivities(deps: { knex: Knex; caches?: CatalogCaches }): BulkActionActivities {
  const caches = deps.caches ?? createCatalogCaches();
  return {
    async stageBulkPage(activityId, after) {
      try {
        return await heartbeatingOneTransaction(() => stageBulkPage({ knex: deps.knex, caches: { catalog: caches } }, activityId, after));
      } catch (err) {
        if (err instanceof AppError && err.status < 500) throw ApplicationFailure.nonRetryable(err.message, BULK_STAGE_NOT_STAGEABLE);
        throw err;
      }
    },
    finishBulkStaging: (activityId) => finishBulkStaging(deps.knex, activityId),
    failBulkStaging: (activityId, error) => failBulkStaging(deps.knex, activityId, error),
  };
}
