/**
 * Brands read from an item's own text, through `POST /api/public/enrich` (sync, `web_search:
 * false`) → PostgreSQL → a real Temporal dev server → the worker's real engine
 * (docs/enrich-options.md, "Brands read from the item's text"). A name's first word is no brand
 * value ("John" of "John Lewis & Partners Faux Fur Throw"): without catalog knowledge the answer
 * has no brand but a field issue and a low-confidence candidate; a job on a catalog whose items
 * already carry the brand "John Lewis & Partners" gets that brand whole.
 */
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { createEngine } from '../../src/enrichment';
import { newId } from '../../src/lib/ids';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { noResearch } from '../helpers/no-research';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { bodyOf, EnrichBody } from '../helpers/wire';

const TASK_QUEUE = 'test-api-enrich-text-brand';
const NAME = 'John Lewis & Partners Faux Fur Throw';
const brand = { name: 'brand', type: 'string', description: 'Brand' };
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  env = await startTestTemporal();
  // web_search: false never searches or fetches: providers that refuse make any attempt fail the row.
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: createEngine(noResearch('web_search: false')) });
  app = testApiFor(env, TASK_QUEUE);
  org = await createTestOrg('enrich text brand');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

/** A synchronous `web_search: false` enrichment of `body`; asserts a completed job and returns its answer. */
async function enrich(body: Record<string, unknown>): Promise<EnrichBody> {
  const res = await request(app)
    .post('/api/public/enrich')
    .set(org.auth)
    .send({ web_search: false, ...body });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  return bodyOf<EnrichBody>(res);
}

it('gives no brand "John" from the name alone: a field issue and a LOW candidate instead', async () => {
  const body = await enrich({ output_schema: [brand], items: [{ name: NAME }], low_confidence: { enabled: true } });
  const [result] = body.results;
  expect(result.after_data.brand).toBeUndefined();
  expect(result.after_data.sources.brand).toBeUndefined();
  expect(result.review_info.field_issues).toContainEqual({
    field: 'brand',
    message: 'Not kept "John": a brand guessed from the item\'s name, which no catalog item or page states.',
  });
  expect(result.low_confidence_candidates).toContainEqual(
    expect.objectContaining({ name: 'brand', scope: 'field', candidate_value: 'John', confidence: 'LOW', sources: ['INPUT:name'] }),
  );
  // Without low-confidence candidates asked for, the guess is no value either (it was "John" before the rule).
  const plain = (await enrich({ output_schema: [brand], items: [{ name: NAME }] })).results[0]!;
  expect(plain.after_data.brand).toBeUndefined();
  expect(plain.review_info.field_issues).toEqual([
    { field: 'brand', message: 'Not kept "John": a brand guessed from the item\'s name, which no catalog item or page states.' },
  ]);
}, 60_000);

it('gives "John Lewis & Partners" on a catalog whose items already have that brand', async () => {
  const catalogId = await createTestCatalog(org.organizationId, {
    schema_definition: { type: 'object', properties: { sku: { type: 'string' }, name: { type: 'string' }, brand: { type: 'string' } } },
  });
  const base = Date.parse('2026-01-01T00:00:00Z');
  const items = [
    { sku: 'JL-1', name: 'John Lewis & Partners Cotton Bath Towel', brand: 'John Lewis & Partners' },
    { sku: 'JL-2', name: 'John Lewis & Partners Wool Blanket, Grey', brand: 'John Lewis & Partners' },
    { sku: 'OT-1', name: 'Dunelm Velvet Cushion', brand: 'Dunelm' },
  ];
  await testKnex()('catalog_items').insert(
    items.map((data, i) => ({ id: newId(), catalog_id: catalogId, business_key: data.sku, created_at: new Date(base + i * 1000), data })),
  );
  const body = await enrich({ catalog_id: catalogId, output_schema: [brand], items: [{ sku: 'JL-9', name: NAME }] });
  const [result] = body.results;
  expect(result.after_data.brand).toBe('John Lewis & Partners');
  expect(result.after_data.sources.brand).toEqual(['INPUT:name']);
  expect(result.review_info.field_methods.brand).toBe('text');
  expect(result.review_info.field_issues).toEqual([]);
}, 120_000);
