/**
 * catalogImportWorkflow: a spreadsheet import into a catalog, started by the API
 * (temporal/client.ts `startImport`) under `catalog-import-<import_id>` with search attributes
 * OrganizationId, CatalogId, JobKind=import, after the API staged the file's lines in PostgreSQL
 * (src/services/sheets/import.ts).
 *
 * State machine (the `progress` query answers phase, cursor and counters):
 *
 *   importing ── a wave of `concurrency` importBatch ranges written ──▶ importing (cursor past the wave)
 *   importing ── a range reached past the last line ──────────────────▶ finishImport(completed) ▶ completed
 *                (then, when it rewrote a large share of the catalog, a search index maintenance pass:
 *                workflows/churn-maintenance.ts)
 *   importing ── 100 batches in this run ─────────────────────────────▶ continue-as-new {cursor, counters}
 *   importing ── an activity fails after its retries, or at once with ImportNotPermitted (its starter
 *                was disabled or demoted since the start) ───▶ finishImport(failed) ▶ failed
 *   importing ── cancellation requested (the API marked the import cancelled) ─▶ finishImport(cancelled),
 *                not cancellable ▶ cancelled (CancelledFailure rethrown: the UI shows Canceled)
 *
 * Each batch is one transaction that writes its items and their line statuses together, and
 * only pending lines are read, so a retried batch never writes a line twice. Line-level errors
 * are statuses, not failures. Retries: 1 s doubling to 1 min, 20 attempts; heartbeat 60 s. A
 * batch that starts once the import is no longer running writes nothing, so the batches in flight
 * at a cancel are the last ones written.
 */
import { ActivityFailure, CancellationScope, continueAsNew, isCancellation, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ImportActivities } from '../activities/imports';
import { maintainAfterChurn } from './churn-maintenance';
import { CatalogImportArgs, CatalogImportProgress, DEFAULT_IMPORT_CONCURRENCY, IMPORT_BATCH_LINES } from '../src/contracts/workflows';
import { importProgressQuery } from './definitions';
import { BOOKKEEPING_RETRY, retryPolicy } from '../src/contracts/retry-policies';

/** Writes the staged lines of `args.import_id` batch by batch (see the state machine above). */
export async function catalogImportWorkflow(args: CatalogImportArgs): Promise<CatalogImportProgress> {
  let progress: CatalogImportProgress = { phase: 'importing', cursor: args.cursor ?? 1, counters: args.counters ?? { created: 0, updated: 0, failed: 0 } };
  setHandler(importProgressQuery, () => progress);
  const { importBatch } = proxyActivities<ImportActivities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '60 seconds',
    retry: retryPolicy('1 second', '1 minute', 20),
  });
  const { finishImport } = proxyActivities<ImportActivities>({
    startToCloseTimeout: '1 minute',
    retry: BOOKKEEPING_RETRY,
  });
  const perRun = Math.max(1, args.batches_per_run ?? 100);
  const concurrency = Math.max(1, args.concurrency ?? DEFAULT_IMPORT_CONCURRENCY);
  try {
    // Waves of `concurrency` batches over consecutive, disjoint line ranges; the cursor moves
    // past a wave once all of it is written, so continue-as-new never splits a wave.
    for (let batches = 0; ; batches += concurrency) {
      if (batches >= perRun || workflowInfo().continueAsNewSuggested)
        return await continueAsNew<typeof catalogImportWorkflow>({ ...args, cursor: progress.cursor, counters: progress.counters });
      const wave = await Promise.all(Array.from({ length: concurrency }, (_, k) => importBatch(args.import_id, progress.cursor + k * IMPORT_BATCH_LINES)));
      const c = { ...progress.counters };
      for (const r of wave) {
        c.created += r.created;
        c.updated += r.updated;
        c.failed += r.failed;
      }
      progress = { phase: 'importing', cursor: progress.cursor + concurrency * IMPORT_BATCH_LINES, counters: c };
      if (wave.some((r) => r.done)) break;
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => finishImport(args.import_id, 'cancelled'));
      progress = { ...progress, phase: 'cancelled' };
      throw err;
    }
    if (err instanceof ActivityFailure) {
      const error = err.cause?.message ?? err.message;
      await finishImport(args.import_id, 'failed', error);
      progress = { ...progress, phase: 'failed', error };
      return progress;
    }
    throw err;
  }
  await finishImport(args.import_id, 'completed');
  progress = { ...progress, phase: 'completed' };
  // An import that rewrote a large share of the catalog maintains the search indexes now (churn-maintenance.ts).
  // Counters carried across continue-as-new: the whole import's rows.
  if (args.catalog_id) await maintainAfterChurn(args.catalog_id, progress.counters.created + progress.counters.updated);
  return progress;
}
