/**
 * Activities of feed runs (workflows/feed-run.ts): thin adapters over src/services/feeds/.
 * Only ids and counters cross Temporal (architecture.md, Temporal rule 2); page activities
 * heartbeat while they work (./heartbeat.ts).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { BlobStore } from '../src/lib/blob-store';
import { FEED_PAGE_ITEMS, FEED_RUN_NOT_RUNNABLE, type FeedPageResult, type FeedPagesProgress, type FeedPagesResult } from '../src/contracts/feed-workflows';
import { Feed } from '../src/models/feed';
import { endFeedRun, finishFeedRun } from '../src/services/feeds/finish';
import { beginFeedRun, FeedRunNotRunnable, writeFeedPage } from '../src/services/feeds/pages';
import { insertFeedRun } from '../src/services/feeds/runs';
import { writeFeedPages } from '../src/services/feeds/stream';
import { heartbeatingOneTransaction, whileHeartbeating } from './heartbeat';

/** How long one pages activity writes before it returns to the workflow (ms); the workflow calls it again from where it stopped. */
export const FEED_PAGES_BUDGET_MS = 120_000;

/** The feed activities registered on the worker; the workflows proxy them by these names. */
export interface FeedActivities {
  /** Counts the run's items (once). @returns false when the run is no longer running. @throws `FeedRunNotRunnable` (not retried) when its feed was deleted */
  beginFeedRun(runId: string): Promise<boolean>;
  /**
   * Writes one page (src/services/feeds/pages.ts `writeFeedPage`); idempotent per (run, page).
   * @param pageItems items per page, null for the default
   * @throws `FeedRunNotRunnable` (not retried) when the feed was deleted; other errors are retried
   */
  writeFeedPage(runId: string, pageIndex: number, after: string | null, pageItems: number | null): Promise<FeedPageResult & { stopped?: boolean }>;
  /**
   * Writes the run's pages from `pageIndex` (cursor `after`) for up to {@link FEED_PAGES_BUDGET_MS}
   * (src/services/feeds/stream.ts), heartbeating its progress after each recorded page; a retry
   * resumes from the last progress heartbeated.
   * @param pageItems items per page, null for the default
   * @throws `FeedRunNotRunnable` (not retried) when the feed was deleted; other errors are retried
   */
  writeFeedPages(runId: string, pageIndex: number, after: string | null, pageItems: number | null): Promise<FeedPagesResult>;
  /** Concatenates the parts into the run's file and marks it completed (idempotent). */
  finishFeedRun(runId: string): Promise<boolean>;
  /** Marks the run failed (with the error) or cancelled, unless it already ended. */
  endFeedRun(runId: string, status: 'failed' | 'cancelled', error?: string): Promise<void>;
  /**
   * Creates the run of a scheduled start, keyed by `key` (the starting workflow's id and run id)
   * so a retry finds the same run. @returns the run and its feed's organization and catalog; null when the feed was deleted
   */
  createScheduledFeedRun(feedId: string, key: string): Promise<{ run_id: string; organization_id: string; catalog_id: string } | null>;
}

/** Turns a run whose feed is gone into a non-retryable failure. */
async function notRunnable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof FeedRunNotRunnable) throw ApplicationFailure.nonRetryable(err.message, FEED_RUN_NOT_RUNNABLE);
    throw err;
  }
}

/** Builds the feed activities over the worker's database and blob store. */
export function createFeedActivities(deps: { knex: Knex; blobs: BlobStore }): FeedActivities {
  return {
    beginFeedRun: (runId) => notRunnable(() => beginFeedRun(deps.knex, runId)),
    writeFeedPage: (runId, pageIndex, after, pageItems) =>
      notRunnable(() => heartbeatingOneTransaction(() => writeFeedPage(deps.knex, deps.blobs, runId, pageIndex, after, pageItems ?? FEED_PAGE_ITEMS))),
    writeFeedPages: (runId, pageIndex, after, pageItems) =>
      notRunnable(() => {
        const ctx = Context.current();
        const resume = (ctx.info.heartbeatDetails as FeedPagesProgress | undefined) ?? null;
        let progress: FeedPagesProgress | null = resume;
        return whileHeartbeating(
          ctx,
          () => progress ?? { page_index: pageIndex, after, items_read: 0, exported: 0, excluded: 0, warnings: 0 },
          () =>
            writeFeedPages(
              deps.knex,
              deps.blobs,
              runId,
              { page_index: pageIndex, after },
              {
                pageItems: pageItems ?? FEED_PAGE_ITEMS,
                budgetMs: FEED_PAGES_BUDGET_MS,
                resume,
                signal: ctx.cancellationSignal,
                onCommitted: (p) => {
                  progress = p;
                  ctx.heartbeat(p);
                },
              },
            ),
        );
      }),
    finishFeedRun: (runId) => heartbeatingOneTransaction(() => finishFeedRun(deps.knex, deps.blobs, runId)),
    endFeedRun: (runId, status, error) => endFeedRun(deps.knex, runId, status, error),
    async createScheduledFeedRun(feedId, key) {
      const feed = await Feed.query(deps.knex).findById(feedId);
      if (!feed || feed.deleted) return null;
      const run = await insertFeedRun(deps.knex, feed, false, key);
      return { run_id: run.id, organization_id: feed.organization_id, catalog_id: feed.catalog_id };
    },
  };
}
