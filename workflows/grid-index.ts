/**
 * gridIndexWorkflow: builds and drops one catalog's grid field indexes
 * (src/services/catalog/grid/grid-indexes.ts), as its `catalog_field_indexes` rows ask.
 * Started or signalled (signal-with-start, temporal/client.ts `startGridIndexes`) under
 * `grid-index-<catalog_id>` with search attributes OrganizationId, CatalogId, JobKind=grid-index
 * by a grid page of a large catalog that records an index it lacks, a schema change that removed
 * an indexed field, or the catalog's deletion. Each pass also builds the list sort keys the
 * catalog's item lists recorded (src/services/catalog/items/sort-keys.ts; asked the same way).
 *
 * State machine:
 *
 *   reconciling ── reconcileGridIndexes returned (every pending row built, failed or dropped) ──▶ lingering
 *   reconciling ── attempt failed (database error, worker gone) ──▶ backoff, next attempt (idempotent)
 *   lingering ── gridIndexRequested signal ──▶ reconciling
 *   lingering ── `linger_s` (default 30 s) without a signal ──▶ completed (what it built, failed, dropped)
 *
 * Retries: 5 s doubling to 5 min, 20 attempts; start-to-close 2 h (a field's keys take ~40–60 s per
 * 1,000,000 items); heartbeat timeout 30 s. Continue-as-new after 50 passes (a handful of events
 * each). Cancellation: the pending attempt is cancelled; an interrupted key build leaves the field
 * recorded but not ready (the triggers keep the keys of new writes meanwhile), and the next pass
 * copies the missing keys and marks it ready.
 */
import { condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { GridIndexActivities } from '../activities/grid-index';
import { GridIndexArgs, GridIndexResult } from '../src/contracts/workflows';
import { gridIndexRequestedSignal } from './definitions';
import { retryPolicy } from '../src/contracts/retry-policies';

/** Passes of one run before it continues as new. */
const PASSES_PER_RUN = 50;

/** Reconciles the catalog's grid indexes until no request came for `linger_s` (see the state machine above). */
export async function gridIndexWorkflow(args: GridIndexArgs): Promise<GridIndexResult> {
  let requested = false;
  setHandler(gridIndexRequestedSignal, () => {
    requested = true;
  });
  const { reconcileGridIndexes } = proxyActivities<GridIndexActivities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: `${Math.max(1, args.heartbeat_timeout_s ?? 30)} seconds`,
    retry: retryPolicy('5 seconds', '5 minutes', 20),
  });
  const result: GridIndexResult = { passes: 0, built: [], failed: [], dropped: [] };
  const lingerMs = Math.max(0, args.linger_s ?? 30) * 1000;
  for (;;) {
    requested = false;
    const pass = await reconcileGridIndexes(args.catalog_id);
    result.passes += 1;
    result.built.push(...pass.built.map((b) => b.index));
    result.failed.push(...pass.failed.map((f) => f.index));
    result.dropped.push(...pass.dropped);
    if (!requested && !(await condition(() => requested, lingerMs))) return result;
    if (result.passes >= PASSES_PER_RUN) return await continueAsNew<typeof gridIndexWorkflow>(args);
  }
}
