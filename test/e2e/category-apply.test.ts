// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Categories reach the items: a `web_search: false` job with `catalog_id` and
 * `predict_taxonomy` stages the predicted `category_id` (and, unless
 * `predict_taxonomy_attributes` is false, the category's attribute values) in `after_data`;
 * the review page shows the category as the node's path; approved and applied, they are read back from the item, and the catalog's schema gains a
 * `category_id` field (string, generated) once, as one new schema version. Also the real Google
 * product taxonomy (5,595 nodes) inline in a request and as the catalog's taxonomy (its speed:
 * bench/taxonomy-classify.ts). Over HTTP →
 * PostgreSQL → a real Temporal dev server → the worker's real engine.
 */
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { createEngine } from '../../src/enrichment';
import { readGoogleTaxonomy } from '../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../helpers/data';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { seedItems } from '../helpers/review-apply';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { noResearch } from '../helpers/no-research';

const TASK_QUEUE = 'test-e2e-category-apply';
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;

/** A small taxonomy: the cookware node declares a `material` attribute with its values. */
const TAXONOMY = {
  name: 'shop',
  nodes: {
    home: { name: 'Home & Garden', parent: null },
    kitchen: { name: 'Kitchen', parent: 'home' },
    cookware: {
      name: 'Cookware',
      parent: 'kitchen',
      description: 'Pans, skillets, pots and woks',
      attributes: [{ name: 'material', type: 'string', values: ['Cast Iron', 'Stainless Steel', 'Copper'] }],
    },
    garden: { name: 'Garden', parent: 'home' },
    hoses: { name: 'Garden Hoses', parent: 'garden' },
    electronics: { name: 'Electronics', parent: null },
    phones: { name: 'Mobile Phones', parent: 'electronics' },
  },
};

const SCHEMA = { type: 'object', properties: { sku: { type: 'string' }, title: { type: 'string' } }, required: ['sku'] };

beforeAll(async () => {
  env = await startTestTemporal();
  // web_search: false never searches or fetches: providers that refuse are enough.
  const engine = createEngine(noResearch('web_search: false'));
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine });
  app = testApiFor(env, TASK_QUEUE, { applyTuning: { retry_initial_interval_s: 0.1, maximum_attempts: 2 } });
  org = await createTestOrg('category apply');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

interface StagedRow {
  id: string;
  row_index: number;
  after_data: Record<string, unknown>;
  source_data: Record<string, unknown>;
}

/** A catalog created through the API (schema `sku`, `title`), with `taxonomy` stored by `PUT …/taxonomy` when given. */
async function catalogOf(taxonomy?: Record<string, unknown>): Promise<string> {
  const created = await request(app)
    .post('/api/public/catalogs')
    .set(org.auth)
    .send({ name: `categories ${Date.now()}`, unique_id_field: 'sku', schema_definition: SCHEMA });
  expect(created.status).toBe(200);
  const catalogId = created.body.id as string;
  if (taxonomy) expect((await request(app).put(`/api/public/catalogs/${catalogId}/taxonomy`).set(org.auth).send(taxonomy)).status).toBe(200);
  return catalogId;
}

/** Runs a synchronous web_search: false job with predict_taxonomy on `catalogId`; returns its activity id. */
async function enrich(catalogId: string, items: Array<Record<string, unknown>>, body: Record<string, unknown> = {}): Promise<string> {
  const res = await request(app)
    .post('/api/public/enrich')
    .set(org.auth)
    .send({
      catalog_id: catalogId,
      web_search: false,
      predict_taxonomy: true,
      output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }],
      items,
      ...body,
    });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  return res.body.job_id as string;
}

/** Staged changes of an activity in row order. */
async function stagedOf(activityId: string): Promise<StagedRow[]> {
  return testKnex()('staged_changes').where('activity_id', activityId).orderBy('row_index').select('id', 'row_index', 'after_data', 'source_data');
}

