// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Knowledge base end to end: multipart `knowledge_base_files` are hosted, listed as SOURCE_X in
 * `knowledge_base_sources`, converted once per job, and read by the worker's engine, whose
 * values cite SOURCE_X (docs/api-enrichment.md "Extra request fields"). Real HTTP app, PostgreSQL, Temporal dev server
 * and deterministic engine.
 */
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createEngineFromConfig } from '../../src/enrichment';
import { SHARED_DATA } from '../helpers/data';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-e2e-knowledge-base';
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let auth: { Authorization: string };

beforeAll(async () => {
  const config = { ...loadConfig(), researchArchives: [path.join(SHARED_DATA, 'zyte-product-extraction')] };
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: createEngineFromConfig(config) });
  app = testApiFor(env, TASK_QUEUE, { config });
  auth = (await createTestOrg('knowledge base')).auth;
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

test('values from an uploaded CSV datasheet cite SOURCE_1, which points at the hosted copy', async () => {
  const csv = 'sku,name,material,weight_kg\nAW-3000,Acme Widget 3000,anodised aluminium,1.25\nBX-10,Other Box,cardboard,0.2\n';
  const items = [
    { name: 'Acme Widget 3000', sku: 'AW-3000' },
    { name: 'Unrelated Gadget', sku: 'ZZ-1' },
  ];
  const requestJson = {
    web_search: false,
    async_mode: true,
    output_schema: [
      { name: 'material', type: 'string', description: 'Material of the product' },
      { name: 'weight_kg', type: 'number', description: 'Weight in kilograms' },
    ],
  };
  const created = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .field('request_json', JSON.stringify(requestJson))
    .attach('items_file', Buffer.from(JSON.stringify(items)), { filename: 'items.json', contentType: 'application/json' })
    .attach('knowledge_base_files', Buffer.from(csv), { filename: 'datasheet.csv', contentType: 'text/csv' });
  expect(created.status).toBe(200);
  expect(created.body.knowledge_base_enabled).toBe(true);
  const hosted = created.body.knowledge_base_sources.SOURCE_1;
  expect(hosted).toMatch(/^http/);

  const done = await waitUntil(
    async () => {
      const poll = await request(app).get(`/api/public/enrich/${created.body.job_id}`).set(auth);
      return poll.body.status === 'completed' ? poll.body : null;
    },
    'the knowledge-base job',
    60_000,
  );
  const [widget, unrelated] = done.results;
  expect(widget.after_data.material).toBe('anodised aluminium');
  expect(widget.after_data.weight_kg).toBe(1.25);
  expect(widget.after_data.sources.material).toEqual(['SOURCE_1']);
  expect(widget.after_data.source_explanations.material).toMatch(/datasheet\.csv/);
  expect(widget.review_info.field_methods.material).toBe('knowledge_base');
  // The other item matches no row of the datasheet: nothing is lent to it.
  expect(unrelated.after_data.material).toBeUndefined();

  // The hosted copy is the uploaded file, byte for byte.
  const file = await request(app).get(new URL(hosted).pathname).set(auth);
  expect(file.status).toBe(200);
  expect(Buffer.from(file.text ?? file.body).toString()).toBe(csv);
}, 120_000);
