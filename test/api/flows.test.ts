/**
 * Flow routes without Temporal (the runner accepts starts and runs nothing): save-workflow's
 * refusals and node shapes (G15), the list's search and paging, execute's stored run, input
 * rows and `cancel_existing`, the poll of a running run, and 404 / 403 / 422 answers. The runs
 * themselves are test/workflows/flow-run.test.ts.
 */
import request from 'supertest';
import { acceptingJobs, testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

const app = testApp(acceptingJobs).callback();
const CODE = 'def transform(rows):\n    return rows\n';

let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;

beforeAll(async () => {
  org = await createTestOrg('flow routes');
  other = await createTestOrg('flow routes, other');
  catalogId = await createTestCatalog(org.organizationId);
});

afterAll(closeTestKnex);

async function transformActivity(script: Record<string, unknown> | null): Promise<string> {
  const res = await request(app)
    .post(`/api/public/catalogs/${catalogId}/activities/custom-transform`)
    .set(org.auth)
    .send({ activity_message: 'a transform', ...(script ? { script } : {}) });
  expect(res.status).toBe(200);
  return res.body.activity_id;
}

function save(activityId: string, body: Record<string, unknown>, auth = org.auth, catalog = catalogId): request.Test {
  return request(app).post(`/api/public/catalogs/${catalog}/activities/${activityId}/save-workflow`).set(auth).send(body);
}

test('save-workflow refuses what cannot become a flow, with 422 detail, 404 and 403', async () => {
  const noScript = await transformActivity(null);
  const missing = await save(noScript, { workflow_name: 'x' });
  expect(missing.status).toBe(422);
  expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'python_code'], type: 'missing' });
  const noTransform = await save(noScript, { workflow_name: 'x', python_code: 'def main(rows):\n    return rows\n' });
  expect(noTransform.status).toBe(422);
  expect(noTransform.body.detail[0].msg).toMatch(/def transform/);
  for (const timeout of [0, 1801, 'soon']) expect((await save(noScript, { workflow_name: 'x', python_code: CODE, timeout_seconds: timeout })).status).toBe(422);
  expect((await save(noScript, { python_code: CODE })).status).toBe(422);
  expect((await save(noScript, { workflow_name: 'x', python_code: CODE, unknown: 1 })).status).toBe(422);
  expect((await save('00000000-0000-4000-8000-000000000000', { workflow_name: 'x', python_code: CODE })).status).toBe(404);
  expect((await save(noScript, { workflow_name: 'x', python_code: CODE }, other.auth)).status).toBe(403);
  const otherCatalog = await createTestCatalog(org.organizationId);
  expect((await save(noScript, { workflow_name: 'x', python_code: CODE }, org.auth, otherCatalog)).status).toBe(404);
});

test("a custom transform's script becomes input → custom_code → stage; attachments are kept on the flow and their node", async () => {
  const activityId = await transformActivity({ filename: 't.py', content: CODE, sha256: 'abc' });
  const res = await save(activityId, {
    workflow_name: 'Keep rows',
    timeout_seconds: 42,
    attachments: [{ name: 'readme', node_id: 'custom_code' }, { name: 'flow-level' }],
  });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['total_nodes', 'workflow_id', 'workflow_name', 'workflow_url']);
  const flow = await request(app).get(`/api/public/workflows/${res.body.workflow_id}`).set(org.auth);
  expect(flow.body).toMatchObject({ name: 'Keep rows', total_nodes: 3, catalog_id: catalogId, source_activity_id: activityId, recent_runs: [] });
  expect(flow.body.nodes).toEqual([
    { id: 'input', type: 'input', config: {} },
    { id: 'custom_code', type: 'custom_code', config: { python_code: CODE, timeout_seconds: 42 }, attachments: [{ name: 'readme', node_id: 'custom_code' }] },
    { id: 'stage', type: 'stage', config: { catalog_id: catalogId } },
  ]);
  expect(flow.body.attachments).toHaveLength(2);
});

