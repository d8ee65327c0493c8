/**
 * feedRunWorkflow: one run of a feed (docs/feeds.md, "Runs"), started by the API
 * (temporal/feed-schedules.ts) under `feed-run-<run_id>` with OrganizationId, CatalogId and
 * JobKind=feed, or as the child of feedScheduledRunWorkflow.
 *
 *   begin ── beginFeedRun counted the items ──▶ writing
 *   writing ── writeFeedPages(page, after) wrote pages for up to 2 min, not done ──▶ writing (from where it stopped)
 *   writing ── the last page written ──▶ finishFeedRun (concatenate the parts) ──▶ completed
 *   writing ── 100 pages activities in this run ──▶ continue-as-new {page_index, after}
 *   any ── a page or step failed for good (FeedRunNotRunnable, attempts spent) ──▶ endFeedRun(failed) ──▶ failed
 *   any ── cancellation requested (the API marked the run cancelled) ──▶ endFeedRun(cancelled),
 *          not cancellable ──▶ cancelled (CancelledFailure rethrown: Canceled in the UI)
 *
 * One activity writes many pages (src/services/feeds/stream.ts) and heartbeats its progress
 * (next page, cursor, counters) after each; each page's part blob is keyed by the page's index
 * and its rows in PostgreSQL by (run, page), so a retried activity (a worker killed mid-page)
 * resumes from its last recorded page, writes the same parts and counts each page once, and the
 * file is the same. Histories begun before the `feed-pages-streamed` patch write one page per
 * activity (writeFeedPage, 500 pages then continue-as-new). Retries: 1 s doubling to 1 min, 20
 * attempts; heartbeat timeout 60 s (tests shorten it). The history carries ids and counters only.
 *
 * feedScheduledRunWorkflow: what the Temporal Schedule `feed-schedule-<feed_id>` starts: it
 * creates the run's row (idempotent, keyed by its own workflow id) and runs it as the child
 * `feed-run-<run_id>`.
 */
import {
  ActivityFailure,
  CancellationScope,
  continueAsNew,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { FeedActivities } from '../activities/feeds';
import {
  FEED_JOB_KIND,
  FEED_RUN_NOT_RUNNABLE,
  type FeedRunArgs,
  type FeedRunProgress,
  type FeedScheduledRunArgs,
  feedRunWorkflowId,
} from '../src/contracts/feed-workflows';
import { CATALOG_ID, JOB_KIND, ORGANIZATION_ID } from '../src/contracts/workflows';
import { feedRunProgressQuery } from './definitions';
import { BOOKKEEPING_RETRY, retryPolicy } from '../src/contracts/retry-policies';

/** Pages per workflow run before continue-as-new (1,250,000 items at the default page size), one page per activity (runs begun before {@link FEED_PAGES_PATCH}). */
const PAGES_PER_RUN = 500;

/** Pages activities per workflow run before continue-as-new (each writes pages for up to 2 minutes). */
const PAGE_CALLS_PER_RUN = 100;

/** The patch under which a run writes many pages per activity (writeFeedPages); histories without it write one page per activity. */
export const FEED_PAGES_PATCH = 'feed-pages-streamed';

/** Writes every page of `args.run_id`, then its file (see the state machine above). */
export async function feedRunWorkflow(args: FeedRunArgs): Promise<FeedRunProgress> {
  let progress: FeedRunProgress = { phase: 'running', pages: args.page_index ?? 0, items_read: 0, exported: 0, excluded: 0 };
  setHandler(feedRunProgressQuery, () => progress);
  const retry = retryPolicy('1 second', '1 minute', 20, [FEED_RUN_NOT_RUNNABLE]);
  const acts = proxyActivities<FeedActivities>({ startToCloseTimeout: '10 minutes', heartbeatTimeout: `${args.heartbeat_timeout_s ?? 60} seconds`, retry });
  const { endFeedRun } = proxyActivities<FeedActivities>({
    startToCloseTimeout: '1 minute',
    retry: retryPolicy('1 second', '1 minute', 30, [FEED_RUN_NOT_RUNNABLE]),
  });
  let after = args.after ?? null;
  try {
    if (args.page_index === undefined && !(await acts.beginFeedRun(args.run_id))) {
      progress = { ...progress, phase: 'cancelled' };
      return progress;
    }
    if (patched(FEED_PAGES_PATCH)) {
      let page = progress.pages;
      for (let calls = 0; ; calls += 1) {
        if (calls >= PAGE_CALLS_PER_RUN || workflowInfo().continueAsNewSuggested)
          return await continueAsNew<typeof feedRunWorkflow>({ ...args, page_index: page, after });
        const res = await acts.writeFeedPages(args.run_id, page, after, args.page_items ?? null);
        if (res.stopped) {
          progress = { ...progress, phase: 'cancelled' };
          return progress;
        }
        progress = {
          ...progress,
          pages: res.page_index,
          items_read: progress.items_read + res.items_read,
          exported: progress.exported + res.exported,
          excluded: progress.excluded + res.excluded,
        };
        [page, after] = [res.page_index, res.after];
        if (res.done) break;
      }
    } else {
      for (let page = progress.pages; ; page += 1) {
        if (page - (args.page_index ?? 0) >= PAGES_PER_RUN || workflowInfo().continueAsNewSuggested)
          return await continueAsNew<typeof feedRunWorkflow>({ ...args, page_index: page, after });
        const res = await acts.writeFeedPage(args.run_id, page, after, args.page_items ?? null);
        if (res.stopped) {
          progress = { ...progress, phase: 'cancelled' };
          return progress;
        }
        progress = {
          ...progress,
          pages: page + 1,
          items_read: progress.items_read + res.items_read,
          exported: progress.exported + res.exported,
          excluded: progress.excluded + res.excluded,
        };
        if (res.next === null) break;
        after = res.next;
      }
    }
    progress = { ...progress, phase: 'finishing' };
    await acts.finishFeedRun(args.run_id);
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => endFeedRun(args.run_id, 'cancelled'));
      progress = { ...progress, phase: 'cancelled' };
      throw err;
    }
    if (err instanceof ActivityFailure) {
      const error = err.cause?.message ?? err.message;
      await endFeedRun(args.run_id, 'failed', error);
      progress = { ...progress, phase: 'failed', error };
      return progress;
    }
    throw err;
  }
  progress = { ...progress, phase: 'completed' };
  return progress;
}

/** Creates the run of a scheduled start and runs it as the child `feed-run-<run_id>` (see above). */
export async function feedScheduledRunWorkflow(args: FeedScheduledRunArgs): Promise<FeedRunProgress | null> {
  const { createScheduledFeedRun } = proxyActivities<FeedActivities>({
    startToCloseTimeout: '1 minute',
    retry: BOOKKEEPING_RETRY,
  });
  const run = await createScheduledFeedRun(args.feed_id, workflowInfo().workflowId + '/' + workflowInfo().runId);
  if (!run) return null;
  return executeChild(feedRunWorkflow, {
    workflowId: feedRunWorkflowId(run.run_id),
    args: [{ run_id: run.run_id }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: run.organization_id },
      { key: CATALOG_ID, value: run.catalog_id },
      { key: JOB_KIND, value: FEED_JOB_KIND },
    ],
  });
}
