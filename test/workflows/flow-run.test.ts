/**
 * Flows end to end (docs/api-review.md "Flows" and "Save as workflow") over HTTP,
 * the real Temporal dev server (flowRunWorkflow, its activities, the child enrichment job) and
 * the real PostgreSQL, with the real Python sandbox: save a custom transform as a flow → list →
 * execute → poll (progress, updates, paginated results and node_results) → the stage node's
 * review activity → approve → apply → the catalog changed; a failing node (run failed, node and
 * error visible, the worker unharmed); `cancel_existing`; `npm run ops -- rerun` after a failed
 * node; an enrichment job saved as `input → enrich → stage`.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import request from 'supertest';
import { createApp } from '../../src/app';
import { runOps } from '../../src/cli/ops';
import { loadConfig } from '../../src/config';
import { pythonSandbox } from '../../src/services/flows/python';
import { flowRunWorkflowId } from '../../src/contracts/workflows';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { itemsBySku, seedItems } from '../helpers/review-apply';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-flow-run';

const UPPERCASE_CODE = `
def transform(rows):
    print(f"page of {len(rows)} rows")
    out = []
    for r in rows:
        if r.get("boom"):
            raise ValueError("boom in row " + r["sku"])
        out.append({**r, "title": str(r.get("title", "")).upper()})
    return out
`;

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('flow tests');
  other = await createTestOrg('flow tests, other org');
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine() });
  app = testApiFor(env, TASK_QUEUE, { flowTuning: { heartbeat_timeout_s: 5, retry_initial_interval_s: 0.2, maximum_attempts: 3 } });
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

interface RowsPage {
  data: Array<Record<string, unknown>>;
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

interface RunBody {
  workflow_run_id: string;
  workflow_id: string;
  status: string;
  progress: number;
  current_step: string | null;
  completed_at: string | null;
  updates: string[];
  results: RowsPage | null;
  node_results: Record<string, RowsPage & { node_type: string }> | null;
  nodes: Array<{ id: string; type: string; status: string; output_count: number; executions: number }>;
  failed_node_id: string | null;
  error: string | null;
  activity_id: string | null;
  review_url: string | null;
}

/** A custom transform activity of `catalogId` with `code` as its script, through the route. */
async function customTransform(catalogId: string, code: string): Promise<string> {
  const res = await request(app)
    .post(`/api/public/catalogs/${catalogId}/activities/custom-transform`)
    .set(org.auth)
    .send({ activity_message: 'uppercase titles', script: { filename: 'transform.py', content: code, sha256: 'x' }, staged_changes: [] });
  expect(res.status).toBe(200);
  return res.body.activity_id;
}

/** Saves an activity as a flow through the route. @returns the save answer */
async function saveFlow(
  catalogId: string,
  activityId: string,
  body: Record<string, unknown>,
): Promise<{ workflow_id: string; total_nodes: number; workflow_url: string }> {
  const res = await request(app).post(`/api/public/catalogs/${catalogId}/activities/${activityId}/save-workflow`).set(org.auth).send(body);
  expect(res.status).toBe(200);
  return res.body;
}

/** Executes a flow through the route. @returns the run id */
async function execute(flowId: string, input: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await request(app)
    .post(`/api/public/workflows/${flowId}/execute`)
    .set(org.auth)
    .send({ input, ...extra });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'running', workflow_id: flowId, poll_url: `/api/public/workflows/runs/${res.body.workflow_run_id}` });
  return res.body.workflow_run_id;
}

/** Polls a run until it leaves `running`. */
async function settled(runId: string, query = ''): Promise<RunBody> {
  return waitUntil(
    async () => {
      const res = await request(app).get(`/api/public/workflows/runs/${runId}${query}`).set(org.auth);
      expect(res.status).toBe(200);
      return res.body.status === 'running' ? null : (res.body as RunBody);
    },
    `run ${runId} to end`,
    90_000,
  );
}

