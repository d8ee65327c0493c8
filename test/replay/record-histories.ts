/**
 * Records the replay fixtures of enrichmentJobWorkflow (architecture.md, Temporal rule 9):
 * runs a completed, a cancelled and a continued-as-new job on a local dev server against the
 * PostgreSQL test database (fake engine), and exports their histories next to this file with
 * temporal/export-history.ts. Re-run after a deliberate, `patched()`-guarded workflow change:
 *
 *   npx tsx test/setup/prepare.ts && npx tsx test/replay/record-histories.ts
 */
import '../setup/env';
import path from 'node:path';
import { exportHistory } from '../../temporal/export-history';
import { TemporalJobRunner } from '../../temporal/client';
import { createWorker } from '../../temporal/worker';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestJob, fakeEngine, startTestTemporal, waitUntil, workflowBundle } from '../helpers/temporal';

const TASK_QUEUE = 'record-replay-histories';

async function main(): Promise<void> {
  const knex = testKnex();
  const env = await startTestTemporal();
  const { organizationId } = await createTestOrg('replay recording');
  const engineOptions = { delayMs: 0, errorFor: (item: Record<string, unknown>) => item.name === 'item 1' };
  const worker = await createWorker({
    connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue: TASK_QUEUE,
    knex, engine: fakeEngine(engineOptions), workflowBundle: await workflowBundle(),
  });
  const running = worker.run();
  const out = (name: string): string => path.join(__dirname, name);
  try {
    const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 3 });

    const completed = await createTestJob(knex, runner, organizationId, 5);
    await runner.waitForClose(completed.workflowId);
    console.log('completed:', await exportHistory(env.client, completed.workflowId, out('enrichment-completed.json')), 'events');

    engineOptions.delayMs = 200;
    const cancelled = await createTestJob(knex, runner, organizationId, 20);
    await waitUntil(async () => (await knex('enrichment_jobs').where({ id: cancelled.jobId }).first('completed_items')).completed_items >= 3, 'rows done');
    await runner.cancel(cancelled.workflowId);
    await runner.waitForClose(cancelled.workflowId);
    console.log('cancelled:', await exportHistory(env.client, cancelled.workflowId, out('enrichment-cancelled.json')), 'events');

    engineOptions.delayMs = 0;
    const paged = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, { page_size: 2, pages_per_run: 1 });
    const continued = await createTestJob(knex, paged, organizationId, 3);
    await paged.waitForClose(continued.workflowId);
    const last = await env.client.workflow.getHandle(continued.workflowId).describe();
    const firstRunId = (await env.client.workflow.getHandle(continued.workflowId, last.runId).fetchHistory())
      .events![0].workflowExecutionStartedEventAttributes!.firstExecutionRunId!;
    console.log('continued-as-new (first run):', await exportHistory(env.client, continued.workflowId, out('enrichment-continued-as-new.json'), firstRunId), 'events');
    console.log('continued-as-new (last run):', await exportHistory(env.client, continued.workflowId, out('enrichment-continued-last-run.json'), last.runId), 'events');
  } finally {
    worker.shutdown();
    await running;
    await env.teardown();
    await closeTestKnex();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
