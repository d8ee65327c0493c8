/**
 * Search index maintenance activity: a thin adapter over `maintainSearchIndexes`
 * (src/services/catalog/search/index-maintenance.ts), run by searchIndexMaintenanceWorkflow.
 */
import type { Knex } from 'knex';
import { logger } from '../src/lib/logger';
import { churnWarrantsMaintenance, IndexMaintenance, maintainSearchIndexes, MaintenanceOptions } from '../src/services/catalog/search/index-maintenance';
import { sweepGridIndexes } from '../src/services/catalog/grid/grid-indexes';
import { settleAfterLargeWrite, type SettleReport } from '../src/services/catalog/search/post-write-maintenance';

/** The maintenance activities registered on the worker; the workflow proxies them by these names. */
export interface SearchMaintenanceActivities {
  /** One pass: rebuild bloated search indexes, flush the others' GIN pending lists; idempotent. */
  maintainSearchIndexes(): Promise<IndexMaintenance[]>;
  /**
   * Whether a rewrite of `rows` items of the catalog warrants a pass now (churnWarrantsMaintenance,
   * under the worker's thresholds); read-only.
   */
  churnWarrantsMaintenance(catalogId: string, rows: number): Promise<boolean>;
  /**
   * After a large write to the catalog: ANALYZE, GIN pending lists merged, VACUUM (SKIP_LOCKED),
   * the catalog's completeness counters folded (src/services/catalog/search/post-write-maintenance.ts);
   * idempotent.
   */
  settleAfterLargeWrite(catalogId: string): Promise<SettleReport>;
  /**
   * The grid index sweep (src/services/catalog/grid/grid-indexes.ts sweepGridIndexes): drops the grid
   * field indexes of deleted catalogs and removed fields, and stray ones.
   * @returns indexes dropped
   */
  sweepGridIndexes(): Promise<{ dropped: number }>;
}

/** Builds the maintenance activities over the worker's database (`options`: thresholds; tests lower them). */
export function createSearchMaintenanceActivities(knex: Knex, options: MaintenanceOptions = {}): SearchMaintenanceActivities {
  return {
    async maintainSearchIndexes() {
      const report = await maintainSearchIndexes(knex, options);
      logger.info(
        { indexes: report.map((r) => ({ index: r.index, action: r.action, bytes_per_row: Math.round(r.bytes_per_row), rebuild_ms: r.rebuild_ms })) },
        'search index maintenance',
      );
      return report;
    },
    async churnWarrantsMaintenance(catalogId, rows) {
      const warranted = await churnWarrantsMaintenance(knex, catalogId, rows, options);
      logger.info({ catalog_id: catalogId, rows, warranted }, 'churn: search index maintenance warranted?');
      return warranted;
    },
    async settleAfterLargeWrite(catalogId) {
      const report = await settleAfterLargeWrite(knex, catalogId);
      logger.info({ catalog_id: catalogId, report }, 'items table settled after a large write');
      return report;
    },
    async sweepGridIndexes() {
      const swept = await sweepGridIndexes(knex);
      const dropped = swept.catalogs.reduce((n, c) => n + c.dropped.length, 0) + swept.strays.length;
      if (dropped) logger.info({ dropped, strays: swept.strays }, 'grid index sweep');
      return { dropped };
    },
  };
}
