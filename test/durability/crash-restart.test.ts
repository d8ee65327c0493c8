/**
 * Durability (architecture.md, Temporal rules 4-5): a job survives (a) its worker PROCESS being
 * SIGKILLed mid-job and (b) the Temporal server being stopped and started again mid-job, with
 * exactly one result per item and credits equal to the successful rows, checked in SQL.
 *
 * Real everything: the production worker entrypoint (`node --import tsx temporal/worker.ts`),
 * a dev server persisting to SQLite in a temp folder, the PostgreSQL test database and the
 * deterministic engine over the offline archive (real product items, repeated). Row activities
 * get a 3 s heartbeat timeout so the killed worker's batches are retried within seconds.
 */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { quietTemporalRuntime } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { temporal as proto } from '@temporalio/proto';
import {
  createArchiveJob,
  engineCallsPerRow,
  jobInvariants,
  RestartableTemporal,
  spawnWorker,
  stopWorker,
  TestCluster,
  WorkerProcess,
} from '../../bench/fixtures/worker-cluster';

const TASK_QUEUE = 'test-durability';
/** ~30 rows/s with the archive engine at concurrency 2: long enough to interrupt, short enough for CI. */
const ITEMS = 400;
const TUNING = { row_heartbeat_timeout_s: 3, batch_size: 5 };

let temporal: RestartableTemporal;
let client: Client;
let knex: Knex;
let organizationId: string;
let cluster: TestCluster;

beforeAll(async () => {
  quietTemporalRuntime();
  knex = testKnex();
  organizationId = (await createTestOrg('durability')).organizationId;
  cluster = await new TestCluster().start();
  ({ temporal, client } = cluster);
}, 90_000);

afterAll(async () => {
  await cluster?.close();
  await closeTestKnex();
});

async function completed(jobId: string): Promise<number> {
  return (await knex('enrichment_jobs').where({ id: jobId }).first('completed_items')).completed_items;
}

function expectExactlyOnce(state: Awaited<ReturnType<typeof jobInvariants>>): void {
  expect(state.job.status).toBe('completed');
  // written_once / max_writes come from each row's own write counter, not from the job counters.
  expect(state.rows).toMatchObject({ rows: ITEMS, pending: 0, with_result: ITEMS, distinct_rows: ITEMS, written_once: ITEMS, max_writes: 1 });
  // completed_items is incremented once per row write: a duplicate write would over-count it.
  expect(state.job.completed_items).toBe(ITEMS);
  expect(state.job.successful).toBe(state.rows.succeeded);
  expect(state.job.credits_used).toBe(state.rows.succeeded);
  expect(state.rows.succeeded).toBeGreaterThan(0);
}

test('a worker process SIGKILLed mid-job: a new worker finishes it, every item once, credits = successful rows', async () => {
  const { jobId, workflowId, runner } = await createArchiveJob(knex, client, TASK_QUEUE, organizationId, ITEMS, TUNING);
  // Kill inside a batch: right after the kill, some row whose engine call the killed worker logged
  // is still unwritten. A kill between two batches proves nothing, so it is tried again (≤ 3 times).
  const killed: WorkerProcess[] = [];
  let inFlight: number[] = [];
  for (let attempt = 0; attempt < 3 && inFlight.length === 0; attempt++) {
    const worker = await spawnWorker(temporal, TASK_QUEUE);
    cluster.track(worker);
    const before = await completed(jobId);
    await waitUntil(async () => (await completed(jobId)) >= before + 40, '40 more rows done', 60_000);
    worker.child.kill('SIGKILL');
    await worker.exited;
    killed.push(worker);
    const called = [...engineCallsPerRow([worker.output()], jobId).keys()];
    inFlight = (await knex('enrichment_rows').where({ job_id: jobId, status: 'pending' }).whereIn('row_index', called).select('row_index')).map(
      (r) => r.row_index as number,
    );
  }
  expect(inFlight.length).toBeGreaterThan(0);
  const atKill = await completed(jobId);
  expect(atKill).toBeLessThan(ITEMS);

  const last = await spawnWorker(temporal, TASK_QUEUE);
  cluster.track(last);
  await waitUntil(async () => (await completed(jobId)) > atKill, 'progress after kill', 60_000);
  await runner.waitForClose(workflowId);
  await stopWorker(last);

  expectExactlyOnce(await jobInvariants(knex, jobId));
  // Engine calls, counted from every worker's log: each row at least once; a row twice only when
  // an attempt was killed after its engine call and before its write (at most concurrency × batch
  // size rows per kill), and the rows seen in flight at the last kill among them.
  const calls = engineCallsPerRow(
    [...killed, last].map((w) => w.output()),
    jobId,
  );
  expect(calls.size).toBe(ITEMS);
  const again = [...calls.entries()].filter(([, n]) => n > 1).map(([row]) => row);
  expect(again.length).toBeLessThanOrEqual(killed.length * 2 * TUNING.batch_size);
  for (const row of inFlight) expect(again).toContain(row);
  // And the history shows a killed activity retried after its heartbeat timed out.
  expect(await retriedAfterHeartbeatTimeout(workflowId)).toBe(true);
}, 180_000);

/** True when some run of the workflow started an activity attempt ≥ 2 whose last failure was a heartbeat timeout. */
async function retriedAfterHeartbeatTimeout(workflowId: string): Promise<boolean> {
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    for (const event of history.events ?? []) {
      const started = event.activityTaskStartedEventAttributes;
      if (
        started &&
        (started.attempt ?? 1) > 1 &&
        started.lastFailure?.timeoutFailureInfo?.timeoutType === proto.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT
      ) {
        return true;
      }
    }
  }
  return false;
}

test('the Temporal server stopped and started again mid-job: the worker reconnects and the job completes once', async () => {
  const worker = await spawnWorker(temporal, TASK_QUEUE);
  cluster.track(worker);
  const { jobId, workflowId, runner } = await createArchiveJob(knex, client, TASK_QUEUE, organizationId, ITEMS, TUNING);
  await waitUntil(async () => (await completed(jobId)) >= 60, '60 rows done', 60_000);
  const logBeforeStop = worker.output().length;
  await temporal.stop();
  const atStop = await completed(jobId);
  expect(atStop).toBeLessThan(ITEMS);
  // Restart only once the worker has felt the outage: its polls fail (the SDK logs them after
  // its own retries), so what is tested is a reconnect, not a blip the client hid.
  await waitUntil(() => /Connection refused|Unavailable/.test(worker.output().slice(logBeforeStop)), 'the worker to see the server gone', 60_000);
  await temporal.start(); // same port, same SQLite file

  await runner.waitForClose(workflowId);
  expect(worker.child.exitCode).toBeNull(); // the same process carried on
  await stopWorker(worker);
  expectExactlyOnce(await jobInvariants(knex, jobId));
}, 120_000);
