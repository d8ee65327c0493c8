/**
 * researchArchiveIndexWorkflow: indexing of one research archive, started by the API
 * on `POST /public/research-archives` and by the worker at start for the WARC/WACZ files of
 * `RESEARCH_ARCHIVES` (temporal/client.ts `startResearchArchiveIndex`) under
 * `research-archive-<archive_id>` with search attributes OrganizationId (uploads) and
 * JobKind=research-archive.
 *
 * State machine:
 *
 *   indexing ── indexResearchArchive returned ──────────────────────────▶ completed (archive `ready`)
 *   indexing ── attempt failed (worker killed, database error) ─────────▶ backoff, the next attempt starts the archive over
 *   indexing ── ArchiveContentInvalid, or attempts spent ───────────────▶ markResearchArchiveFailed ▶ completed (archive `failed`)
 *
 * Progress (records read, pages indexed, skipped by reason) is written to the archive row with
 * every batch; the history carries the archive id only. Retries: 5 s doubling to 5 min, 10
 * attempts; heartbeat timeout 30 s (the activity heartbeats on a timer, so a worker killed
 * mid-archive is noticed within it). No continue-as-new (a handful of events).
 */
import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ResearchArchiveActivities } from '../activities/research-archives';
import { ARCHIVE_CONTENT_INVALID, type ResearchArchiveIndexArgs } from '../src/contracts/workflows';
import { BOOKKEEPING_RETRY, retryPolicy } from '../src/contracts/retry-policies';

/** Indexes the archive, or marks it failed with the reason (see the state machine above). */
export async function researchArchiveIndexWorkflow(args: ResearchArchiveIndexArgs): Promise<{ status: 'ready' | 'failed'; error?: string }> {
  const { indexResearchArchive } = proxyActivities<ResearchArchiveActivities>({
    startToCloseTimeout: '12 hours',
    // The activity heartbeats on a timer (every 10 s), so 30 s without one means a dead worker.
    heartbeatTimeout: '30 seconds',
    retry: retryPolicy('5 seconds', '5 minutes', 10, [ARCHIVE_CONTENT_INVALID]),
  });
  const { markResearchArchiveFailed } = proxyActivities<ResearchArchiveActivities>({
    startToCloseTimeout: '1 minute',
    retry: BOOKKEEPING_RETRY,
  });
  try {
    await indexResearchArchive(args.archive_id);
    return { status: 'ready' };
  } catch (err) {
    if (err instanceof ActivityFailure && !isCancellation(err)) {
      const error = err.cause?.message ?? err.message;
      await markResearchArchiveFailed(args.archive_id, error);
      return { status: 'failed', error };
    }
    throw err;
  }
}
