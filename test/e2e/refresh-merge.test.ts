// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Refresh and merge end to end (docs/api-enrichment.md "Refresh and merge") over HTTP
 * → PostgreSQL → a real Temporal dev server → the worker's activities. The real engine reads the
 * offline archive of `../shared/data/zyte-product-extraction` for a catalog that already holds
 * stale prices and tag lists; a fake engine (echo) stands in where only staging is under test
 * (a CSV `items_file` typed by the catalog schema).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig } from '../../src/config';
import { createEngineFromConfig } from '../../src/enrichment';
import { flagDuplicateValues } from '../../src/services/enrichment/rows/unique';
import { createTestCatalog } from '../helpers/catalogs';
import { SHARED_DATA, subsetArchive } from '../helpers/data';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { bodyOf, EnrichBody, StagedChangeListBody } from '../helpers/wire';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const OTTO = 'https://www.otto.de/p/kaercher-hochdruckreiniger-k-3-full-control-848068924/#variationId=836232854';
const BESTBUY = 'https://www.bestbuy.ca/en-ca/product/google-nest-hello-wi-fi-video-doorbell-black-white/12222651';
const JOHNLEWIS = 'https://www.johnlewis.com/google-nest-mini-hands-free-smart-speaker-2nd-gen/chalk/p4781720';

let env: TestWorkflowEnvironment;
const workers: RunningTestWorker[] = [];
let realApp: ReturnType<typeof testApiFor>;
let fakeApp: ReturnType<typeof testApiFor>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let dataDir: string;

beforeAll(async () => {
  // Only the three pages the items are researched on: parsing the whole archive on a cold cache took minutes on a loaded machine.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refresh-merge-'));
  const config = { ...loadConfig(), researchArchives: [subsetArchive(ZYTE, [OTTO, BESTBUY, JOHNLEWIS], dataDir)] };
  env = await startTestTemporal();
  const knex = testKnex();
  workers.push(await runTestWorker(env, { taskQueue: 'test-refresh-real', knex, engine: createEngineFromConfig(config) }));
  workers.push(await runTestWorker(env, { taskQueue: 'test-refresh-fake', knex, engine: fakeEngine() }));
  realApp = testApiFor(env, 'test-refresh-real', { config });
  fakeApp = testApiFor(env, 'test-refresh-fake', { config });
  org = await createTestOrg('refresh and merge');
}, 180_000);

afterAll(async () => {
  for (const w of workers) await w.stop();
  await env?.teardown();
  await closeTestKnex();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const CATALOG_SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    name: { type: 'string' },
    brand: { type: 'string' },
    price: { type: 'number' },
    color: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['sku'],
};

const OUTPUT = [
  { name: 'price', type: 'number', description: 'Current selling price' },
  { name: 'color', type: 'string', description: 'Colour of the product' },
  { name: 'brand', type: 'string', description: 'Brand of the product', unique: true },
  // The page's category trail, as tags (semantic_type names what the field holds).
  { name: 'tags', type: 'array', array_element_type: 'string', merge: true, semantic_type: 'category', description: 'Tags of the product' },
];

/** A staged change as listed, with the data columns this file reads. */
type Staged = StagedChangeListBody['items'][number] & { before_data: Record<string, unknown>; after_data: Record<string, unknown>; source_data: unknown };

/** The staged changes of a job's activity, in row order. */
async function stagedOf(jobId: string): Promise<Staged[]> {
  const res = await request(realApp).get(`/api/activities/${jobId}/staged-changes?page_size=50`).set(org.auth);
  expect(res.status).toBe(200);
  return (bodyOf<StagedChangeListBody>(res).items as Staged[]).sort((a, b) => a.row_index - b.row_index);
}

describe('a catalog with stale values, enriched against archived pages', () => {
  it('refreshes prices with their sources, unions tags with merge, keeps what research cannot find, flags unique duplicates', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: CATALOG_SCHEMA });
    const items = [
      { sku: 'K3', name: 'KÄRCHER Hochdruckreiniger K 3 Full Control', price: 99, color: 'gelb', tags: ['Garten'] },
      { sku: 'NH', name: 'Google Nest Hello Wi-Fi Video Doorbell - Black/White', brand: 'Google', price: 199, tags: ['Smart Home', 'Doorbell'] },
      { sku: 'NM', name: 'Google Nest Mini Hands-Free Smart Speaker, 2nd Gen, Chalk', brand: 'Google', price: 59 },
    ];
    const write = await request(realApp).post(`/api/public/catalogs/${catalogId}/items/bulk`).set(org.auth).send({ items });
    expect(write.status).toBe(200);
    const res = await request(realApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ catalog_id: catalogId, source_catalog_id: catalogId, output_schema: OUTPUT });
    expect(res.status).toBe(200);
    const body = bodyOf<EnrichBody>(res);
    expect(body).toMatchObject({ status: 'completed', successful: 3 });
    const [k3, nh, nm] = body.results;

    // Prices: the stale value is replaced by the page's, cited.
    expect([k3.after_data.price, k3.after_data.sources.price]).toEqual([119.01, [OTTO]]);
    expect([nh.after_data.price, nh.after_data.sources.price]).toEqual([229.99, [BESTBUY]]);
    expect(nm.after_data.sources.price).toEqual([JOHNLEWIS]);
    // Tags: the existing list first, the page's category trail added once.
    expect(k3.after_data.tags).toEqual(['Garten', 'Baumarkt > Reinigungsgeräte > Hochdruckreiniger']);
    expect(k3.after_data.sources.tags).toEqual(['INPUT:tags', OTTO]);
    expect(nh.after_data.tags).toEqual(['Smart Home', 'Doorbell', 'Smart Home > Security & Access > Smart Locks & Smart Door Bells']);
    // Nothing found for the colour: the item's value stays, cited as the input.
    expect([k3.after_data.color, k3.after_data.sources.color, k3.review_info.field_methods.color]).toEqual(['gelb', ['INPUT:color'], 'input']);

    // unique brand: the two Google rows are flagged for review, the other is not.
    expect(nh.after_data.brand).toBe('Google');
    expect(nm.after_data.brand).toBe('Google');
    expect(nh.review_info.flags).toContain('duplicate_value');
    expect(nh.review_info.field_issues).toContainEqual({ field: 'brand', message: 'Same value as row(s) 2 of this job (the field is unique).' });
    expect(nm.review_info.field_issues).toContainEqual({ field: 'brand', message: 'Same value as row(s) 1 of this job (the field is unique).' });
    expect(k3.review_info.flags).not.toContain('duplicate_value');
    // Flagging is idempotent (finalize may run twice): rows already flagged are left alone.
    expect(await flagDuplicateValues(testKnex(), body.job_id, ['brand'])).toBe(0);

    // The staged changes show before → after with the source, and carry the same review_info.
    const staged = await stagedOf(body.job_id);
    expect(staged[0]).toMatchObject({ before_data: { price: 99, tags: ['Garten'], color: 'gelb' }, after_data: { price: 119.01, color: 'gelb' } });
    expect(staged[0].source_data).toMatchObject({ sources: { price: [OTTO], color: ['INPUT:color'] } });
    expect(staged[1].review_info).toMatchObject({ flags: expect.arrayContaining(['duplicate_value']), field_confidence: expect.any(Object) });
    expect(staged[1].after_data.tags).toEqual(nh.after_data.tags);
  }, 120_000);

  it('never rewrites identity fields given only to find the product', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: CATALOG_SCHEMA });
    await request(realApp)
      .post(`/api/public/catalogs/${catalogId}/items/bulk`)
      .set(org.auth)
      .send({ items: [{ sku: 'K3', name: 'Kärcher K 3', price: 99, tags: ['Garten'] }] });
    // The request names the product the way the shop does; only price and tags are requested.
    const res = await request(realApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ catalog_id: catalogId, output_schema: [OUTPUT[0], OUTPUT[3]], items: [{ sku: 'K3', name: 'KÄRCHER Hochdruckreiniger K 3 Full Control' }] });
    expect(res.status).toBe(200);
    const [change] = await stagedOf(res.body.job_id);
    expect(change.before_data).toEqual({ sku: 'K3', name: 'Kärcher K 3', price: 99, tags: ['Garten'] });
    // name kept; price refreshed; the catalog's tags merged although the request's item had none.
    expect(change.after_data).toEqual({ sku: 'K3', name: 'Kärcher K 3', price: 119.01, tags: ['Garten', 'Baumarkt > Reinigungsgeräte > Hochdruckreiniger'] });
  }, 120_000);
});