/** Approves every change of the activity, applies it and waits until the apply completed. */
async function approveAndApply(activityId: string): Promise<Record<string, unknown>> {
  const review = await request(app).post(`/api/public/activities/${activityId}/staged-changes/bulk-review`).set(org.auth).send({ action: 'approve_all' });
  expect(review.status).toBe(200);
  const apply = await request(app).post(`/api/public/activities/${activityId}/apply`).set(org.auth).send({});
  expect(apply.status).toBe(202);
  const done = await waitUntil(async () => {
    const row = await testKnex()('review_activities').where('id', activityId).first('status', 'apply_result', 'apply_progress');
    return row.status === 'completed' || row.apply_progress?.phase === 'failed' ? row : null;
  }, `apply of ${activityId}`);
  expect(done).toEqual(expect.objectContaining({ status: 'completed' }));
  return done.apply_result as Record<string, unknown>;
}

/** The review dashboard's page of an activity, signed in with the organization's API key. */
async function reviewPage(catalogId: string, activityId: string): Promise<string> {
  const path = `/dashboard/catalogs/${catalogId}/activities/${activityId}`;
  const login = await request(app).post('/dashboard/login').type('form').send({ credential: org.apiKey, next: path });
  expect(login.status).toBe(303);
  const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).find((c) => c.startsWith('catalog_dashboard_session='));
  const page = await request(app).get(path).set('Cookie', cookie!.split(';')[0]);
  expect(page.status).toBe(200);
  return page.text;
}

/** The schema versions of a catalog, oldest first. */
async function versionsOf(catalogId: string): Promise<Array<{ version: string; schema_definition: { properties: Record<string, unknown> } }>> {
  return testKnex()('catalog_schemas').where('catalog_id', catalogId).orderBy('created_at').select('version', 'schema_definition');
}

/** An item read back through the items API. */
async function itemOf(catalogId: string, itemId: string): Promise<Record<string, unknown>> {
  const res = await request(app).get(`/api/public/catalogs/${catalogId}/items/${itemId}`).set(org.auth);
  expect(res.status).toBe(200);
  return (res.body.data ?? res.body) as Record<string, unknown>;
}

/** A dashboard session cookie and the CSRF token of one of its pages (the form posts of the console). */
async function consoleSession(pagePath: string): Promise<{ cookie: string; csrf: string }> {
  const login = await request(app).post('/dashboard/login').type('form').send({ credential: org.apiKey, next: pagePath });
  expect(login.status).toBe(303);
  const cookie = ([] as string[])
    .concat(login.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('catalog_dashboard_session='))!
    .split(';')[0];
  const page = await request(app).get(pagePath).set('Cookie', cookie);
  expect(page.status).toBe(200);
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1];
  expect(csrf).toBeDefined();
  return { cookie, csrf: csrf! };
}

describe('the console\'s bulk "classify"', () => {
  it("classifies the grid's selection from the items' own data: a job of the catalog's items, category_id staged against each item", async () => {
    const catalogId = await catalogOf(TAXONOMY);
    const ids = await seedItems(testKnex(), org.organizationId, catalogId, [
      { sku: 'PAN-9', title: 'Lodge Cast Iron Skillet 8 inch' },
      { sku: 'HOSE-9', title: 'Flexzilla Garden Hose 25 ft' },
      { sku: 'PHONE-9', title: 'Acme X3 Mobile Phone 256 GB' },
    ]);
    const grid = `/dashboard/catalogs/${catalogId}/items`;
    const { cookie, csrf } = await consoleSession(`${grid}?q=garden`);
    // The selection: the grid's search "garden" (the hose only), classification only.
    const started = await request(app)
      .post(`${grid}/bulk/enrich`)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: csrf, query: 'q=garden', classify: '1' });
    expect(started.status).toBe(303);
    const jobId = /fill-gaps\/([0-9a-f-]{36})$/.exec(started.headers.location)?.[1] as string;
    const job = await waitUntil(async () => {
      const row = await testKnex()('enrichment_jobs').where({ id: jobId }).first('status', 'total_items', 'config');
      return row.status === 'running' ? null : row;
    }, 'the classify job');
    expect(job).toMatchObject({ status: 'completed', total_items: 1 });
    expect(job.config).toMatchObject({ source_catalog_id: catalogId, catalog_id: catalogId, predict_taxonomy: true, web_search: false });
    const [hose] = await stagedOf(jobId);
    expect(hose.after_data).toMatchObject({ sku: 'HOSE-9', category_id: 'hoses' });
    const change = await testKnex()('staged_changes').where({ id: hose.id }).first('catalog_item_id', 'is_new_item');
    expect(change).toEqual({ catalog_item_id: ids.get('HOSE-9'), is_new_item: false });
    await approveAndApply(jobId);
    expect(await itemOf(catalogId, ids.get('HOSE-9') as string)).toEqual(expect.objectContaining({ category_id: 'hoses' }));
    expect(await itemOf(catalogId, ids.get('PAN-9') as string)).not.toHaveProperty('category_id');
  }, 120_000);
});

