// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Graceful shutdown: SIGTERM to the API process stops new connections but answers the
 * request in flight (here a sync enrichment waiting for its workflow); SIGTERM to a worker
 * process mid-job lets it stop cleanly, and the job finishes on another worker with exactly one
 * result and one credit per item. Real processes: `src/main.ts`, `temporal/worker.ts`.
 */
import { archiveItems, createArchiveJob, jobInvariants, spawnApi, spawnWorker, stopWorker, WorkerProcess } from '../fixtures/worker-cluster';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { auditedJob } from '../helpers/write-audit';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-graceful-shutdown';

const cluster = useTestCluster({ writeAudit: true });

it('answers the request in flight after SIGTERM, then refuses new connections and exits 0', async () => {
  const { knex, temporal } = cluster;
  const worker = await spawnWorker(temporal, TASK_QUEUE);
  cluster.track(worker);
  const api = await spawnApi(temporal, TASK_QUEUE);
  cluster.track(api);
  const org = await createTestOrg('graceful api');
  const items = archiveItems().slice(0, 12);
  const body = JSON.stringify({ items, output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }], async_mode: false });
  // The only worker is frozen (SIGSTOP; Temporal still lists its poll) until the API has taken
  // SIGTERM, so the job cannot finish first: the request is surely in flight when the signal lands.
  worker.child.kill('SIGSTOP');
  let settled = false;
  let inFlight: Promise<Response>;
  try {
    inFlight = fetch(`http://127.0.0.1:${api.port}/api/public/enrich`, {
      method: 'POST',
      headers: { ...org.auth, 'Content-Type': 'application/json' },
      body,
    });
    void inFlight.then(
      () => (settled = true),
      () => (settled = true),
    );
    await waitUntil(async () => (await knex('enrichment_jobs').where({ organization_id: org.organizationId }).first('id')) ?? null, 'the job to exist');
    api.child.kill('SIGTERM');
    await waitUntil(() => (api.output().includes('API stopping') ? true : null), 'the API to take SIGTERM');
    expect(settled).toBe(false);
    const job = await knex('enrichment_jobs').where({ organization_id: org.organizationId }).first('status', 'completed_items');
    expect(job.status).not.toBe('completed');
    expect(job.completed_items).toBe(0);
  } finally {
    worker.child.kill('SIGCONT');
  }
  const res = await inFlight;
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { status: string; results: unknown[] };
  expect(answer.status).toBe('completed');
  expect(answer.results).toHaveLength(items.length);
  expect(await api.exited).toBe(0);
  await expect(fetch(`http://127.0.0.1:${api.port}/healthz`)).rejects.toThrow();
  expect(api.output()).toContain('API stopped');
  await stopWorker(worker);
});

it('stops a worker cleanly on SIGTERM mid-job; another worker finishes the job exactly once', async () => {
  const { knex, temporal, client } = cluster;
  const { organizationId } = await createTestOrg('graceful worker');
  const first: WorkerProcess = await spawnWorker(temporal, TASK_QUEUE);
  cluster.track(first);
  const job = await createArchiveJob(knex, client, TASK_QUEUE, organizationId, 200, { row_heartbeat_timeout_s: 3, batch_size: 5 });
  await waitUntil(
    async () => ((await knex('enrichment_jobs').where({ id: job.jobId }).first('completed_items')).completed_items >= 20 ? true : null),
    'progress',
  );
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  expect(first.output()).toContain('worker stopped');
  // Work was still pending when the first worker stopped, so the second one had rows to finish.
  const pendingAfterStop = await knex('enrichment_rows').where({ job_id: job.jobId, status: 'pending' }).count({ n: '*' }).first();
  expect(Number(pendingAfterStop!.n)).toBeGreaterThan(0);
  const writtenByFirst = (await auditedJob(knex, job.jobId)).rowsWritten;

  const second = await spawnWorker(temporal, TASK_QUEUE);
  cluster.track(second);
  await client.workflow.getHandle(job.workflowId).result();
  const state = await jobInvariants(knex, job.jobId);
  expect(state.job.status).toBe('completed');
  expect(state.rows).toMatchObject({ rows: 200, pending: 0, with_result: 200, distinct_rows: 200 });
  expect(state.rows.max_writes).toBe(1);
  // From the trigger-kept write record: every row written once, some of them after the stop.
  const audit = await auditedJob(knex, job.jobId);
  expect(audit.repeated).toEqual([]);
  expect(audit.rowsWritten).toBe(200);
  expect(audit.rowsWritten).toBeGreaterThan(writtenByFirst);
  expect(audit.credits).toBe(audit.successes);
  expect(state.job.credits_used).toBe(audit.successes);
  await stopWorker(second);
});
