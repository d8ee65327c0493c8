/**
 * What the API, the feed activities and the feed workflows share (docs/feeds.md, "Runs"):
 * workflow and schedule ids, the `JobKind`, argument, progress and page shapes. Pure: imports no
 * value but constants, so the workflow bundle may take values from it.
 */

/** `JobKind` of a feed run ({@link feedRunWorkflowId}) and of a scheduled feed start. */
export const FEED_JOB_KIND = 'feed';

/** Workflow id of one feed run: `feed-run-<run_id>` (the run's row in `feed_runs`). */
export function feedRunWorkflowId(runId: string): string {
  return `feed-run-${runId}`;
}

/** Id of the Temporal Schedule of a feed with a cron `schedule`: `feed-schedule-<feed_id>`. */
export function feedScheduleId(feedId: string): string {
  return `feed-schedule-${feedId}`;
}

/**
 * Items read per page of a feed run (one transaction, one part blob). Pages are written many per
 * activity (src/services/feeds/stream.ts), up to three in memory at once (docs/benchmarks.md, "Feeds").
 */
export const FEED_PAGE_ITEMS = 2500;

/** Error type of a run that cannot go on (its feed or catalog deleted, its channel gone): not retried. */
export const FEED_RUN_NOT_RUNNABLE = 'FeedRunNotRunnable';

/** Arguments of feedRunWorkflow: the run, where to resume (continue-as-new), and test tuning. */
export interface FeedRunArgs {
  run_id: string;
  /** Next page to write (continue-as-new); 0 at the start. */
  page_index?: number;
  /** The last item id of the previous page (keyset cursor), null at the start. */
  after?: string | null;
  /** Items per page; default {@link FEED_PAGE_ITEMS} (tests use small pages). */
  page_items?: number;
  /** Heartbeat timeout of the page activity (s); default 60 (tests shorten it to notice a killed worker). */
  heartbeat_timeout_s?: number;
}

/** Arguments of feedScheduledRunWorkflow, which a feed's Temporal Schedule starts. */
export interface FeedScheduledRunArgs {
  feed_id: string;
}

/** What one page activity wrote: counters of the page and the keyset cursor after it (null: last page). */
export interface FeedPageResult {
  items_read: number;
  exported: number;
  excluded: number;
  warnings: number;
  next: string | null;
}

/**
 * Where a run's streamed pages stand (the heartbeat details of the pages activity): the next page
 * to write, its keyset cursor, and the counters of the pages written since the activity's start page.
 */
export interface FeedPagesProgress {
  page_index: number;
  after: string | null;
  items_read: number;
  exported: number;
  excluded: number;
  warnings: number;
}

/** What one pages activity wrote: its progress, `done` once the run's last page is written, `stopped` when the run is no longer running. */
export interface FeedPagesResult extends FeedPagesProgress {
  done: boolean;
  stopped?: boolean;
}

/** Answer of the feed run's `progress` query. */
export interface FeedRunProgress {
  phase: 'running' | 'finishing' | 'completed' | 'failed' | 'cancelled';
  pages: number;
  items_read: number;
  exported: number;
  excluded: number;
  error?: string;
}
