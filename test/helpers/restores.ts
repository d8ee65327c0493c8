/**
 * Snapshot restores for API and browser tests: restores run as the workflow
 * `snapshot-restore-<id>`, so a test that restores needs a real Temporal dev server and a worker.
 * {@link startRestores} starts both and gives a JobRunner that runs restores there and is
 * `base` (by default `noJobs`: every other start fails loudly) for everything else.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { JobRunner } from '../../src/services/job-runner';
import { TemporalJobRunner } from '../../temporal/client';
import { noJobs } from './app';
import { testKnex } from './db';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from './temporal';

/** A dev server and worker that run restores, and the JobRunner that starts them. */
export interface RestoreTemporal {
  env: TestWorkflowEnvironment;
  worker: RunningTestWorker;
  /** `base` plus `startSnapshotRestore` and `taskQueuePollers` on the dev server. */
  jobRunner: JobRunner;
  /** Stops the worker and the dev server. */
  stop: () => Promise<void>;
}

/**
 * Starts a Temporal dev server and a worker on task queue `taskQueue` (on the test database).
 * @param base the runner used for every other job (default `noJobs`)
 */
export async function startRestores(taskQueue: string, base: JobRunner = noJobs): Promise<RestoreTemporal> {
  const env = await startTestTemporal();
  const worker = await runTestWorker(env, { taskQueue, knex: testKnex(), engine: fakeEngine() });
  const runner = new TemporalJobRunner(env.client, { taskQueue, enrichConcurrency: 2 }, {}, {}, {}, {}, { retry_initial_interval_s: 0.2 });
  return {
    env,
    worker,
    jobRunner: { ...base, startSnapshotRestore: (r) => runner.startSnapshotRestore(r), taskQueuePollers: () => runner.taskQueuePollers() },
    stop: async () => {
      await worker.stop();
      await env.teardown();
    },
  };
}