test('save a custom transform → list → execute → poll → review → apply changes the catalog', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  await seedItems(knex, org.organizationId, catalogId, [
    { sku: 'A1', title: 'old a', price: 10 },
    { sku: 'A2', title: 'OLD B', price: 20 },
  ]);
  const activityId = await customTransform(catalogId, UPPERCASE_CODE);
  const saved = await saveFlow(catalogId, activityId, {
    workflow_name: 'Uppercase titles',
    workflow_description: 'Makes titles upper case',
    timeout_seconds: 60,
  });
  expect(saved.total_nodes).toBe(3);
  expect(saved.workflow_url).toMatch(new RegExp(`/dashboard/flows/${saved.workflow_id}$`));

  const list = await request(app).get('/api/public/workflows?search=UPPERCASE&limit=10').set(org.auth);
  expect(list.status).toBe(200);
  expect(list.body.workflows.map((w: { id: string }) => w.id)).toContain(saved.workflow_id);
  expect(list.body).toMatchObject({ page: 1, page_size: 10 });
  const detail = await request(app).get(`/api/public/workflows/${saved.workflow_id}`).set(org.auth);
  expect(detail.body.nodes.map((n: { type: string }) => n.type)).toEqual(['input', 'custom_code', 'stage']);
  expect(detail.body.nodes[1].config.python_code).toBe(UPPERCASE_CODE);
  expect((await request(app).get(`/api/public/workflows/${saved.workflow_id}`).set(other.auth)).status).toBe(403);

  // 2,100 rows: three pages through the sandbox; A1 changes, A2 is unchanged, the rest are new.
  const input = [
    { sku: 'A1', title: 'old a', price: 10 },
    { sku: 'A2', title: 'old b', price: 20 },
    ...Array.from({ length: 2098 }, (_, i) => ({ sku: `N${i}`, title: `new ${i}`, price: i })),
  ];
  const runId = await execute(saved.workflow_id, input);
  const run = await settled(runId, '?page=2&page_size=1000');
  expect(run.status).toBe('completed');
  expect(run.progress).toBe(1);
  expect(run.completed_at).not.toBeNull();
  expect(run.updates.filter((u) => u.includes('page of'))).toEqual([
    '[custom_code] page of 1000 rows',
    '[custom_code] page of 1000 rows',
    '[custom_code] page of 100 rows',
  ]);
  expect(run.results).toMatchObject({ total: 2100, page: 2, page_size: 1000, has_more: true });
  expect(run.results!.data[0]).toEqual({ sku: 'N998', title: 'NEW 998', price: 998 });
  expect(Object.keys(run.node_results!)).toEqual(['input', 'custom_code', 'stage']);
  expect(run.node_results!.input.data[0]).toEqual({ sku: 'N998', title: 'new 998', price: 998 });
  expect(run.node_results!.custom_code).toMatchObject({ node_type: 'custom_code', total: 2100 });
  expect(run.nodes.map((n) => [n.id, n.status, n.executions])).toEqual([
    ['input', 'completed', 1],
    ['custom_code', 'completed', 1],
    ['stage', 'completed', 1],
  ]);
  const last = await request(app).get(`/api/public/workflows/runs/${runId}?page=3&page_size=1000`).set(org.auth);
  expect(last.body.results).toMatchObject({ total: 2100, page: 3, has_more: false });
  expect(last.body.results.data).toHaveLength(100);

  // The stage node's activity: pending review, A1's title only, A2 unchanged (nothing staged), 2,098 new items.
  expect(run.review_url).toBe(`${loadConfig().publicUrl}/dashboard/catalogs/${catalogId}/activities/${run.activity_id}`);
  const activity = await knex('review_activities').where('id', run.activity_id).first();
  expect(activity).toMatchObject({ status: 'pending_review', type: 'custom_transform', catalog_id: catalogId });
  expect(activity.metadata).toMatchObject({ source: 'flow', flow_id: saved.workflow_id, run_id: runId });
  const staged = await knex('staged_changes').where('activity_id', run.activity_id).orderBy('row_index');
  expect(staged).toHaveLength(2099);
  expect(staged[0]).toMatchObject({ is_new_item: false, before_data: { title: 'old a' }, after_data: { title: 'OLD A' }, status: 'pending' });
  expect(staged.filter((c) => c.is_new_item)).toHaveLength(2098);

  // The person's step: approve all and apply; the catalog then holds the flow's output.
  const review = await request(app).post(`/api/public/activities/${run.activity_id}/staged-changes/bulk-review`).set(org.auth).send({ action: 'approve_all' });
  expect(review.status).toBe(200);
  expect((await request(app).post(`/api/public/activities/${run.activity_id}/apply`).set(org.auth).send({})).status).toBeLessThan(300);
  await waitUntil(async () => (await knex('review_activities').where('id', run.activity_id).first()).status === 'completed', 'apply to complete', 60_000);
  const items = await itemsBySku(knex, catalogId);
  expect(items.size).toBe(2100);
  expect(items.get('A1')!.data).toMatchObject({ title: 'OLD A', price: 10 });
  expect(items.get('A2')!.data).toMatchObject({ title: 'OLD B' });
  expect(items.get('N7')!.data).toEqual({ sku: 'N7', title: 'NEW 7', price: 7 });
});

