/**
 * Activities of catalogImportWorkflow (workflows/catalog-import.ts): thin adapters over
 * src/services/inference/import.ts.
 */
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { createCatalogCaches, type CatalogCaches } from '../src/services/catalog/caches';
import { finishImport, importBatch, type ImportBatchResult } from '../src/services/inference/import';

/** The import activities. */
export interface ImportActivities {
  /** Writes the next batch of pending lines after `afterLine` (one transaction). */
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
      return importBatch(deps.knex, caches, importId, afterLine);
    },
    async finishImport(importId, status, error) {
      await finishImport(deps.knex, importId, status, error);
    },
  };
}