describe('values keep their types, whoever staged them', () => {
  it('types a CSV items_file by the catalog schema before staging; a value that cannot be typed is an error change with the reason', async () => {
    const catalogId = await createTestCatalog(org.organizationId, {
      schema_definition: { ...CATALOG_SCHEMA, properties: { ...CATALOG_SCHEMA.properties, enriched: { type: 'boolean' } } },
    });
    const csv = 'sku,name,price,tags\r\nC-1,Lamp,7,"red\nblue"\r\nC-2,Chair,abc,oak\r\n';
    const res = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .field('request_json', JSON.stringify({ catalog_id: catalogId, output_schema: [{ name: 'enriched', type: 'boolean', description: 'enriched?' }] }))
      .attach('items_file', Buffer.from(csv), { filename: 'items.csv' });
    expect(res.status).toBe(200);
    const [good, bad] = await stagedOf(res.body.job_id);
    expect(good).toMatchObject({
      status: 'pending',
      is_new_item: true,
      after_data: { sku: 'C-1', name: 'Lamp', price: 7, tags: ['red', 'blue'], enriched: true },
    });
    expect(bad).toMatchObject({ status: 'error', error_reason: 'price: "abc" is not a number', after_data: { sku: 'C-2', price: 'abc', tags: ['oak'] } });
  }, 120_000);
});

describe('changes clients append: typed and shaped like the rest', () => {
  it('types values by the catalog schema, puts a flat sources map under sources, and makes an untypable value an error change', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: CATALOG_SCHEMA });
    const res = await request(realApp)
      .post(`/api/public/catalogs/${catalogId}/activities`)
      .set(org.auth)
      .send({
        type: 'custom_transform',
        description: 'prices from a supplier sheet',
        staged_changes: [
          { after_data: { sku: 'S-1', price: '7', tags: 'red|blue' }, source_data: { price: ['https://supplier.example/sheet'] } },
          { after_data: { sku: 'S-2', price: 'call us' } },
        ],
      });
    expect(res.status).toBe(200);
    const [good, bad] = await stagedOf(res.body.activity_id);
    expect(good).toMatchObject({
      status: 'pending',
      after_data: { sku: 'S-1', price: 7, tags: ['red', 'blue'] },
      source_data: { sources: { price: ['https://supplier.example/sheet'] } },
    });
    expect(bad).toMatchObject({ status: 'error', error_reason: 'price: "call us" is not a number' });
  });
});