test('a node whose code raises fails the run with the node and the error; the worker runs the next run', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const activityId = await customTransform(catalogId, UPPERCASE_CODE);
  const saved = await saveFlow(catalogId, activityId, { workflow_name: 'Fails on boom', timeout_seconds: 30 });
  const runId = await execute(saved.workflow_id, [
    { sku: 'X1', title: 'a' },
    { sku: 'X2', title: 'b', boom: true },
  ]);
  const run = await settled(runId);
  expect(run.status).toBe('failed');
  expect(run.failed_node_id).toBe('custom_code');
  expect(run.error).toContain('boom in row X2');
  expect(run.results).toBeNull();
  expect(Object.keys(run.node_results ?? {})).toEqual(['input']);
  expect(run.nodes.find((n) => n.id === 'custom_code')).toMatchObject({ status: 'failed', executions: 1 });
  expect(run.updates.some((u) => u.includes('[custom_code] failed') && u.includes('boom in row X2'))).toBe(true);
  // The run is marked failed just before its workflow fails: wait for the close.
  const description = await waitUntil(async () => {
    const d = await env.client.workflow.getHandle(flowRunWorkflowId(runId)).describe();
    return d.status.name === 'RUNNING' ? null : d;
  }, 'the failed run workflow to close');
  expect(description.status.name).toBe('FAILED');
  expect(description.searchAttributes).toMatchObject({ JobKind: ['flow-run'], OrganizationId: [org.organizationId], CatalogId: [catalogId] });
  // Nothing was staged; and the same worker runs a good input of the same flow.
  expect(await knex('review_activities').where({ catalog_id: catalogId }).whereNot('id', activityId).count()).toEqual([{ count: '0' }]);
  const next = await settled(await execute(saved.workflow_id, [{ sku: 'X3', title: 'c' }]));
  expect(next.status).toBe('completed');
  expect(next.results!.data).toEqual([{ sku: 'X3', title: 'C' }]);
});

test('cancel_existing cancels the running run of the flow and starts the new one', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const slow = `
import time
def transform(rows):
    time.sleep(2)
    return rows
`;
  const activityId = await customTransform(catalogId, slow);
  const saved = await saveFlow(catalogId, activityId, { workflow_name: 'Slow', timeout_seconds: 120 });
  const rows = Array.from({ length: 5000 }, (_, i) => ({ sku: `S${i}` }));
  const first = await execute(saved.workflow_id, rows);
  await waitUntil(
    async () => (await knex('flow_run_nodes').where({ run_id: first, node_id: 'custom_code' }).first()).pages_done >= 1,
    'first page of the slow run',
  );
  const second = await execute(saved.workflow_id, rows.slice(0, 3), { cancel_existing: true });
  expect((await knex('flow_runs').where('id', first).first()).status).toBe('cancelled');
  const done = await settled(second);
  expect(done.status).toBe('completed');
  const firstRun = await settled(first);
  expect(firstRun.status).toBe('cancelled');
  await waitUntil(
    async () => (await env.client.workflow.getHandle(flowRunWorkflowId(first)).describe()).status.name === 'CANCELLED',
    'the first run workflow to be cancelled',
  );
  // The cancelled run stopped: it never reached the stage node.
  expect((await knex('flow_run_nodes').where({ run_id: first, node_id: 'stage' }).first()).status).toBe('pending');
});

