/**
 * Activities of the bulk-action staging workflow (workflows/bulk-stage.ts): thin adapters over
 * src/services/review/bulk-edit.ts. Only ids and counts cross Temporal (architecture.md,
 * Temporal rule 2).
 */
import type { Knex } from 'knex';
import type { CatalogCaches } from '../src/services/catalog/caches';
import { createCatalogCaches } from '../src/services/catalog/caches';
import { finishBulkStaging, stageBulkPage } from '../src/services/review/bulk-edit';

/** The bulk-action activities registered on the worker; the workflow proxies them by these names. */
export interface BulkActionActivities {
  /** Stages the page of items after `after` (bulk-edit.ts `stageBulkPage`); idempotent per page. */
  stageBulkPage(activityId: string, after: string | null): Promise<{ staged: number; next: string | null }>;
  /** Moves the activity to pending_review (idempotent). @returns the changes it stages */
  finishBulkStaging(activityId: string): Promise<number>;
}

/** Builds the bulk-action activities over the worker's database and catalog caches. */
export function createBulkActionActivities(deps: { knex: Knex; caches?: CatalogCaches }): BulkActionActivities {
  const caches = deps.caches ?? createCatalogCaches();
  return {
    stageBulkPage: (activityId, after) => stageBulkPage({ knex: deps.knex, caches: { catalog: caches } }, activityId, after),
    finishBulkStaging: (activityId) => finishBulkStaging(deps.knex, activityId),
  };
}
