// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Durability (docs/workflows.md "Rules of the craft"): a job survives (a) its worker PROCESS being
 * SIGKILLed mid-job, with and without a catalog target, and (b) the Temporal server being stopped
 * and started again mid-job, with exactly one result per item, one staged change per successful
 * item and credits equal to the successful rows, checked against a trigger-kept write record.
 *
 * Real everything: the production worker entrypoint (`node --import tsx temporal/worker.ts`),
 * a dev server persisting to SQLite in a temp folder, the PostgreSQL test database and the
 * deterministic engine over the offline archive (real product items, repeated). Row activities
 * get a 3 s heartbeat timeout so the killed worker's batches are retried within seconds.
 */
import { createTestCatalog } from '../helpers/catalogs';
import { waitUntil } from '../helpers/wait';
import { auditedJob, writesPerRow } from '../helpers/write-audit';
import { temporal as proto } from '@temporalio/proto';
import {
  createArchiveJob,
  engineCallsPerRow,
  jobInvariants,
  retriedActivityAttempts,
  spawnWorker,
  stopWorker,
  waitForBackendsGone,
  WorkerProcess,
} from '../fixtures/worker-cluster';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-durability';
/** ~30 rows/s with the archive engine at concurrency 2: long enough to interrupt, short enough for CI. */
const ITEMS = 400;
const TUNING = { row_heartbeat_timeout_s: 3, batch_size: 5 };

const cluster = useTestCluster({ organization: 'durability', writeAudit: true });

async function completed(jobId: string): Promise<number> {
  return (await cluster.knex('enrichment_jobs').where({ id: jobId }).first('completed_items')).completed_items;
}

/**
 * Exactly once, from the trigger-kept write record (test/helpers/write-audit.ts), not from the
 * service's counters: `finalizeJob` recomputes `completed_items`, `successful` and `credits_used`
 * from the rows, and `write_count` moves only inside the guarded UPDATE, so those hold by
 * construction. The audit sees every statement that actually wrote a row or moved the credits.
 */
async function expectExactlyOnce(jobId: string): Promise<void> {
  const { knex } = cluster;
  const state = await jobInvariants(knex, jobId);
  expect(state.job.status).toBe('completed');
  expect(state.rows).toMatchObject({ rows: ITEMS, pending: 0, with_result: ITEMS, distinct_rows: ITEMS });
  const audit = await auditedJob(knex, jobId);
  expect(audit.repeated).toEqual([]);
  expect(audit.rowsWritten).toBe(ITEMS);
  expect(audit.successes).toBeGreaterThan(0);
  expect(audit.successes).toBe(state.rows.succeeded);
  // The credit ledger moved by exactly the successful writes, and the job says the same.
  expect(audit.credits).toBe(audit.successes);
  expect(state.job.credits_used).toBe(audit.successes);
}

/**
 * Kills workers inside a batch until, right after a kill, some row whose engine call the killed
 * worker logged is still unwritten (a kill between two batches proves nothing; ≤ 3 tries).
 * @returns the killed workers and the rows in flight at the last kill
 */
async function killInsideABatch(jobId: string): Promise<{ killed: WorkerProcess[]; inFlight: number[] }> {
  const { knex, temporal } = cluster;
  const killed: WorkerProcess[] = [];
  let inFlight: number[] = [];
  for (let attempt = 0; attempt < 3 && inFlight.length === 0; attempt++) {
    const worker = await spawnWorker(temporal, TASK_QUEUE);
    cluster.track(worker);
    const before = await completed(jobId);
    await waitUntil(async () => (await completed(jobId)) >= before + 40, '40 more rows done', 60_000);
    worker.child.kill('SIGKILL');
    await worker.exited;
    // A write whose COMMIT left just before the kill may still be committing: read after it settled.
    await waitForBackendsGone(knex, worker);
    killed.push(worker);
    const called = [...engineCallsPerRow([worker.output()], jobId).keys()];
    inFlight = (await knex('enrichment_rows').where({ job_id: jobId, status: 'pending' }).whereIn('row_index', called).select('row_index')).map(
      (r) => r.row_index as number,
    );
  }
  expect(inFlight.length).toBeGreaterThan(0);
  return { killed, inFlight };
}

test('a worker process SIGKILLed mid-job: a new worker finishes it, every item once, credits = successful rows', async () => {
  const { knex, temporal, client, organizationId } = cluster;
  const { jobId, workflowId, runner } = await createArchiveJob(knex, client, TASK_QUEUE, organizationId, ITEMS, TUNING);
  const { killed, inFlight } = await killInsideABatch(jobId);
  const atKill = await completed(jobId);
  expect(atKill).toBeLessThan(ITEMS);

  const last = await spawnWorker(temporal, TASK_QUEUE);
  cluster.track(last);
  await waitUntil(async () => (await completed(jobId)) > atKill, 'progress after kill', 60_000);
  await runner.waitForClose(workflowId);
  await stopWorker(last);

  await expectExactlyOnce(jobId);
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
  expect(
    (await retriedActivityAttempts(client, workflowId)).some(
      (f) => f?.timeoutFailureInfo?.timeoutType === proto.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
    ),
  ).toBe(true);
}, 600_000);

test('the Temporal server stopped and started again mid-job: the worker reconnects and the job completes once', async () => {
  const { knex, temporal, client, organizationId } = cluster;
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
  await expectExactlyOnce(jobId);
}, 600_000);

test('a job with a catalog target, its worker SIGKILLed mid-job: every staged change exists exactly once', async () => {
  const { knex, temporal, client, organizationId } = cluster;
  const catalogId = await createTestCatalog(organizationId, { unique_id_field: 'row_ref' });
  const { jobId, workflowId, runner } = await createArchiveJob(knex, client, TASK_QUEUE, organizationId, ITEMS, TUNING, { catalogId });
  const { inFlight } = await killInsideABatch(jobId);
  expect(await completed(jobId)).toBeLessThan(ITEMS);
  const last = cluster.track(await spawnWorker(temporal, TASK_QUEUE));
  await runner.waitForClose(workflowId);
  await stopWorker(last);

  await expectExactlyOnce(jobId);
  // The job's id is also its review activity's (docs/api-enrichment.md "Enrichment jobs").
  const staged = await knex('staged_changes').where({ activity_id: jobId }).select('row_index');
  expect(staged.length).toBeGreaterThan(0);
  // One staged change per successful row, each inserted once and never re-staged (the audit), the
  // rows in flight at the kill among them.
  const succeeded = await knex('enrichment_rows').where({ job_id: jobId, status: 'succeeded' }).pluck('row_index');
  expect(staged.map((c) => c.row_index).sort((a, b) => a - b)).toEqual([...succeeded].sort((a, b) => a - b));
  const writes = await writesPerRow(knex, 'staged_changes', jobId);
  expect(writes.repeated).toEqual([]);
  expect(writes.perRow.size).toBe(staged.length);
  for (const row of inFlight.filter((r) => succeeded.includes(r))) expect(writes.perRow.get(`${jobId}:${row}`)).toBe(1);
}, 600_000);