test('ops rerun reruns a failed run from its failed node; finished nodes are not run again', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const activityId = await customTransform(catalogId, UPPERCASE_CODE);
  const saved = await saveFlow(catalogId, activityId, { workflow_name: 'Rerun me', timeout_seconds: 30 });
  // The worker's sandbox is broken (no bubblewrap at the configured path): the node fails.
  await worker.stop();
  const config = loadConfig();
  const broken = await runTestWorker(env, {
    taskQueue: TASK_QUEUE,
    knex,
    engine: fakeEngine(),
    python: pythonSandbox({ pythonSandbox: { ...config.pythonSandbox, bwrapPath: '/nonexistent/bwrap' } }),
  });
  const runId = await execute(saved.workflow_id, [{ sku: 'R1', title: 'r' }]);
  const failed = await settled(runId);
  await waitUntil(
    async () => (await env.client.workflow.getHandle(flowRunWorkflowId(runId)).describe()).status.name === 'FAILED',
    'the failed run workflow to close',
  );
  await broken.stop();
  expect(failed).toMatchObject({ status: 'failed', failed_node_id: 'custom_code' });
  expect(failed.error).toMatch(/sandbox unavailable/i);

  // ops failed lists it; the operator mends the worker and reruns.
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine() });
  const saveEnv = { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE: process.env.TEMPORAL_TASK_QUEUE };
  process.env.TEMPORAL_ADDRESS = env.address;
  process.env.TEMPORAL_TASK_QUEUE = TASK_QUEUE;
  try {
    const lines: string[] = [];
    expect(await runOps(['failed', '--limit', '500'], (l) => lines.push(l))).toBe(0);
    const listed = lines.map((l) => JSON.parse(l)).find((j) => j.run_id === runId);
    expect(listed).toMatchObject({ kind: 'flow-run', failed_node_id: 'custom_code', workflow_status: 'FAILED', rerun: `npm run ops -- rerun ${runId}` });
    const out: string[] = [];
    expect(await runOps(['rerun', runId], (l) => out.push(l))).toBe(0);
    expect(JSON.parse(out[0])).toMatchObject({ run_id: runId, from_node: 'custom_code', reset_nodes: ['custom_code', 'stage'] });
    const again: string[] = [];
    // A run that is running again cannot be rerun.
    expect(await runOps(['rerun', runId], (l) => again.push(l)).catch((e: Error) => e.message)).toMatch(/running/);
  } finally {
    Object.assign(process.env, saveEnv);
    for (const [k, v] of Object.entries(saveEnv)) if (v === undefined) delete process.env[k];
  }
  const rerun = await settled(runId);
  expect(rerun.status).toBe('completed');
  expect(rerun.results!.data).toEqual([{ sku: 'R1', title: 'R' }]);
  expect(rerun.nodes.map((n) => [n.id, n.executions])).toEqual([
    ['input', 1],
    ['custom_code', 2],
    ['stage', 1],
  ]);
  expect((await knex('flow_runs').where('id', runId).first()).attempts).toBe(2);
});

test('an enrichment job saved as input → enrich → stage runs its recipe as a child job and stages the results with their sources', async () => {
  const catalogId = await createTestCatalog(org.organizationId, {
    schema_definition: { type: 'object', properties: { sku: { type: 'string' }, title: { type: 'string' }, enriched: { type: 'boolean' } } },
  });
  const job = await request(app)
    .post('/api/public/enrich')
    .set(org.auth)
    .send({ catalog_id: catalogId, items: [{ sku: 'E0', title: 'first' }], output_schema: [{ name: 'enriched', type: 'boolean', description: 'enriched?' }] });
  expect(job.status).toBe(200);
  const jobId = job.body.job_id;
  const saved = await saveFlow(catalogId, jobId, { workflow_name: 'Enrich like that job' });
  expect(saved.total_nodes).toBe(3);
  const detail = await request(app).get(`/api/public/workflows/${saved.workflow_id}`).set(org.auth);
  expect(detail.body.nodes.map((n: { type: string }) => n.type)).toEqual(['input', 'enrich', 'stage']);
  expect(detail.body.nodes[1].config.request.catalog_id).toBeUndefined();
  expect(detail.body.nodes[1].config.request.output_schema).toEqual([{ name: 'enriched', type: 'boolean', description: 'enriched?' }]);

  const runId = await execute(saved.workflow_id, [
    { sku: 'E1', title: 'one' },
    { sku: 'E2', title: 'two' },
  ]);
  const run = await settled(runId);
  expect(run.status).toBe('completed');
  // Each row carries its result without its data: the provenance the stage node stages.
  const echo = { reasoning: 'echo', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} };
  expect(run.results!.data).toEqual(
    ['E1', 'E2'].map((sku, i) => ({
      sku,
      title: ['one', 'two'][i],
      enriched: true,
      __enrichment: {
        original_data: { sku, title: ['one', 'two'][i] },
        after_data: { sources: { enriched: ['INPUT:name'] }, source_explanations: { enriched: 'echo' } },
        all_sources: [],
        review_info: echo,
      },
    })),
  );
  const node = await knex('flow_run_nodes').where({ run_id: runId, node_id: 'enrich' }).first();
  expect(node).toMatchObject({ status: 'completed', executions: 1, output_count: 2 });
  const childJob = await knex('enrichment_jobs').where('id', node.job_id).first();
  expect(childJob).toMatchObject({ status: 'completed', total_items: 2, credits_used: 2, catalog_id: null });
  const staged = await knex('staged_changes').where('activity_id', run.activity_id).orderBy('row_index');
  // The same shape a job stages (src/services/enrichment/rows/staging.ts stagedProvenance): sources, explanations, review_info.
  expect(staged.map((c) => [c.after_data, c.source_data, c.review_info])).toEqual(
    ['E1', 'E2'].map((sku, i) => [
      { sku, title: ['one', 'two'][i], enriched: true },
      {
        original_data: { sku, title: ['one', 'two'][i] },
        sources: { enriched: ['INPUT:name'] },
        source_explanations: { enriched: 'echo' },
        all_sources: [],
      },
      echo,
    ]),
  );
});
