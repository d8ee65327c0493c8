/**
 * Fill the gaps for a channel over the API (docs/channels.md, "Fill the gaps for a channel"):
 * `POST /public/catalogs/{id}/channel-readiness/fill-gaps` on real PostgreSQL, its job started on a
 * real Temporal dev server (a worker with the test engine). A Google catalog whose feed maps
 * `color` by a template and leaves `mpn`, `gender` and `age_group` unmapped: the job's output
 * schema is the mapped fields of the missing attributes, its rows exactly the items missing (or
 * blocked by) one of them, and the other attributes are named with why; `attributes` and `limit`
 * narrow it; unknown channels and attributes are 422s naming the place, nothing fillable a 409, an
 * `Idempotency-Key` replays the first job.
 */
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { seedItems } from '../helpers/review-apply';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import type { ValidationErrorBody } from '../helpers/wire';

const TASK_QUEUE = 'test-api-channel-fill-gaps';
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: fakeEngine() });
  app = testApiFor(env, TASK_QUEUE);
  org = await createTestOrg('channel fill gaps');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

const FIELDS = ['sku', 'title', 'description', 'link', 'image_link', 'price', 'availability', 'brand', 'gtin', 'size', 'colour', 'category_id'];
const SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(FIELDS.map((f) => [f, { type: f === 'price' ? 'number' : 'string', description: `The item's ${f}` }])),
  required: ['sku'],
};

/** Google's clothing node (1604) makes color, size, gender and age_group needed. */
const TAXONOMY = {
  name: 'shop',
  nodes: {
    apparel: { name: 'Apparel & Accessories', parent: null, description: 'Google product taxonomy 166', attributes: [] },
    clothing: { name: 'Clothing', parent: 'apparel', description: 'Google product taxonomy 1604', attributes: [] },
    kitchen: { name: 'Kitchen', parent: null, attributes: [] },
  },
};

/** The feed's mapping: plain fields, `color` by a template, `condition` a constant; no mpn, gender, age_group. */
const MAPPING = {
  id: 'sku',
  title: 'title',
  description: 'description',
  link: 'link',
  image_link: 'image_link',
  price: 'price',
  availability: 'availability',
  brand: 'brand',
  gtin: 'gtin',
  size: 'size',
  color: { template: '{colour}' },
  condition: { value: 'new' },
};

/** An item Google accepts under the mapping (kitchen: no apparel attributes needed). */
const item = (sku: string, extra: Record<string, unknown> = {}) => ({
  sku,
  title: `Item ${sku}`,
  description: `Item ${sku}, described`,
  link: `https://shop.example/${sku}`,
  image_link: `https://shop.example/${sku}.jpg`,
  price: 12.5,
  availability: 'in_stock',
  brand: 'Acme',
  gtin: '4006381333931',
  category_id: 'kitchen',
  ...extra,
});

/**
 * A: ready. B: no GTIN, no brand (identifier_missing). C: GTIN but no brand (ready: Google needs
 * the GTIN only). D: a GTIN with a wrong check digit. E: clothing without size or colour. F:
 * clothing with a size but no colour (only unfillable attributes missing).
 */
async function gapCatalog(): Promise<{ catalogId: string; ids: Map<string, string> }> {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA, taxonomy: TAXONOMY });
  const ids = await seedItems(testKnex(), org.organizationId, catalogId, [
    item('A'),
    item('B', { gtin: null, brand: null }),
    item('C', { brand: null }),
    item('D', { gtin: '4006381333932' }),
    item('E', { category_id: 'clothing' }),
    item('F', { category_id: 'clothing', size: 'M' }),
  ]);
  const feed = await request(app)
    .post(`/api/public/catalogs/${catalogId}/feeds`)
    .set(org.auth)
    .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', currency: 'EUR', mapping: MAPPING });
  expect(feed.status).toBe(201);
  return { catalogId, ids };
}

