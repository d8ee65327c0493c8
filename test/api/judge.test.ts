/**
 * `POST /api/public/judge` (docs/api-enrichment.md "Judging"): decisions on the audit's rules, for plain rows
 * judged on their values and for enriched results with sources; suggested updates that fix a
 * failed check without guessing; the catalog's schema; validation and scoping. Called through the
 * typed client (packages/client); bodies its types refuse (values outside the enums, wrong types,
 * unknown keys) go through supertest.
 */
import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg } from '../helpers/db';
import type { ValidationErrorBody } from '../helpers/wire';

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with `org`'s credential. */
let api: CatalogClient;
/** `POST /api/public/judge`: the request body. */
type JudgeBody = paths['/api/public/judge']['post']['requestBody']['content']['application/json'];
/** `POST /api/public/judge` with `body`, as `client` (default: `org`). */
const judge = (body: JudgeBody, client: CatalogClient = api) => client.POST('/api/public/judge', { body });
/** `POST /api/public/judge` with a body the client's types refuse, through supertest, as `org`. */
const judgeUntyped = (body: Record<string, unknown>) => request(server).post('/api/public/judge').set(org.auth).send(body);

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
  server = await listenTestApp();
  org = await createTestOrg('judge');
  other = await createTestOrg('judge other');
  api = typedClient(server, org.auth);
});
afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

describe('POST /public/judge', () => {
  it('passes valid rows, fails invalid ones with field issues and suggested updates, asks review for missing required values', async () => {
    const res = await judge({
      schema,
      rows: [
        { sku: 'A-1', price: 12.5, gtin: '4006381333931', color: 'red' },
        { item_id: 'i-2', sku: 'A-2', price: '12.50', gtin: '4006381333932', color: 'green' },
        { sku: 'A-3', color: 'blue' },
      ],
    });
    expect(res.response.status).toBe(200);
    const [ok, bad, missing] = res.data!.judgments;
    expect(ok).toMatchObject({ row_index: 0, decision: 'pass', confidence: 'high', field_issues: [], suggested_updates: {} });
    expect(bad).toMatchObject({ row_index: 1, item_id: 'i-2', decision: 'fail', suggested_updates: { price: 12.5 } });
    expect(bad.field_issues.map((i) => i.field)).toEqual(expect.arrayContaining(['price', 'gtin', 'color']));
    expect(missing).toMatchObject({ decision: 'review_required' });
    expect(missing.field_issues).toEqual([{ field: 'price', message: 'Required field has no value.' }]);
    expect(res.data!.meta).toMatchObject({ rows_received: 3, rows_judged: 3, method: 'rules', counts: { pass: 1, fail: 1, review_required: 1 } });
  });

  it('judges enriched results by their sources (a value without a source fails) and honours max_rows', async () => {
    const res = await judge({
      schema,
      max_rows: 2,
      rows: [
        { data: { sku: 'B-1', price: 3 }, sources: { sku: ['INPUT:sku'], price: ['https://shop.example/p/1'] } },
        { data: { sku: 'B-2', price: 4 }, sources: { sku: ['INPUT:sku'] } },
        { data: { sku: 'B-3', price: 5 } },
      ],
    });
    expect(res.response.status).toBe(200);
    expect(res.data!.judgments.map((j) => j.decision)).toEqual(['pass', 'fail']);
    expect(res.data!.judgments[1].reasons[0]).toMatch(/price: The value has no source/);
    expect(res.data!.meta).toMatchObject({ rows_received: 3, rows_judged: 2 });
  });

  it("uses the catalog's schema, scoped to the organization", async () => {
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema, quality_prompt: 'Prices in EUR' });
    const res = await judge({ catalog_id: catalog, rows: [{ sku: 'C-1', price: 'x' }] });
    expect(res.response.status).toBe(200);
    expect(res.data!.judgments[0].decision).toBe('fail');
    expect(res.data!.meta).toMatchObject({ catalog_id: catalog, quality_prompt_present: true, fields: 4 });
    expect((await judge({ catalog_id: catalog, rows: [{}] }, typedClient(server, other.auth))).response.status).toBe(403);
    expect((await judge({ catalog_id: newId(), rows: [{}] })).response.status).toBe(404);
  });

  it('validates the request', async () => {
    expect((await judge({ rows: [] })).response.status).toBe(422);
    expect((await judge({ rows: [{ a: 1 }] })).response.status).toBe(422);
    // A key the route does not take: the client's types refuse it, so supertest sends it.
    expect((await judgeUntyped({ rows: [{ a: 1 }], schema, colour: 1 })).status).toBe(422);
  });
});