describe('predicted categories reach the items', () => {
  it('stages category_id and attribute values in after_data; apply writes them and adds category_id to the schema once', async () => {
    const catalogId = await catalogOf(TAXONOMY);
    const ids = await seedItems(testKnex(), org.organizationId, catalogId, [
      { sku: 'PAN-1', title: 'Lodge Cast Iron Skillet 10 inch' },
      { sku: 'HOSE-1', title: 'Flexzilla Garden Hose 50 ft' },
    ]);
    const activityId = await enrich(catalogId, [
      { sku: 'PAN-1', title: 'Lodge Cast Iron Skillet 10 inch' },
      { sku: 'HOSE-1', title: 'Flexzilla Garden Hose 50 ft' },
    ]);
    const [pan, hose] = await stagedOf(activityId);
    expect(pan.after_data.category_id).toBe('cookware');
    expect(pan.after_data.material).toBe('Cast Iron');
    expect(pan.source_data.category_id).toBe('cookware');
    expect(hose.after_data.category_id).toBe('hoses');
    expect(hose.after_data).not.toHaveProperty('material');

    // 1.0.0 as created, 1.1.0 with the taxonomy stored.
    // The review page shows the category change as the node's path.
    const page = await reviewPage(catalogId, activityId);
    expect(page).toContain('Home &amp; Garden &gt; Kitchen &gt; Cookware (cookware)');
    expect(page).toContain('Home &amp; Garden &gt; Garden &gt; Garden Hoses (hoses)');

    const before = await versionsOf(catalogId);
    expect(before.map((v) => v.schema_definition.properties)).not.toContainEqual(expect.objectContaining({ category_id: expect.anything() }));
    const result = await approveAndApply(activityId);
    expect(result.applied).toBe(2);
    const after = await versionsOf(catalogId);
    expect(after).toHaveLength(before.length + 1);
    const added = after[after.length - 1];
    expect(added.schema_definition.properties.category_id).toEqual(expect.objectContaining({ type: 'string' }));
    expect(result.new_schema_version).toBe(added.version);
    const info = await testKnex()('catalog_schemas').where({ catalog_id: catalogId, version: added.version }).first('fields_workflow_info');
    expect(
      (info.fields_workflow_info as Array<{ name?: string; field_name?: string; field_category: string }>).find(
        (f) => (f.name ?? f.field_name) === 'category_id',
      )?.field_category,
    ).toBe('generated');

    const panItem = await itemOf(catalogId, ids.get('PAN-1') as string);
    expect(panItem).toEqual(expect.objectContaining({ sku: 'PAN-1', category_id: 'cookware', material: 'Cast Iron' }));
    expect(await itemOf(catalogId, ids.get('HOSE-1') as string)).toEqual(expect.objectContaining({ category_id: 'hoses' }));

    // A second job and apply on the same catalog: the field exists, so no further schema version.
    const again = await enrich(catalogId, [{ sku: 'PHONE-1', title: 'Acme X2 Mobile Phone 128 GB' }]);
    expect((await stagedOf(again))[0].after_data.category_id).toBe('phones');
    await approveAndApply(again);
    expect(await versionsOf(catalogId)).toHaveLength(after.length);
  }, 120_000);

  it('leaves the attribute values out with predict_taxonomy_attributes: false', async () => {
    const catalogId = await catalogOf();
    const activityId = await enrich(catalogId, [{ sku: 'PAN-2', title: 'Lodge Cast Iron Skillet 12 inch' }], {
      taxonomy: TAXONOMY,
      predict_taxonomy_attributes: false,
    });
    const [pan] = await stagedOf(activityId);
    expect(pan.after_data.category_id).toBe('cookware');
    expect(pan.after_data).not.toHaveProperty('material');
    expect(pan.source_data).not.toHaveProperty('taxonomy_attributes');
  }, 120_000);

  it('classifies into the Google product taxonomy (5,595 nodes) inline in a request and as the catalog taxonomy', async () => {
    const google = readGoogleTaxonomy(path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt'));
    expect(Object.keys(google.nodes)).toHaveLength(5595);
    const items = [
      { sku: 'G-1', title: 'Oral-B Pro 1000 Electric Toothbrush, Rechargeable' },
      { sku: 'G-2', title: 'Persil ProClean Liquid Laundry Detergent, 100 Fl Oz' },
      { sku: 'G-3', title: 'Samsung Galaxy S21 Smartphone 128 GB' },
    ];
    const inline = await enrich(await catalogOf(), items, { taxonomy: google });
    const stored = await enrich(await catalogOf(google as unknown as Record<string, unknown>), items);
    for (const activityId of [inline, stored]) {
      const staged = await stagedOf(activityId);
      // Google ids: 527 … > Oral Care > Toothbrushes; 2754 … > Laundry Supplies > Laundry Detergent; 267 … > Telephony > Mobile Phones.
      expect(staged.map((s) => s.after_data.category_id)).toEqual(['527', '2754', '267']);
    }
  }, 180_000);

  it("learns from the catalog's categorised items: titles no node name explains get their category", async () => {
    const garden = {
      name: 'garden',
      nodes: {
        garden: { name: 'Garden', parent: null },
        pruning: { name: 'Pruning Tools', parent: 'garden' },
        watering: { name: 'Watering', parent: 'garden' },
        kitchen: { name: 'Kitchen', parent: null },
        knives: { name: 'Knives', parent: 'kitchen' },
      },
    };
    const fresh = [
      { sku: 'NEW-1', title: 'Felco 6 Secateurs, compact' },
      { sku: 'NEW-2', title: 'Gardena Oscillating Sprinkler Aquazoom' },
    ];
    // With examples: the catalog files secateurs under Pruning Tools and sprinklers under Watering.
    const learned = await catalogOf(garden);
    await seedItems(testKnex(), org.organizationId, learned, [
      { sku: 'OLD-1', title: 'Felco 2 Secateurs', category_id: 'pruning' },
      { sku: 'OLD-2', title: 'Okatsune Secateurs 103', category_id: 'pruning' },
      { sku: 'OLD-3', title: 'Gardena Pulsating Sprinkler', category_id: 'watering' },
      { sku: 'OLD-4', title: 'Rain Bird Sprinkler Head', category_id: 'watering' },
    ]);
    const withExamples = await stagedOf(await enrich(learned, fresh));
    expect(withExamples.map((s) => s.after_data.category_id)).toEqual(['pruning', 'watering']);
    // The same items against the same taxonomy, with no categorised items: no node name says secateurs or sprinkler.
    const bare = await stagedOf(await enrich(await catalogOf(garden), fresh));
    expect(bare.map((s) => s.after_data.category_id ?? null)).toEqual([null, null]);
  }, 120_000);
});