const fillGaps = (catalogId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  request(app)
    .post(`/api/public/catalogs/${catalogId}/channel-readiness/fill-gaps`)
    .set(org.auth)
    .set(headers)
    .send({ channel: 'google_merchant_center', ...body });

/** The job's output fields and the catalog items of its rows (as sku), once it has finished. */
async function jobOf(jobId: string, ids: Map<string, string>): Promise<{ fields: string[]; skus: string[]; status: string }> {
  const job = await waitUntil(async () => {
    const row = await testKnex()('enrichment_jobs').where({ id: jobId }).first('status', 'config');
    return row.status === 'running' ? null : row;
  }, `job ${jobId}`);
  const rows = await testKnex()('enrichment_rows').where({ job_id: jobId }).select('input');
  const skuOf = new Map([...ids].map(([sku, id]) => [id, sku]));
  return {
    status: job.status,
    fields: (job.config.output_schema as Array<{ name: string }>).map((f) => f.name),
    skus: rows.map((r: { input: { __catalog_item_id: string } }) => skuOf.get(r.input.__catalog_item_id) ?? '?').sort(),
  };
}

describe('POST /api/public/catalogs/{id}/channel-readiness/fill-gaps', () => {
  it('starts a job for the mapped fields of the missing attributes over exactly the items missing them, and names what it cannot fill', async () => {
    const { catalogId, ids } = await gapCatalog();
    const readiness = await request(app).get(`/api/public/catalogs/${catalogId}/channel-readiness?channel=google_merchant_center`).set(org.auth);
    expect(readiness.body).toMatchObject({
      total: 6,
      ready: 2,
      mapping_source: 'feed',
      blocked: { identifier_missing: 1, invalid_gtin: 1, missing_apparel_attribute: 2 },
    });

    const res = await fillGaps(catalogId, {});
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'running',
      channel: 'google_merchant_center',
      mapping_source: 'feed',
      fields: ['brand', 'gtin', 'size'],
      items: 3,
      matching: 3,
      attributes: [
        { attribute: 'brand', field: 'brand', items: 1 },
        { attribute: 'gtin', field: 'gtin', items: 2 },
        { attribute: 'size', field: 'size', items: 1 },
      ],
    });
    expect(res.body.review_url).toMatch(new RegExp(`/dashboard/catalogs/${catalogId}/activities/${res.body.job_id}$`));
    const reasons = Object.fromEntries((res.body.not_fillable as Array<{ attribute: string; reason: string }>).map((n) => [n.attribute, n.reason]));
    expect(Object.keys(reasons).sort()).toEqual(['age_group', 'color', 'gender', 'mpn']);
    expect(reasons.color).toMatch(/template.*\{colour\}/);
    expect(reasons.mpn).toMatch(/not mapped/);
    expect(reasons.gender).toMatch(/not mapped/);

    const job = await jobOf(res.body.job_id, ids);
    expect(job).toEqual({ status: 'completed', fields: ['brand', 'gtin', 'size'], skus: ['B', 'D', 'E'] });
    // Staged for review on the catalog, described and remembered as the channel's fill the gaps.
    const activity = await testKnex()('review_activities').where({ id: res.body.job_id }).first('catalog_id', 'description', 'metadata');
    expect(activity.catalog_id).toBe(catalogId);
    expect(activity.description).toBe('Fill the gaps for Google Merchant Center: brand, gtin, size');
    expect(activity.metadata.fill_gaps).toMatchObject({
      fields: ['brand', 'gtin', 'size'],
      items: 3,
      channel: { id: 'google_merchant_center', attributes: ['brand', 'gtin', 'size'] },
      before: { brand: { filled: 4, total: 6 }, gtin: { filled: 5, total: 6 }, size: { filled: 1, total: 6 } },
    });
    const staged = await testKnex()('staged_changes').where({ activity_id: res.body.job_id }).pluck('catalog_item_id');
    expect(staged.sort()).toEqual(['B', 'D', 'E'].map((s) => ids.get(s)).sort());
  }, 60_000);

  it('narrows to the asked attributes and to limit items', async () => {
    const { catalogId, ids } = await gapCatalog();
    const gtin = await fillGaps(catalogId, { attributes: ['gtin'] });
    expect(gtin.status).toBe(202);
    expect(gtin.body).toMatchObject({ fields: ['gtin'], items: 2, attributes: [{ attribute: 'gtin', field: 'gtin', items: 2 }], not_fillable: [] });
    expect(await jobOf(gtin.body.job_id, ids)).toMatchObject({ fields: ['gtin'], skus: ['B', 'D'] });

    // An asked attribute no item misses is named, not filled.
    const withTitle = await fillGaps(catalogId, { attributes: ['size', 'title'], limit: 5 });
    expect(withTitle.status).toBe(202);
    expect(withTitle.body).toMatchObject({
      fields: ['size'],
      items: 1,
      not_fillable: [{ attribute: 'title', reason: 'no item misses it or is blocked by it', items: 0 }],
    });
    expect(await jobOf(withTitle.body.job_id, ids)).toMatchObject({ skus: ['E'] });

    // limit: the first items in id order.
    const limited = await fillGaps(catalogId, { limit: 1 });
    expect(limited.status).toBe(202);
    expect(limited.body).toMatchObject({ items: 1, matching: 3 });
    const first = ['B', 'D', 'E'].map((s) => ids.get(s)!).sort()[0];
    const { skus } = await jobOf(limited.body.job_id, ids);
    expect(skus.map((s) => ids.get(s))).toEqual([first]);
  }, 60_000);

  it('answers 409 naming why when nothing is fillable, and 422s naming the place', async () => {
    const { catalogId } = await gapCatalog();
    const jobsBefore = await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).count<{ count: string }[]>('* as count');

    const nothing = await fillGaps(catalogId, { attributes: ['color', 'gender'] });
    expect(nothing.status).toBe(409);
    expect(nothing.body.detail).toMatch(/Nothing to fill for Google Merchant Center/);
    expect(nothing.body.detail).toMatch(/color: a template/);
    expect(nothing.body.detail).toMatch(/gender: not mapped/);

    const unknownAttribute = await fillGaps(catalogId, { attributes: ['gtin', 'colour'] });
    expect(unknownAttribute.status).toBe(422);
    expect((unknownAttribute.body as ValidationErrorBody).detail).toEqual([
      expect.objectContaining({ loc: ['body', 'attributes', 1], msg: expect.stringMatching(/no attribute "colour"/) }),
    ]);
    const unknownChannel = await fillGaps(catalogId, { channel: 'amazon' });
    expect(unknownChannel.status).toBe(422);
    expect((unknownChannel.body as ValidationErrorBody).detail[0].loc).toEqual(['body', 'channel']);
    const tooMany = await fillGaps(catalogId, { limit: 100_001 });
    expect(tooMany.status).toBe(422);
    expect((tooMany.body as ValidationErrorBody).detail[0].loc).toEqual(['body', 'limit']);
    const unknownKey = await fillGaps(catalogId, { fields: ['gtin'] });
    expect(unknownKey.status).toBe(422);

    const jobsAfter = await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).count<{ count: string }[]>('* as count');
    expect(jobsAfter[0].count).toBe(jobsBefore[0].count);
  });

  it('replays the first job for a repeated Idempotency-Key', async () => {
    const { catalogId } = await gapCatalog();
    const key = { 'Idempotency-Key': `channel-gaps-${catalogId}` };
    const first = await fillGaps(catalogId, { attributes: ['brand'] }, key);
    expect(first.status).toBe(202);
    const again = await fillGaps(catalogId, { attributes: ['brand'] }, key);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.job_id).toBe(first.body.job_id);
    expect(
      await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId, id: first.body.job_id }).count<{ count: string }[]>('* as count'),
    ).toEqual([{ count: '1' }]);
  });
});