describe('POST /public/judge: shapes existing clients send', () => {
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
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect(body.judgments.map((j) => j.decision)).toEqual(['pass', 'fail']);
    expect(body.summary).toMatchObject({ pass: 1, review_required: 0, fail: 1 });
    expect(body.meta).toMatchObject({ model: 'fast' });
    if (body.meta.method === 'rules') expect(body.summary.notes).toEqual([expect.stringMatching(/^images, model: not read/)]);
    const refusedBodies: Array<Partial<JudgeBody>> = [
      { max_rows: 501 },
      { max_rows: 0 },
      { images: { first: ['https://img.example/a.jpg'] } },
      { images: { '0': ['not a url'] } },
    ];
    for (const bad of refusedBodies) {
      const refused = await judge({ schema, rows: [{ sku: 'A-1', price: 1 }], ...bad });
      expect(refused.response.status).toBe(422);
    }
    // An empty model names nothing: refused.
    expect((await judge({ schema, rows: [{ sku: 'A-1', price: 1 }], model: '' })).response.status).toBe(422);
    const unknownRow = await judge({ schema, rows: [{ sku: 'A-1', price: 1 }], images: { '3': ['https://img.example/a.jpg'] } });
    expect(unknownRow.response.status).toBe(422);
    expect((unknownRow.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'images', '3']);
  });

  it('takes the older body {rows, rubric, strictness, context, model, max_rows, schema, catalog_id}; strictness re-counts review_required', async () => {
    const rows = [
      { sku: 'D-1', price: 10 },
      { sku: 'D-2', color: 'blue' }, // required price missing: a field issue
      { data: { sku: 'D-3', price: 5 }, sources: { sku: ['INPUT:sku'], price: ['https://shop.example/d3'] }, review_info: { confidence: 'low' } },
    ];
    const older = {
      rows,
      rubric: ['Prices are in EUR', 'SKUs start with D-'],
      context: { shop: 'Example' },
      model: 'medium',
      max_rows: 2,
      schema,
    } satisfies JudgeBody;
    const standard = await judge({ ...older, strictness: 'standard' });
    expect(standard.response.status).toBe(200);
    const standardBody = standard.data!;
    expect(standardBody.judgments.map((j) => j.decision)).toEqual(['pass', 'review_required']);
    expect(standardBody.summary).toMatchObject({ pass: 1, review_required: 1, fail: 0 });
    expect(standardBody.summary.notes[0]).toBe('2 of 3 rows judged (max_rows 2); the rest were not judged');
    if (standardBody.meta.method === 'rules') expect(standardBody.summary.notes).toContainEqual(expect.stringMatching(/^rubric, context, model: not read/));
    expect(standardBody.meta.prompt_present).toBe(true);
    const strict = (await judge({ ...older, strictness: 'strict' })).data!;
    expect(strict.judgments[1]).toMatchObject({ decision: 'fail' });
    expect(strict.summary).toMatchObject({ pass: 1, review_required: 0, fail: 1 });
    expect(strict.meta.counts).toEqual({ pass: 1, review_required: 0, fail: 1 });
    expect(strict.summary.notes).toContain('strictness strict applied to review_required rows');
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const replaced = { data: { sku: 'E-2', price: 5 }, before: { price: 4 }, sources: { sku: ['INPUT:sku'], price: ['https://shop.example/e2'] } };
    const asJudged = await judge({ rows: [{ sku: 'E-1', price: 2 }, replaced], catalog_id: catalog });
    expect(asJudged.data!.judgments.map((j) => [j.decision, j.confidence])).toEqual([
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
    } satisfies JudgeBody;
    const byCatalog = await judge(lenient);
    expect(byCatalog.response.status).toBe(200);
    expect(byCatalog.data!.judgments[1]).toMatchObject({
      decision: 'pass',
      reasons: expect.arrayContaining(['strictness lenient: a medium-confidence doubt passes']),
    });
    expect(byCatalog.data!.summary).toMatchObject({ pass: 2, review_required: 0, fail: 0 });
    // A strictness outside the enum: the client's types refuse it, so supertest sends it.
    const harsh = await judgeUntyped({ ...older, strictness: 'harsh' });
    expect(harsh.status).toBe(422);
    const [detail] = (harsh.body as ValidationErrorBody).detail;
    expect(detail.loc).toEqual(['body', 'strictness']);
    for (const accepted of ['lenient', 'balanced', 'standard', 'strict', 'low', 'medium', 'high']) expect(detail.msg).toContain(`"${accepted}"`);
  });
});

