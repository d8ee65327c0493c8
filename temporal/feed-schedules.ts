/**
 * Feed runs on Temporal (docs/feeds.md, "Runs" and "Schedules"): the start of `feed-run-<run_id>`
 * and the Temporal Schedule `feed-schedule-<feed_id>` of a feed with a cron `schedule`, which
 * starts feedScheduledRunWorkflow (it creates the run's row, then runs it as its child).
 * TemporalJobRunner (./client.ts) delegates to these functions.
 */
import { Client, ScheduleNotFoundError, ScheduleOverlapPolicy, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { FEED_JOB_KIND, type FeedRunArgs, feedRunWorkflowId, feedScheduleId } from '../src/contracts/feed-workflows';
import { CATALOG_ID, JOB_KIND, ORGANIZATION_ID } from '../src/contracts/workflows';

/** A feed's identity, as the search attributes of its runs need it. */
export interface FeedRef {
  id: string;
  organization_id: string;
  catalog_id: string;
}

/**
 * Starts `feedRunWorkflow` under `feed-run-<run_id>` with OrganizationId, CatalogId and
 * JobKind=feed; "already started" is success (a retried request starts once).
 * @throws the client's error when Temporal is unreachable
 */
export async function startFeedRunWorkflow(
  client: Client,
  taskQueue: string,
  run: { id: string; organization_id: string; catalog_id: string; feed_id: string },
  tuning: Omit<FeedRunArgs, 'run_id'> = {},
): Promise<void> {
  try {
    await client.workflow.start('feedRunWorkflow', {
      workflowId: feedRunWorkflowId(run.id),
      taskQueue,
      args: [{ run_id: run.id, ...tuning }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: ORGANIZATION_ID, value: run.organization_id },
        { key: CATALOG_ID, value: run.catalog_id },
        { key: JOB_KIND, value: FEED_JOB_KIND },
      ],
      staticSummary: `Run ${run.id} of feed ${run.feed_id}`,
      staticDetails: `Status, counters and file: GET /api/public/feeds/${run.feed_id}/runs/${run.id}`,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

/**
 * Creates or replaces the schedule `feed-schedule-<feed_id>` (cron in UTC; a run still going when
 * the next is due makes that one skip), or deletes it when `cron` is null.
 * @throws the client's error when Temporal is unreachable or refuses the expression
 */
export async function setFeedScheduleOn(client: Client, taskQueue: string, feed: FeedRef, cron: string | null): Promise<void> {
  const scheduleId = feedScheduleId(feed.id);
  try {
    await client.schedule.getHandle(scheduleId).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
  if (cron === null) return;
  await client.schedule.create({
    scheduleId,
    spec: { cronExpressions: [cron] },
    action: {
      type: 'startWorkflow',
      workflowType: 'feedScheduledRunWorkflow',
      workflowId: `feed-scheduled-${feed.id}`,
      taskQueue,
      args: [{ feed_id: feed.id }],
      typedSearchAttributes: [
        { key: ORGANIZATION_ID, value: feed.organization_id },
        { key: CATALOG_ID, value: feed.catalog_id },
        { key: JOB_KIND, value: FEED_JOB_KIND },
      ],
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP },
  });
}
