/**
 * Activities of catalogImportWorkflow (workflows/catalog-import.ts): thin adapters over
 * src/services/sheets/import.ts.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { IMPORT_NOT_PERMITTED } from '../src/contracts/workflows';
import { ForbiddenError } from '../src/lib/errors';
import { createCatalogCaches, type CatalogCaches } from '../src/services/catalog/catalog-caches';
import { finishImport, importBatch, type ImportBatchResult } from '../src/services/sheets/import';

/** The import activities. */
export interface ImportActivities {
  /**
   * Writes the next batch of pending lines after `afterLine` (one transaction), acting as the
   * import's starter does now. Fails with {@link IMPORT_NOT_PERMITTED} (not retried) when that
   * person was disabled or demoted below the import route's role since the start.
   */
  importBatch(importId: string, afterLine: number): Promise<ImportBatchResult>;
  /** Marks the import completed, failed or cancelled (idempotent: only a running import changes). */
  finishImport(importId: string, status: 'completed' | 'failed' | 'cancelled', error?: string): Promise<void>;
}

/** Builds the import activities over the worker's database (and catalog caches). */
export function createImportActivities(deps: { knex: Knex; caches?: CatalogCaches }): ImportActivities {
  const caches = deps.caches ?? createCatalogCaches();
  return {
    async importBatch(importId, afterLine) {
      Context.current().heartbeat({ after_line: afterLine });
      try {
        return await importBatch(deps.knex, caches, importId, afterLine);
      } catch (err) {
        // Its starter may no longer write: retrying cannot mend that, the import fails saying why.
        if (err instanceof ForbiddenError) throw ApplicationFailure.nonRetryable(err.message, IMPORT_NOT_PERMITTED);
        throw err;
      }
    },
    async finishImport(importId, status, error) {
      await finishImport(deps.knex, importId, status, error);
    },
  };
}
