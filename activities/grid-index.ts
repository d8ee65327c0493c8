/**
 * Grid index activity: a thin adapter over `reconcileGridIndexes`
 * (src/services/catalog/grid/grid-indexes.ts) and `buildSortKeys` (the list's data-field sort
 * keys, src/services/catalog/items/sort-keys.ts), run by gridIndexWorkflow (workflows/grid-index.ts).
 * Moves only the catalog id and the index names through Temporal (docs/workflows.md "Rules of the craft").
 */
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { logger } from '../src/lib/logger';
import { GridIndexReconcile, reconcileGridIndexes } from '../src/services/catalog/grid/grid-indexes';
import { buildSortKeys } from '../src/services/catalog/items/sort-keys';
import { whileHeartbeating } from './heartbeat';

/** The grid index activities registered on the worker; the workflow proxies them by these names. */
export interface GridIndexActivities {
  /**
   * Builds (the field's keys and statistics) and drops the catalog's grid field indexes its
   * `catalog_field_indexes` rows ask for, until none is pending, then the sort
   * keys of the fields its lists asked for (`catalog_sort_fields` rows not ready); heartbeats while
   * it runs. Idempotent: a retry finds what exists and goes on.
   * @returns what was built, failed (recorded on the row) and dropped, and the sort keys made ready
   *   (by the grid rows' builds, then of the fields only a list asked for)
   * @throws the database's error (retried by the workflow's policy)
   */
  reconcileGridIndexes(catalogId: string): Promise<GridIndexReconcile>;
}

/** Builds the grid index activities over the worker's database. */
export function createGridIndexActivities(deps: { knex: Knex }): GridIndexActivities {
  return {
    async reconcileGridIndexes(catalogId) {
      const ctx = Context.current();
      const started = Date.now();
      let step: unknown = null;
      const result = await whileHeartbeating(
        ctx,
        () => ({ elapsed_ms: Date.now() - started, step }),
        async () => {
          const onStep = (detail: unknown) => {
            step = detail;
          };
          const indexes = await reconcileGridIndexes(deps.knex, catalogId, onStep);
          // The fields a list asked for while no grid row was pending (a no-op when the grid rows' builds took them).
          return { ...indexes, sort_keys: [...indexes.sort_keys, ...(await buildSortKeys(deps.knex, catalogId, onStep))] };
        },
      );
      logger.info({ catalog_id: catalogId, attempt: ctx.info.attempt, result }, 'grid indexes reconciled');
      return result;
    },
  };
}
