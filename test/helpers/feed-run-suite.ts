/**
 * The set-up the feed run workflow suites share (test/workflows/feed-run*.test.ts): a Temporal dev
 * server, a worker on the suite's task queue (with a fake engine: feed runs call none), and the
 * API app whose job runner starts feed runs with pages of `pageItems` items, for an organization
 * of the suite's own. Torn down in reverse order.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { TemporalJobRunner } from '../../temporal/client';
import { closeTestKnex, createTestOrg, testKnex } from './db';
import { fakeEngine, type RunningTestWorker, runTestWorker, startTestTemporal } from './temporal';

/** What a feed run suite's tests use once its `beforeAll` has run. */
export interface FeedRunSuite {
  knex: Knex;
  env: TestWorkflowEnvironment;
  app: ReturnType<ReturnType<typeof createApp>['callback']>;
  org: Awaited<ReturnType<typeof createTestOrg>>;
}

/**
 * Registers the suite's `beforeAll` (start everything, then hand the handles to `ready`) and
 * `afterAll` (worker, dev server, database connections).
 * @param ready called once with the handles, e.g. `(s) => ({ knex, env, app, org } = s)`
 */
export function useFeedRunSuite(options: { orgName: string; taskQueue: string; pageItems: number }, ready: (suite: FeedRunSuite) => void): void {
  let env: TestWorkflowEnvironment | undefined;
  let worker: RunningTestWorker | undefined;
  beforeAll(async () => {
    const knex = testKnex();
    const org = await createTestOrg(options.orgName);
    env = await startTestTemporal();
    worker = await runTestWorker(env, { taskQueue: options.taskQueue, knex, engine: fakeEngine() });
    const jobRunner = new TemporalJobRunner(
      env.client,
      { taskQueue: options.taskQueue, enrichConcurrency: 1 },
      {},
      {},
      {},
      {},
      {},
      {},
      { page_items: options.pageItems },
    );
    ready({ knex, env, org, app: createApp({ config: loadConfig(), knex, jobRunner }).callback() });
  }, 300_000);
  afterAll(async () => {
    await worker?.stop();
    await env?.teardown();
    await closeTestKnex();
  });
}
