import { BaseModel } from './base';

/** Where a feed run is: queued → running → completed | failed | cancelled. */
export type FeedRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * One run of a feed (table `feed_runs`; workflow `feed-run-<id>`, docs/feeds.md "Runs").
 * Counters are the sums of its `feed_run_pages` rows; `file_key` is the finished file's blob key.
 */
export class FeedRun extends BaseModel {
  static tableName = 'feed_runs';
  id!: string;
  feed_id!: string;
  organization_id!: string;
  status!: FeedRunStatus;
  delta!: boolean;
  /** The completed run a delta compares against, null for a full run. */
  base_run_id!: string | null;
  /** Workflow id of the scheduled start that created this run, null for API runs. */
  schedule_key!: string | null;
  items_read!: number;
  total!: number;
  items!: number;
  exported!: number;
  excluded!: number;
  warnings!: number;
  file_key!: string | null;
  error!: string | null;
  created_at!: Date;
  started_at!: Date | null;
  completed_at!: Date | null;
  /** The time this run's reads are complete from (the next delta reads items written since; docs/feeds.md "Delta runs"). */
  items_watermark!: Date | null;
  /** The item state generation the run writes (a full run: its own id) or compares with and updates (a delta; docs/feeds.md "Delta runs"). */
  state_id!: string | null;
  /** How a delta run finds its changes (`changed` or `compare`), set by its first step; null for a full run or before. */
  delta_mode!: 'changed' | 'compare' | null;
  /** Hash of the feed's and catalog's settings the run was made with (docs/feeds.md "Delta runs"). */
  settings_key!: string | null;
}
