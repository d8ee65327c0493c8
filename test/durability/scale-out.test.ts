// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Scale-out: two API processes and two worker processes (the production entrypoints)
 * against one Temporal server and one PostgreSQL, as `docker compose up --scale api=2 --scale
 * worker=2` runs them. Writes through one API are read back at once through the other (no
 * process holds stale state: schema versions, taxonomy, items, exact search totals), and a job
 * run by two workers ends with the same results and credits as the same items run by one worker.
 */
import { ApiProcess, archiveItems, engineCallsPerRow, jobInvariants, spawnApi, spawnWorker, stopWorker } from '../fixtures/worker-cluster';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { auditedJob } from '../helpers/write-audit';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-scale-out';
/** Items of each job (SCALE_OUT_ITEMS=10000 for the full-size run; CI keeps it short). */
const ITEMS = Number(process.env.SCALE_OUT_ITEMS ?? 300);

let apis: ApiProcess[] = [];
let auth: Record<string, string>;

/** One JSON call to API process `n`; throws with the answer on a status other than 2xx. */
async function call<T>(n: number, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${apis[n].port}/api${path}`, {
    method,
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path} via API ${n}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A job of more than 1,000 items: `multipart/form-data` with `request_json` and an `items_file` (docs/api-reference.md "Limits"). */
async function uploadJob(body: { items: unknown[] } & Record<string, unknown>): Promise<{ job_id: string }> {
  const { items, ...request } = body;
  const form = new FormData();
  form.append('request_json', JSON.stringify(request));
  form.append('items_file', new Blob([JSON.stringify(items)], { type: 'application/json' }), 'items.json');
  const res = await fetch(`http://127.0.0.1:${apis[0].port}/api/public/enrich`, { method: 'POST', headers: auth, body: form });
  if (res.status >= 300) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()) as { job_id: string };
}

const cluster = useTestCluster({
  writeAudit: true,
  async setUp({ temporal }) {
    apis = [cluster.track(await spawnApi(temporal, TASK_QUEUE)), cluster.track(await spawnApi(temporal, TASK_QUEUE))];
    auth = (await createTestOrg('scale out')).auth;
  },
  timeoutMs: 600_000,
});

it('reads every write at once through the other API process', async () => {
  const catalog = await call<{ id: string }>(0, 'POST', '/public/catalogs', {
    name: 'scale out',
    unique_id_field: 'sku',
    schema_definition: { properties: { sku: { type: 'string' }, title: { type: 'string' } }, required: ['sku'] },
  });
  const base = `/public/catalogs/${catalog.id}`;
  // Concurrent bulk writes through both processes, then exact totals read through both.
  await Promise.all(
    [0, 1, 0, 1].map((n, chunk) =>
      call(n, 'POST', `${base}/items/bulk`, { items: Array.from({ length: 250 }, (_, i) => ({ sku: `s-${chunk}-${i}`, title: `boot ${chunk} ${i}` })) }),
    ),
  );
  for (const n of [0, 1]) {
    expect((await call<{ total: number }>(n, 'GET', `${base}/items?search=boot&limit=1`)).total).toBe(1000);
  }
  await call(1, 'POST', `${base}/items/bulk`, { items: [{ sku: 's-0-0', title: 'shoe' }] });
  expect((await call<{ total: number }>(0, 'GET', `${base}/items?search=boot&limit=1`)).total).toBe(999);

  await call(0, 'POST', `${base}/schema/fields`, { field_name: 'gtin', field_type: 'string' });
  expect((await call<{ version: string }>(1, 'GET', `${base}/schema`)).version).toBe('1.1.0');
  await call(1, 'PUT', `${base}/taxonomy`, { name: 'Footwear', nodes: { shoes: { name: 'Shoes', parent: null } } });
  expect(JSON.stringify(await call(0, 'GET', `${base}/taxonomy`))).toContain('Shoes');
});

it('runs a job on two workers with the same results and credits as on one', async () => {
  const { knex, temporal } = cluster;
  const items = Array.from({ length: ITEMS }, (_, i) => archiveItems()[i % archiveItems().length]);
  const body = {
    items,
    output_schema: [
      { name: 'brand', type: 'string', description: 'Brand' },
      { name: 'price', type: 'number', description: 'Price' },
    ],
    async_mode: true,
    speed: 'fast',
  };

  /** Runs the job on `workerCount` new workers; its id and the rows each worker's engine took (from the workers' logs). */
  const runJob = async (workerCount: number): Promise<{ jobId: string; rowsPerWorker: number[] }> => {
    const started = await Promise.all(Array.from({ length: workerCount }, () => spawnWorker(temporal, TASK_QUEUE)));
    started.forEach((w) => cluster.track(w));
    const { job_id: jobId } = items.length <= 1000 ? await call<{ job_id: string }>(0, 'POST', '/public/enrich', body) : await uploadJob(body);
    // Polled through the other API process.
    await waitUntil(
      async () => ((await call<{ status: string }>(1, 'GET', `/public/enrich/${jobId}?page_size=1`)).status === 'completed' ? true : null),
      'the job',
      180_000,
    );
    for (const w of started) await stopWorker(w);
    return { jobId, rowsPerWorker: started.map((w) => engineCallsPerRow([w.output()], jobId).size) };
  };
  const { jobId: two, rowsPerWorker } = await runJob(2);
  const { jobId: one } = await runJob(1);
  // Both workers processed rows of the two-worker job.
  expect(rowsPerWorker).toHaveLength(2);
  for (const rows of rowsPerWorker) expect(rows).toBeGreaterThan(0);

  for (const jobId of [two, one]) {
    const state = await jobInvariants(knex, jobId);
    expect(state.rows).toMatchObject({ rows: ITEMS, pending: 0, written_once: ITEMS, max_writes: 1 });
    // From the trigger-kept write record: one write per row, credits = audited successes.
    const audit = await auditedJob(knex, jobId);
    expect(audit).toMatchObject({ rowsWritten: ITEMS, repeated: [], successes: state.rows.succeeded, credits: state.rows.succeeded });
    expect(state.job.credits_used).toBe(audit.successes);
  }
  const results = async (jobId: string): Promise<unknown[]> =>
    (await knex('enrichment_rows').where({ job_id: jobId }).orderBy('row_index').select(knex.raw("result -> 'after_data' AS after_data"))).map(
      (r) => r.after_data,
    );
  expect(await results(two)).toEqual(await results(one));
  const credits = await knex('enrichment_jobs').whereIn('id', [two, one]).select('id', 'credits_used');
  expect(new Set(credits.map((c) => c.credits_used)).size).toBe(1);
}, 300_000);
