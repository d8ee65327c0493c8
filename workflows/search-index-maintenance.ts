/**
 * searchIndexMaintenanceWorkflow: one maintenance pass over the item search indexes
 * (src/services/catalog/search/index-maintenance.ts: rebuild the bloated ones, flush GIN pending lists).
 * Started every hour by the Temporal schedule `search-index-maintenance` that the worker creates
 * at start (temporal/maintenance-schedule.ts; the schedule skips a run while the last one still
 * runs), with the workflow id `search-index-maintenance`.
 *
 * Also started at the end of a restore, import or apply that rewrote a large share of a catalog,
 * under `search-index-maintenance-after-churn` (workflows/churn-maintenance.ts). After the pass,
 * the grid index sweep drops the grid field indexes of deleted catalogs and removed fields
 * (src/services/catalog/grid/grid-indexes.ts).
 *
 * State machine: running → completed (the pass's report) | failed (every attempt failed).
 * No continue-as-new: one activity per run. Cancellation cancels the activity; a rebuild that was
 * interrupted leaves PostgreSQL's invalid `_ccnew` copy, which the next rebuild replaces.
 */
import { patched, proxyActivities } from '@temporalio/workflow';
import type { SearchMaintenanceActivities } from '../activities/search-maintenance';
import type { IndexMaintenance } from '../src/services/catalog/search/index-maintenance';
import { retryPolicy } from '../src/contracts/retry-policies';

/**
 * Runs one maintenance pass.
 * @returns the report of each maintained index
 */
export async function searchIndexMaintenanceWorkflow(): Promise<IndexMaintenance[]> {
  const { maintainSearchIndexes, sweepGridIndexes } = proxyActivities<SearchMaintenanceActivities>({
    startToCloseTimeout: '2 hours',
    retry: retryPolicy('1 minute', '10 minutes', 5),
  });
  const report = await maintainSearchIndexes();
  // Grid field indexes of deleted catalogs and removed fields (src/services/catalog/grid/grid-indexes.ts).
  if (patched('grid-index-sweep')) await sweepGridIndexes();
  return report;
}
