/**
 * Capabilities over the API (src/services/capabilities.ts; docs/configuration.md, "Capabilities"),
 * with bubblewrap absent: the API runs with `PYTHON_SANDBOX_BWRAP` at a path that does not exist.
 * `/readyz` lists `python_flows` off with the reason while its readiness still depends on
 * PostgreSQL and Temporal only; running or saving a flow with a custom_code node is refused at once
 * with a 503 naming `python_flows`, and nothing is stored. The same flow runs on an API whose
 * sandbox programs are there (the set-up installs them), so the refusal is the capability's.
 */
import type { Server } from 'node:http';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { FlowRun } from '../../src/models/flow-run';
import { Flow } from '../../src/models/flow';
import { newId } from '../../src/lib/ids';
import { ReviewActivity } from '../../src/models/review-activity';
import { saveCodeFlow } from '../fixtures/flows';
import { acceptingJobs, testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { scopeOf } from '../helpers/review-apply';

const MISSING_BWRAP = '/nonexistent/capabilities-test/bwrap';
const CODE = 'def transform(rows):\n    return rows\n';

let withoutBwrap: Server;
let withSandbox: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;

beforeAll(async () => {
  const config = loadConfig({ ...process.env, PYTHON_SANDBOX_BWRAP: MISSING_BWRAP });
  withoutBwrap = await listenTestApp(createApp({ config, knex: testKnex(), jobRunner: acceptingJobs }));
  withSandbox = await listenTestApp(testApp(acceptingJobs));
  org = await createTestOrg('capabilities');
  catalogId = await createTestCatalog(org.organizationId);
});

afterAll(async () => {
  await closeServer(withoutBwrap);
  await closeServer(withSandbox);
  await closeTestKnex();
});

test('/readyz lists every capability, python_flows off naming the missing bubblewrap, and stays ready', async () => {
  const res = await request(withoutBwrap).get('/readyz');
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('ready');
  expect(Object.keys(res.body.capabilities).sort()).toEqual(['blob_store', 'item_urls', 'llm', 'python_flows', 'rendering', 'research']);
  expect(res.body.capabilities.python_flows).toEqual({ state: 'off', reason: `bubblewrap missing at ${MISSING_BWRAP}` });
  for (const c of Object.values(res.body.capabilities) as Array<{ state: string; reason: string }>) {
    expect(['on', 'off']).toContain(c.state);
    expect(c.reason.length).toBeGreaterThan(0);
  }
  // With the programs there (test/setup/prepare.ts installs them), the same report says on.
  const ok = await request(withSandbox).get('/readyz');
  expect(ok.body.capabilities.python_flows.state).toBe('on');
});

test('running a flow with a custom_code node is refused at once with 503 naming python_flows; nothing is stored', async () => {
  const flow = await saveCodeFlow(testKnex(), scopeOf(org.organizationId), catalogId, CODE, 'refused when off', 60);
  const refused = await request(withoutBwrap)
    .post(`/api/public/workflows/${flow.id}/execute`)
    .set(org.auth)
    .send({ input: [{ sku: 'a' }] });
  expect(refused.status).toBe(503);
  expect(refused.body.detail).toMatch(
    /^python_flows is off \(bubblewrap missing at \/nonexistent\/capabilities-test\/bwrap\): this flow has a custom_code node/,
  );
  expect(await FlowRun.query(testKnex()).where('flow_id', flow.id).resultSize()).toBe(0);

  const accepted = await request(withSandbox)
    .post(`/api/public/workflows/${flow.id}/execute`)
    .set(org.auth)
    .send({ input: [{ sku: 'a' }] });
  expect(accepted.status).toBe(200);
  expect(await FlowRun.query(testKnex()).where('flow_id', flow.id).resultSize()).toBe(1);
});

test('saving an activity as a flow with a custom_code node is refused with 503 naming python_flows', async () => {
  const activity = await ReviewActivity.query(testKnex()).insertAndFetch({
    id: newId(),
    organization_id: org.organizationId,
    catalog_id: catalogId,
    type: 'custom_transform',
    status: 'pending_review',
    description: 'a transform',
    metadata: { script: { filename: 'transform.py', content: CODE } },
  });
  const path = `/api/public/catalogs/${catalogId}/activities/${activity.id}/save-workflow`;
  const refused = await request(withoutBwrap).post(path).set(org.auth).send({ workflow_name: 'refused' });
  expect(refused.status).toBe(503);
  expect(refused.body.detail).toMatch(/^python_flows is off \(bubblewrap missing at .*\): the flow has a custom_code node/);
  expect(await Flow.query(testKnex()).where({ organization_id: org.organizationId, name: 'refused' }).resultSize()).toBe(0);
  expect((await request(withSandbox).post(path).set(org.auth).send({ workflow_name: 'saved' })).status).toBe(200);
});

test('the OpenAPI document lists the 503 of the flow routes that need python_flows', async () => {
  const doc = (await request(withSandbox).get('/api/openapi.json')).body;
  expect(doc.paths['/api/public/workflows/{workflow_id}/execute'].post.responses['503'].description).toMatch(/python_flows is off/);
  expect(doc.paths['/api/public/catalogs/{catalog_id}/activities/{activity_id}/save-workflow'].post.responses['503'].description).toMatch(/python_flows/);
});
