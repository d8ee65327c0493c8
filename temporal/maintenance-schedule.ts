/**
 * The Temporal schedule of search index maintenance: every hour it starts
 * searchIndexMaintenanceWorkflow (workflows/search-index-maintenance.ts) on the worker's task
 * queue, skipping a run while the previous one still runs. Created by the worker at start;
 * operators see, pause or trigger it in the Temporal UI under Schedules.
 */
import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { JOB_KIND, SEARCH_MAINTENANCE_ID, SEARCH_MAINTENANCE_JOB_KIND } from '../src/contracts/workflows';

/**
 * Creates the maintenance schedule unless it exists.
 * @returns true when it was created now, false when it already existed
 * @throws the client's error when Temporal refuses otherwise
 */
export async function ensureMaintenanceSchedule(client: Client, taskQueue: string): Promise<boolean> {
  try {
    await client.schedule.create({
      scheduleId: SEARCH_MAINTENANCE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'searchIndexMaintenanceWorkflow',
        workflowId: SEARCH_MAINTENANCE_ID,
        taskQueue,
        args: [],
        typedSearchAttributes: [{ key: JOB_KIND, value: SEARCH_MAINTENANCE_JOB_KIND }],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
    return true;
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return false;
    throw err;
  }
}