test('the list searches name and description case-insensitively and pages with limit/offset', async () => {
  const tag = `tag${Date.now()}`;
  const activityId = await transformActivity({ filename: 't.py', content: CODE });
  for (let i = 0; i < 3; i++)
    expect((await save(activityId, { workflow_name: `${tag} flow ${i}`, workflow_description: i === 0 ? 'THE FIRST' : null })).status).toBe(200);
  const page = await request(app).get(`/api/public/workflows?search=${tag.toUpperCase()}&limit=2&offset=2`).set(org.auth);
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ total: 3, page: 2, page_size: 2 });
  expect(page.body.workflows.map((w: { name: string }) => w.name)).toEqual([`${tag} flow 0`]);
  expect(Object.keys(page.body.workflows[0]).sort()).toEqual(['created_at', 'description', 'id', 'name', 'total_nodes', 'updated_at', 'workflow_url']);
  const byDescription = await request(app).get('/api/public/workflows?search=the%20first').set(org.auth);
  expect(byDescription.body.workflows.map((w: { name: string }) => w.name)).toContain(`${tag} flow 0`);
  const wildcard = await request(app).get(`/api/public/workflows?search=${tag}%25`).set(org.auth);
  expect(wildcard.body.total).toBe(0);
  expect((await request(app).get(`/api/public/workflows?search=${tag}`).set(other.auth)).body.total).toBe(0);
  expect((await request(app).get('/api/public/workflows?limit=101').set(org.auth)).status).toBe(422);
});

test('execute stores the run, its nodes and its input; the poll shows it running; cancel_existing cancels the older run', async () => {
  const knex = testKnex();
  const activityId = await transformActivity({ filename: 't.py', content: CODE });
  const { workflow_id: flowId } = (await save(activityId, { workflow_name: 'Stored run' })).body;
  const empty = await request(app).post(`/api/public/workflows/${flowId}/execute`).set(org.auth).send({ input: [] });
  expect(empty.status).toBe(422);
  expect(
    (
      await request(app)
        .post(`/api/public/workflows/${flowId}/execute`)
        .set(org.auth)
        .send({ input: [1, 2] })
    ).status,
  ).toBe(422);
  expect(
    (
      await request(app)
        .post(`/api/public/workflows/${flowId}/execute`)
        .set(other.auth)
        .send({ input: [{ a: 1 }] })
    ).status,
  ).toBe(403);
  expect(
    (
      await request(app)
        .post('/api/public/workflows/nope/execute')
        .set(org.auth)
        .send({ input: [{ a: 1 }] })
    ).status,
  ).toBe(404);

  const first = await request(app)
    .post(`/api/public/workflows/${flowId}/execute`)
    .set(org.auth)
    .send({ input: [{ sku: 'a' }, { sku: 'b' }] });
  expect(first.status).toBe(200);
  const runId = first.body.workflow_run_id;
  expect(first.body).toMatchObject({
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
  const poll = await request(app).get(`/api/public/workflows/runs/${runId}`).set(org.auth);
  expect(poll.status).toBe(200);
  expect(poll.body).toMatchObject({ status: 'running', results: null, node_results: null, completed_at: null, current_step: 'custom_code' });
  expect(poll.body.progress).toBeCloseTo(1 / 3);
  expect((await request(app).get(`/api/public/workflows/runs/${runId}`).set(other.auth)).status).toBe(403);
  expect((await request(app).get('/api/public/workflows/runs/00000000-0000-4000-8000-000000000000').set(org.auth)).status).toBe(404);
  expect((await request(app).get(`/api/public/workflows/runs/${runId}?page_size=0`).set(org.auth)).status).toBe(422);

  const second = await request(app)
    .post(`/api/public/workflows/${flowId}/execute`)
    .set(org.auth)
    .send({ input: [{ sku: 'c' }], cancel_existing: true });
  expect(second.status).toBe(200);
  expect((await knex('flow_runs').where('id', runId).first()).status).toBe('cancelled');
  expect((await knex('flow_runs').where('id', second.body.workflow_run_id).first()).status).toBe('running');
  const recent = await request(app).get(`/api/public/workflows/${flowId}`).set(org.auth);
  expect(recent.body.recent_runs.map((r: { workflow_run_id: string; status: string }) => [r.workflow_run_id, r.status])).toEqual([
    [second.body.workflow_run_id, 'running'],
    [runId, 'cancelled'],
  ]);
});

test('the flow routes are in the OpenAPI document', async () => {
  const doc = await request(app).get('/api/openapi.json');
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
