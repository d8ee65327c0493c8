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

describe('POST /public/judge: shapes existing clients send (issue 26 §6)', () => {
  const judge = (body: Record<string, unknown>) => request(app).post('/api/public/judge').set(org.auth).send(body);

  it('takes images per row index, model fast|medium|high and max_rows up to 500, and answers a summary', async () => {
    const res = await judge({
      schema,
      model: 'fast',
      max_rows: 500,
      images: { '0': ['https://img.example/a.jpg'], '1': ['https://img.example/b.jpg', 'https://img.example/c.jpg'] },
      rows: [
        { sku: 'A-1', price: 12.5 },
        { sku: 'A-2', price: 'twelve' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.judgments.map((j: { decision: string }) => j.decision)).toEqual(['pass', 'fail']);
    expect(res.body.summary).toMatchObject({ pass: 1, review_required: 0, fail: 1 });
    expect(res.body.meta).toMatchObject({ model: 'fast' });
    if (res.body.meta.method === 'rules') expect(res.body.summary.notes).toEqual([expect.stringMatching(/^images, model: not read/)]);
    for (const bad of [
      { model: 'gpt-x' },
      { max_rows: 501 },
      { max_rows: 0 },
      { images: { first: ['https://img.example/a.jpg'] } },
      { images: { '0': ['not a url'] } },
    ]) {
      const refused = await judge({ schema, rows: [{ sku: 'A-1', price: 1 }], ...bad });
      expect(refused.status).toBe(422);
    }
    const unknownRow = await judge({ schema, rows: [{ sku: 'A-1', price: 1 }], images: { '3': ['https://img.example/a.jpg'] } });
    expect(unknownRow.status).toBe(422);
    expect(unknownRow.body.detail[0].loc).toEqual(['body', 'images', '3']);
  });

  it('takes the older body {rows, rubric, strictness, context, model, max_rows, schema, catalog_id}; strictness re-counts review_required', async () => {
    const rows = [
      { sku: 'D-1', price: 10 },
      { sku: 'D-2', color: 'blue' }, // required price missing: a field issue
      { data: { sku: 'D-3', price: 5 }, sources: { sku: ['INPUT:sku'], price: ['https://shop.example/d3'] }, review_info: { confidence: 'low' } },
    ];
    const older = { rows, rubric: ['Prices are in EUR', 'SKUs start with D-'], context: { shop: 'Example' }, model: 'medium', max_rows: 2, schema };
    const standard = await judge({ ...older, strictness: 'standard' });
    expect(standard.status).toBe(200);
    expect(standard.body.judgments.map((j: { decision: string }) => j.decision)).toEqual(['pass', 'review_required']);
    expect(standard.body.summary).toMatchObject({ pass: 1, review_required: 1, fail: 0 });
    expect(standard.body.summary.notes[0]).toBe('2 of 3 rows judged (max_rows 2); the rest were not judged');
    if (standard.body.meta.method === 'rules') expect(standard.body.summary.notes).toContainEqual(expect.stringMatching(/^rubric, context, model: not read/));
    expect(standard.body.meta.prompt_present).toBe(true);
    const strict = await judge({ ...older, strictness: 'strict' });
    expect(strict.body.judgments[1]).toMatchObject({ decision: 'fail' });
    expect(strict.body.summary).toMatchObject({ pass: 1, review_required: 0, fail: 1 });
    expect(strict.body.meta.counts).toEqual({ pass: 1, review_required: 0, fail: 1 });
    expect(strict.body.summary.notes).toContain('strictness strict applied to review_required rows');
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const replaced = { data: { sku: 'E-2', price: 5 }, before: { price: 4 }, sources: { sku: ['INPUT:sku'], price: ['https://shop.example/e2'] } };
    const asJudged = await judge({ rows: [{ sku: 'E-1', price: 2 }, replaced], catalog_id: catalog });
    expect(asJudged.body.judgments.map((j: { decision: string; confidence: string }) => [j.decision, j.confidence])).toEqual([
      ['pass', 'high'],
      ['review_required', 'medium'],
    ]);
    const lenient = {
      rows: [{ sku: 'E-1', price: 2 }, replaced],
      rubric: 'Prices in EUR',
      strictness: 'lenient',
      context: 'a shop',
      model: 'high',
      max_rows: 10,
      catalog_id: catalog,
    };
    const byCatalog = await judge(lenient);
    expect(byCatalog.status).toBe(200);
    expect(byCatalog.body.judgments[1]).toMatchObject({
      decision: 'pass',
      reasons: expect.arrayContaining(['strictness lenient: a medium-confidence doubt passes']),
    });
    expect(byCatalog.body.summary).toMatchObject({ pass: 2, review_required: 0, fail: 0 });
    expect((await judge({ ...older, strictness: 'harsh' })).status).toBe(422);
  });
});

describe('POST /public/judge: one 422 detail per bad field', () => {
  it('names images, rubric and context once each', async () => {
    const res = await request(app)
      .post('/api/public/judge')
      .set(org.auth)
      .send({ schema, rows: [{ sku: 'A' }], images: 'yes', rubric: 3, context: [1] });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.context', 'body.images', 'body.rubric']);
  });
});