describe('POST /public/judge: the other client generation (model names, strictness low|medium|high)', () => {
  /** Two rows the rules judge pass and review_required (medium confidence: a sourced value replaced an existing one). */
  const rows = [
    { sku: 'G-1', price: 2 },
    { data: { sku: 'G-2', price: 5 }, before: { price: 4 }, sources: { sku: ['INPUT:sku'], price: ['https://shop.example/g2'] } },
  ];

  it('takes {rows, model: "gpt-5.2", strictness: "medium", max_rows}: the model name is echoed and the notices say the rules judged', async () => {
    const res = await judge({ rows, schema, model: 'gpt-5.2', strictness: 'medium', max_rows: 50 });
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect(body.judgments.map((j) => j.decision)).toEqual(['pass', 'review_required']);
    // The test app has no model endpoint: the rules judged, the model was not used, and the answer says so.
    expect(body.meta).toMatchObject({ method: 'rules', model: 'gpt-5.2' });
    expect(body.meta.notices).toContainEqual(expect.stringMatching(/^model: not applied: no model is configured .*judged by rules/));
    // medium is balanced: decisions as judged, no strictness note.
    expect(body.summary.notes.some((n) => n.startsWith('strictness'))).toBe(false);
  });

  it('reads strictness low as lenient and high as strict', async () => {
    const low = (await judge({ rows, schema, model: 'gpt-5.2', strictness: 'low', max_rows: 50 })).data!;
    expect(low.judgments.map((j) => j.decision)).toEqual(['pass', 'pass']);
    expect(low.judgments[1].reasons).toContain('strictness lenient: a medium-confidence doubt passes');
    expect(low.summary.notes).toContain('strictness low (lenient) applied to review_required rows');
    const high = (await judge({ rows, schema, model: 'gpt-5.2', strictness: 'high', max_rows: 50 })).data!;
    expect(high.judgments.map((j) => j.decision)).toEqual(['pass', 'fail']);
    expect(high.summary).toMatchObject({ pass: 1, review_required: 0, fail: 1 });
    expect(high.summary.notes).toContain('strictness high (strict) applied to review_required rows');
  });
});

describe('POST /public/judge: one 422 detail per bad field', () => {
  it('names images, rubric and context once each', async () => {
    // images, rubric and context of the wrong types: the client's types refuse them, so supertest sends them.
    const res = await judgeUntyped({ schema, rows: [{ sku: 'A' }], images: 'yes', rubric: 3, context: [1] });
    expect(res.status).toBe(422);
    expect((res.body as ValidationErrorBody).detail.map((d) => d.loc.join('.')).sort()).toEqual(['body.context', 'body.images', 'body.rubric']);
  });
});
