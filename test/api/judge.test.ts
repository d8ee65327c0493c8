/**
 * `POST /api/public/judge` (decisions.md §4 G20): decisions on the audit's rules, for plain rows
 * judged on their values and for enriched results with sources; suggested updates that fix a
 * failed check without guessing; the catalog's schema; validation and scoping.
 */
import request from 'supertest';
import { newId } from '../../src/lib/ids';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg } from '../helpers/db';

const app = testApp().callback();
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;

const schema = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    price: { type: 'number' },
    gtin: { type: 'string', description: 'GTIN-13 barcode' },
    color: { type: 'string', enum: ['red', 'blue'] },
  },
  required: ['sku', 'price'],
};

beforeAll(async () => {
  org = await createTestOrg('judge');
  other = await createTestOrg('judge other');
});
afterAll(() => closeTestKnex());

describe('POST /public/judge', () => {
  it('passes valid rows, fails invalid ones with field issues and suggested updates, asks review for missing required values', async () => {
    const res = await request(app)
      .post('/api/public/judge')
      .set(org.auth)
      .send({
        schema,
        rows: [
          { sku: 'A-1', price: 12.5, gtin: '4006381333931', color: 'red' },
          { item_id: 'i-2', sku: 'A-2', price: '12.50', gtin: '4006381333932', color: 'green' },
          { sku: 'A-3', color: 'blue' },
        ],
      });
    expect(res.status).toBe(200);
    const [ok, bad, missing] = res.body.judgments;
    expect(ok).toMatchObject({ row_index: 0, decision: 'pass', confidence: 'high', field_issues: [], suggested_updates: {} });
    expect(bad).toMatchObject({ row_index: 1, item_id: 'i-2', decision: 'fail', suggested_updates: { price: 12.5 } });
    expect(bad.field_issues.map((i: { field: string }) => i.field)).toEqual(expect.arrayContaining(['price', 'gtin', 'color']));
    expect(missing).toMatchObject({ decision: 'review_required' });
    expect(missing.field_issues).toEqual([{ field: 'price', message: 'Required field has no value.' }]);
    expect(res.body.meta).toMatchObject({ rows_received: 3, rows_judged: 3, method: 'rules', counts: { pass: 1, fail: 1, review_required: 1 } });
  });

  it('judges enriched results by their sources (a value without a source fails) and honours max_rows', async () => {
    const res = await request(app)
      .post('/api/public/judge')
      .set(org.auth)
      .send({
        schema,
        max_rows: 2,
        rows: [
          { data: { sku: 'B-1', price: 3 }, sources: { sku: ['INPUT:sku'], price: ['https://shop.example/p/1'] } },
          { data: { sku: 'B-2', price: 4 }, sources: { sku: ['INPUT:sku'] } },
          { data: { sku: 'B-3', price: 5 } },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body.judgments.map((j: { decision: string }) => j.decision)).toEqual(['pass', 'fail']);
    expect(res.body.judgments[1].reasons[0]).toMatch(/price: The value has no source/);
    expect(res.body.meta).toMatchObject({ rows_received: 3, rows_judged: 2 });
  });

  it("uses the catalog's schema, scoped to the organization", async () => {
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema, quality_prompt: 'Prices in EUR' });
    const res = await request(app)
      .post('/api/public/judge')
      .set(org.auth)
      .send({ catalog_id: catalog, rows: [{ sku: 'C-1', price: 'x' }] });
    expect(res.status).toBe(200);
    expect(res.body.judgments[0].decision).toBe('fail');
    expect(res.body.meta).toMatchObject({ catalog_id: catalog, quality_prompt_present: true, fields: 4 });
    expect(
      (
        await request(app)
          .post('/api/public/judge')
          .set(other.auth)
          .send({ catalog_id: catalog, rows: [{}] })
      ).status,
    ).toBe(403);
    expect(
      (
        await request(app)
          .post('/api/public/judge')
          .set(org.auth)
          .send({ catalog_id: newId(), rows: [{}] })
      ).status,
    ).toBe(404);
  });

  it('validates the request', async () => {
    expect((await request(app).post('/api/public/judge').set(org.auth).send({ rows: [] })).status).toBe(422);
    expect(
      (
        await request(app)
          .post('/api/public/judge')
          .set(org.auth)
          .send({ rows: [{ a: 1 }] })
      ).status,
    ).toBe(422);
    expect(
      (
        await request(app)
          .post('/api/public/judge')
          .set(org.auth)
          .send({ rows: [{ a: 1 }], schema, colour: 1 })
      ).status,
    ).toBe(422);
  });
});
