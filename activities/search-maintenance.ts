/**
 * Search index maintenance activity: a thin adapter over `maintainSearchIndexes`
 * (src/services/catalog/index-maintenance.ts), run by searchIndexMaintenanceWorkflow.
 */
import type { Knex } from 'knex';
import { logger } from '../src/lib/logger';
import { IndexMaintenance, maintainSearchIndexes, MaintenanceOptions } from '../src/services/catalog/index-maintenance';

/** The maintenance activities registered on the worker; the workflow proxies them by these names. */
export interface SearchMaintenanceActivities {
  /** One pass: rebuild bloated search indexes, flush the others' GIN pending lists; idempotent. */
  maintainSearchIndexes(): Promise<IndexMaintenance[]>;
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
  };
}
