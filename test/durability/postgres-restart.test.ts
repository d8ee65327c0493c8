// @runs-alone: restarts PostgreSQL, which every other suite's database lives in (docs/testing.md "Parallel suites").
// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * PostgreSQL restarted mid-job: while a 1,000-item job runs on a real worker process,
 * the local PostgreSQL cluster is restarted; activities that lose their connections fail and are
 * retried by Temporal, and the job completes with exactly one result write and one credit per
 * successful item (checked with each row's own write counter). Needs Debian's `pg_ctlcluster`
 * and a local cluster (the machine this project runs on); without them it fails saying so
 * (test/helpers/prerequisites.ts).
 */
import { execFileSync } from 'node:child_process';
import { localPgCluster } from '../fixtures/chaos';
import { createArchiveJob, jobInvariants, retriedActivityAttempts, spawnWorker, stopWorker } from '../fixtures/worker-cluster';
import { createTestOrg } from '../helpers/db';
import { requirePrerequisite } from '../helpers/prerequisites';
import { waitUntil } from '../helpers/wait';
import { auditedJob } from '../helpers/write-audit';
import { TEST_DATABASE_URL } from '../setup/env';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-postgres-restart';
const ITEMS = 1000;

const pgCluster = requirePrerequisite(
  localPgCluster(TEST_DATABASE_URL),
  'a local Debian PostgreSQL cluster serving the test database, restartable as root (pg_ctlcluster)',
  'apt-get install postgresql; run the tests as root',
);

const cluster = useTestCluster({ writeAudit: true });

/** Completed rows of the job; null while the database is unreachable. */
async function completed(jobId: string): Promise<number | null> {
  try {
    return (await cluster.knex('enrichment_jobs').where({ id: jobId }).first('completed_items')).completed_items as number;
  } catch {
    return null;
  }
}

it('a 1,000-item job survives a PostgreSQL restart: one write and one credit per item', async () => {
  const { knex, temporal, client } = cluster;
  const { organizationId } = await createTestOrg('postgres restart');
  const worker = await spawnWorker(temporal, TASK_QUEUE);
  cluster.track(worker);
  const { jobId, workflowId, runner } = await createArchiveJob(knex, client, TASK_QUEUE, organizationId, ITEMS, {
    row_heartbeat_timeout_s: 5,
    batch_size: 5,
  });
  await waitUntil(async () => ((await completed(jobId)) ?? 0) >= 150, '150 rows done', 90_000);

  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', pgCluster.version, pgCluster.name, 'restart', '-m', 'fast'], { stdio: 'ignore' });
  const afterRestart = await waitUntil(async () => completed(jobId), 'PostgreSQL back', 60_000);
  expect(afterRestart).toBeLessThan(ITEMS);

  await runner.waitForClose(workflowId);
  expect(worker.child.exitCode).toBeNull(); // the same worker process carried on
  await stopWorker(worker);
  const state = await jobInvariants(knex, jobId);
  expect(state.job.status).toBe('completed');
  expect(state.rows).toMatchObject({ rows: ITEMS, pending: 0, with_result: ITEMS, distinct_rows: ITEMS, written_once: ITEMS, max_writes: 1 });
  // From the trigger-kept write record: one write per row, credits = audited successes.
  const audit = await auditedJob(knex, jobId);
  expect(audit).toMatchObject({ rowsWritten: ITEMS, repeated: [], successes: state.rows.succeeded, credits: state.rows.succeeded });
  expect(state.rows.succeeded).toBeGreaterThan(0);
  expect(state.job.credits_used).toBe(audit.successes);
  // The restart was felt: some activity failed and Temporal retried it.
  expect((await retriedActivityAttempts(client, workflowId)).length).toBeGreaterThan(0);
}, 600_000);
