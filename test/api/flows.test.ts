/**
 * Flow routes without Temporal (the runner accepts starts and runs nothing): save-workflow's
 * refusals and node shapes (docs/api-review.md "Save as workflow"), the list's search and paging, execute's stored run, input
 * rows and `cancel_existing`, the poll of a running run, and 404 / 403 / 422 answers. The runs
 * themselves are test/workflows/flow-run.test.ts.
 */
import type { Server } from 'node:http';
import request from 'supertest';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { acceptingJobs, testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { idempotentIdOf, loseAnswer } from '../helpers/idempotency';
import type { ValidationErrorBody } from '../helpers/wire';

const CODE = 'def transform(rows):\n    return rows\n';

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;
/** `POST …/save-workflow` body. */
type SaveBody = paths['/api/public/catalogs/{catalog_id}/activities/{activity_id}/save-workflow']['post']['requestBody']['content']['application/json'];
/** `POST /api/public/workflows/{id}/execute` body. */
type ExecuteBody = paths['/api/public/workflows/{workflow_id}/execute']['post']['requestBody']['content']['application/json'];

beforeAll(async () => {
  server = await listenTestApp(testApp(acceptingJobs));
  org = await createTestOrg('flow routes');
  other = await createTestOrg('flow routes, other');
  api = typedClient(server, org.auth);
  catalogId = await createTestCatalog(org.organizationId);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

async function transformActivity(script: Record<string, unknown> | null): Promise<string> {
  const res = await api.POST('/api/public/catalogs/{catalog_id}/activities/custom-transform', {
    params: { path: { catalog_id: catalogId } },
    body: { activity_message: 'a transform', ...(script ? { script } : {}) },
  });
  expect(res.response.status).toBe(200);
  return res.data!.activity_id;
}

/** `POST …/save-workflow` with `body`, as `auth`, for `catalog`'s activity. */
function save(activityId: string, body: SaveBody, auth = org.auth, catalog = catalogId) {
  return typedClient(server, auth).POST('/api/public/catalogs/{catalog_id}/activities/{activity_id}/save-workflow', {
    params: { path: { catalog_id: catalog, activity_id: activityId } },
    body,
  });
}

/** `save` of a body the client's types refuse (a wrong type, a missing or unknown key), through supertest: its status. */
async function saveUntyped(activityId: string, body: Record<string, unknown>): Promise<number> {
  return (await request(server).post(`/api/public/catalogs/${catalogId}/activities/${activityId}/save-workflow`).set(org.auth).send(body)).status;
}

/** `POST /api/public/workflows/{id}/execute` with `body` as `auth`. */
function execute(flowId: string, body: ExecuteBody, auth = org.auth) {
  return typedClient(server, auth).POST('/api/public/workflows/{workflow_id}/execute', { params: { path: { workflow_id: flowId } }, body });
}

/** `GET /api/public/workflows/runs/{id}` as `auth`, with `query`. */
function pollRun(runId: string, auth = org.auth, query: { page?: number; page_size?: number } = {}) {
  return typedClient(server, auth).GET('/api/public/workflows/runs/{workflow_run_id}', { params: { path: { workflow_run_id: runId }, query } });
}

/** `GET /api/public/workflows` as `auth` with `query`. */
function listFlows(query: { search?: string; limit?: number; offset?: number }, auth = org.auth) {
  return typedClient(server, auth).GET('/api/public/workflows', { params: { query } });
}

test('save-workflow refuses what cannot become a flow, with 422 detail, 404 and 403', async () => {
  const noScript = await transformActivity(null);
  const missing = await save(noScript, { workflow_name: 'x' });
  expect(missing.response.status).toBe(422);
  expect((missing.error as ValidationErrorBody).detail[0]).toMatchObject({ loc: ['body', 'python_code'], type: 'missing' });
  const noTransform = await save(noScript, { workflow_name: 'x', python_code: 'def main(rows):\n    return rows\n' });
  expect(noTransform.response.status).toBe(422);
  expect((noTransform.error as ValidationErrorBody).detail[0].msg).toMatch(/def transform/);
  for (const timeout of [0, 1801])
    expect((await save(noScript, { workflow_name: 'x', python_code: CODE, timeout_seconds: timeout })).response.status).toBe(422);
  expect(await saveUntyped(noScript, { workflow_name: 'x', python_code: CODE, timeout_seconds: 'soon' })).toBe(422);
  expect(await saveUntyped(noScript, { python_code: CODE })).toBe(422);
  expect(await saveUntyped(noScript, { workflow_name: 'x', python_code: CODE, unknown: 1 })).toBe(422);
  expect((await save('00000000-0000-4000-8000-000000000000', { workflow_name: 'x', python_code: CODE })).response.status).toBe(404);
  expect((await save(noScript, { workflow_name: 'x', python_code: CODE }, other.auth)).response.status).toBe(403);
  const otherCatalog = await createTestCatalog(org.organizationId);
  expect((await save(noScript, { workflow_name: 'x', python_code: CODE }, org.auth, otherCatalog)).response.status).toBe(404);
});

test("a custom transform's script becomes input → custom_code → stage; attachments are kept on the flow and their node", async () => {
  const activityId = await transformActivity({ filename: 't.py', content: CODE, sha256: 'abc' });
  const res = await save(activityId, {
    workflow_name: 'Keep rows',
    timeout_seconds: 42,
    attachments: [{ name: 'readme', node_id: 'custom_code' }, { name: 'flow-level' }],
  });
  expect(res.response.status).toBe(200);
  expect(Object.keys(res.data!).sort()).toEqual(['total_nodes', 'workflow_id', 'workflow_name', 'workflow_url']);
  const flow = await api.GET('/api/public/workflows/{workflow_id}', { params: { path: { workflow_id: res.data!.workflow_id } } });
  expect(flow.data).toMatchObject({ name: 'Keep rows', total_nodes: 3, catalog_id: catalogId, source_activity_id: activityId, recent_runs: [] });
  expect(flow.data!.nodes).toEqual([
    { id: 'input', type: 'input', config: {} },
    { id: 'custom_code', type: 'custom_code', config: { python_code: CODE, timeout_seconds: 42 }, attachments: [{ name: 'readme', node_id: 'custom_code' }] },
    { id: 'stage', type: 'stage', config: { catalog_id: catalogId } },
  ]);
  expect(flow.data!.attachments).toHaveLength(2);
});

test('the list searches name and description case-insensitively and pages with limit/offset', async () => {
  const tag = `tag${Date.now()}`;
  const activityId = await transformActivity({ filename: 't.py', content: CODE });
  for (let i = 0; i < 3; i++)
    expect((await save(activityId, { workflow_name: `${tag} flow ${i}`, workflow_description: i === 0 ? 'THE FIRST' : null })).response.status).toBe(200);
  const page = await listFlows({ search: tag.toUpperCase(), limit: 2, offset: 2 });
  expect(page.response.status).toBe(200);
  expect(page.data).toMatchObject({ total: 3, page: 2, page_size: 2 });
  expect(page.data!.workflows.map((w) => w.name)).toEqual([`${tag} flow 0`]);
  expect(Object.keys(page.data!.workflows[0]).sort()).toEqual(['created_at', 'description', 'id', 'name', 'total_nodes', 'updated_at', 'workflow_url']);
  const byDescription = await listFlows({ search: 'the first' });
  expect(byDescription.data!.workflows.map((w) => w.name)).toContain(`${tag} flow 0`);
  const wildcard = await listFlows({ search: `${tag}%` });
  expect(wildcard.data!.total).toBe(0);
  expect((await listFlows({ search: tag }, other.auth)).data!.total).toBe(0);
  expect((await listFlows({ limit: 101 })).response.status).toBe(422);
});

test('execute stores the run, its nodes and its input; the poll shows it running; cancel_existing cancels the older run', async () => {
  const knex = testKnex();
  const activityId = await transformActivity({ filename: 't.py', content: CODE });
  const { workflow_id: flowId } = (await save(activityId, { workflow_name: 'Stored run' })).data!;
  const empty = await execute(flowId, { input: [] });
  expect(empty.response.status).toBe(422);
  // Input rows that are no objects: the client's types refuse them.
  expect(
    (
      await request(server)
        .post(`/api/public/workflows/${flowId}/execute`)
        .set(org.auth)
        .send({ input: [1, 2] })
    ).status,
  ).toBe(422);
  expect((await execute(flowId, { input: [{ a: 1 }] }, other.auth)).response.status).toBe(403);
  expect((await execute('nope', { input: [{ a: 1 }] })).response.status).toBe(404);

  const first = await execute(flowId, { input: [{ sku: 'a' }, { sku: 'b' }] });
  expect(first.response.status).toBe(200);
  const runId = first.data!.workflow_run_id;
  expect(first.data).toMatchObject({
    workflow_id: flowId,
    workflow_name: 'Stored run',
    status: 'running',
    total_nodes: 3,
    poll_url: `/api/public/workflows/runs/${runId}`,
  });
  const rows = await knex('flow_run_rows').where({ run_id: runId }).orderBy('row_index');
  expect(rows.map((r) => [r.node_id, r.row_index, r.data])).toEqual([
    ['input', 0, { sku: 'a' }],
    ['input', 1, { sku: 'b' }],
  ]);
  const poll = await pollRun(runId);
  expect(poll.response.status).toBe(200);
  expect(poll.data).toMatchObject({ status: 'running', results: null, node_results: null, completed_at: null, current_step: 'custom_code' });
  expect(poll.data!.progress).toBeCloseTo(1 / 3);
  expect((await pollRun(runId, other.auth)).response.status).toBe(403);
  expect((await pollRun('00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
  expect((await pollRun(runId, org.auth, { page_size: 0 })).response.status).toBe(422);

  const second = await execute(flowId, { input: [{ sku: 'c' }], cancel_existing: true });
  expect(second.response.status).toBe(200);
  const secondId = second.data!.workflow_run_id;
  expect((await knex('flow_runs').where('id', runId).first()).status).toBe('cancelled');
  expect((await knex('flow_runs').where('id', secondId).first()).status).toBe('running');
  const recent = await api.GET('/api/public/workflows/{workflow_id}', { params: { path: { workflow_id: flowId } } });
  expect(recent.data!.recent_runs.map((r) => [r.workflow_run_id, r.status])).toEqual([
    [secondId, 'running'],
    [runId, 'cancelled'],
  ]);
});

test('a retried execute whose first attempt stored its run and died before its answer was stored answers that run, cancelling and storing nothing', async () => {
  const knex = testKnex();
  const activityId = await transformActivity({ filename: 't.py', content: CODE });
  const { workflow_id: flowId } = (await save(activityId, { workflow_name: 'Retried run' })).data!;
  const body: ExecuteBody = { input: [{ sku: 'a' }], cancel_existing: true };
  const send = () =>
    typedClient(server, org.auth).POST('/api/public/workflows/{workflow_id}/execute', {
      params: { path: { workflow_id: flowId } },
      body,
      headers: { 'Idempotency-Key': 'execute-crash-1' },
    });
  const first = await send();
  expect(first.response.status).toBe(200);
  const runId = first.data!.workflow_run_id;
  expect(runId).toBe(await idempotentIdOf(knex, org.organizationId, 'execute-crash-1'));
  await loseAnswer(knex, org.organizationId, 'execute-crash-1');
  const retry = await send();
  expect(retry.response.status).toBe(200);
  expect(retry.data!.workflow_run_id).toBe(runId);
  // One run, still running: the retry's cancel_existing did not cancel its own first attempt.
  expect(await knex('flow_runs').where({ flow_id: flowId }).select('id', 'status')).toEqual([{ id: runId, status: 'running' }]);
});

test('the flow routes are in the OpenAPI document', async () => {
  const doc = await request(server).get('/api/openapi.json');
  const paths = Object.keys(doc.body.paths);
  for (const p of [
    '/api/public/catalogs/{catalog_id}/activities/{activity_id}/save-workflow',
    '/api/public/workflows',
    '/api/public/workflows/{workflow_id}',
    '/api/public/workflows/{workflow_id}/execute',
    '/api/public/workflows/runs/{workflow_run_id}',
  ])
    expect(paths).toContain(p);
});
