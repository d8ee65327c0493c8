/**
 * Search index maintenance after churn ("fast right after churn"): a restore,
 * import or apply that rewrote a large share of a catalog starts a search index maintenance pass
 * (workflows/search-index-maintenance.ts) at its end instead of leaving the bloated indexes to
 * the hourly schedule. Workflow-side helper (not a workflow type) called by snapshotRestoreWorkflow,
 * catalogImportWorkflow and activityApplyWorkflow.
 *
 * Whether the rewrite is large is the activity `churnWarrantsMaintenance`'s answer
 * (src/services/catalog/search/index-maintenance.ts `churnWarrantsMaintenance`: ≥ 50,000 rows, or ≥ 10 %
 * of the catalog), asked only for rewrites of at least {@link CHURN_MIN_ROWS} items. The pass runs as an abandoned child under the one id
 * {@link CHURN_MAINTENANCE_ID} (reuse allowed once closed): a rewrite while a pass runs is covered
 * by it ("already started" is success), and the parent ends without waiting for it.
 *
 * Before the pass, behind the patch `post-write-settle`, the parent runs the activity
 * `settleAfterLargeWrite` and waits for it (src/services/catalog/search/post-write-maintenance.ts:
 * ANALYZE, GIN pending lists merged, VACUUM, completeness counters folded): searches right after
 * the rewrite plan on current statistics instead of waiting for autovacuum or the hourly pass.
 *
 * Versioning: behind the patches `churn-maintenance` and `post-write-settle`, so histories
 * recorded before them (which end without these commands) replay unchanged.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import { ParentClosePolicy, patched, proxyActivities, startChild } from '@temporalio/workflow';
import type { SearchMaintenanceActivities } from '../activities/search-maintenance';
import { CHURN_MAINTENANCE_ID, JOB_KIND, SEARCH_MAINTENANCE_JOB_KIND } from '../src/contracts/workflows';
import { searchIndexMaintenanceWorkflow } from './search-index-maintenance';
import { retryPolicy } from '../src/contracts/retry-policies';

/**
 * Rewrites of fewer items never warrant a pass (decided here, so small restores, imports and
 * applies run no extra activity); the activity applies the other thresholds.
 */
export const CHURN_MIN_ROWS = 1_000;

/** Patch id of the churn maintenance step (workflow versioning). */
export const CHURN_MAINTENANCE_PATCH = 'churn-maintenance';

/** Patch id of the post-write settle step (workflow versioning). */
export const POST_WRITE_SETTLE_PATCH = 'post-write-settle';

/**
 * Settles the items table after the rewrite (statistics, pending lists, visibility map), then starts a search index maintenance pass when `rows` rewritten items are a large share of the
 * catalog (see the module comment). Call at the very end of a workflow that rewrote items.
 * @returns true when a pass was started now or already runs, false when none was warranted
 */
export async function maintainAfterChurn(catalogId: string, rows: number): Promise<boolean> {
  if (rows < CHURN_MIN_ROWS || !patched(CHURN_MAINTENANCE_PATCH)) return false;
  const { churnWarrantsMaintenance } = proxyActivities<SearchMaintenanceActivities>({
    startToCloseTimeout: '1 minute',
    retry: retryPolicy('1 second', '30 seconds', 10),
  });
  if (!(await churnWarrantsMaintenance(catalogId, rows))) return false;
  if (patched(POST_WRITE_SETTLE_PATCH)) {
    const { settleAfterLargeWrite } = proxyActivities<SearchMaintenanceActivities>({
      startToCloseTimeout: '2 hours',
      retry: retryPolicy('10 seconds', '5 minutes', 5),
    });
    await settleAfterLargeWrite(catalogId);
  }
  try {
    await startChild(searchIndexMaintenanceWorkflow, {
      workflowId: CHURN_MAINTENANCE_ID,
      args: [],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [{ key: JOB_KIND, value: SEARCH_MAINTENANCE_JOB_KIND }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return true;
}
