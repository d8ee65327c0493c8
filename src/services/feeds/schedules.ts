/**
 * Keeps a feed's Temporal Schedule (`feed-schedule-<feed_id>`) in step with its `schedule`
 * (docs/feeds.md, "Schedules"): created or replaced when the feed is created or changed with
 * a cron expression, deleted when the schedule is cleared or the feed deleted.
 */
import type { Feed } from '../../models/feed';
import type { JobRunner } from '../job-runner';

/**
 * Applies `cron` (null: none) to the feed's schedule.
 * @returns notices for the client: the deployment runs no schedules, or Temporal was unreachable
 *   (the feed keeps its `schedule`; changing the feed again retries)
 */
export async function syncFeedSchedule(jobRunner: JobRunner, feed: Feed, cron: string | null): Promise<string[]> {
  if (!jobRunner.setFeedSchedule) {
    return cron ? ['schedule: stored, but this deployment runs no Temporal schedules, so no run starts on it'] : [];
  }
  try {
    await jobRunner.setFeedSchedule({ id: feed.id, organization_id: feed.organization_id, catalog_id: feed.catalog_id }, cron);
    return [];
  } catch (err) {
    return [`schedule: Temporal was unreachable (${(err as Error).message}); the schedule is stored but not active until the feed is saved again`];
  }
}
