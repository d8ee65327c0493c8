/**
 * How `POST /api/public/enrich` turns requests into stored jobs (interface-spec.md "Enrich
 * request parameters" and Rules; decisions.md §4, G20/G21): multipart uploads streamed from
 * disk, templates, attribute/source-hint registries, source catalogs, resume/re-extract rules.
 * No job runs here: a JobRunner that only records starts stands in for Temporal, and the stored
 * rows and config are checked in PostgreSQL (running jobs are covered in test/e2e).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/lib/ids';
import type { JobRunner } from '../../src/services/job-runner';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bodyOf, ValidationErrorBody } from '../helpers/wire';

const started: string[] = [];
const recorder: JobRunner = {
  async startEnrichment(job) {
    started.push(job.id);
  },
  async cancel() {},
  async waitForClose() {},
  async startSearchIndexBuild() {
    return false;
  },
  async startApply() {},
  async startFlowRun() {},
  async ping() {},
};

let dataDir: string;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
const field = { name: 'brand', type: 'string', description: 'Brand' };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-requests-'));
  const config = { ...loadConfig(), dataDir, publicUrl: 'https://svc.test' };
  app = createApp({
    config,
    knex: testKnex(),
    jobRunner: recorder,
    uploadLimits: { fileBytes: 200_000, requestJsonBytes: 10_000, knowledgeBaseFiles: 2 },
  }).callback();
  org = await createTestOrg('enrich requests');
});

afterAll(async () => {
  await closeTestKnex();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const jobCount = async (): Promise<number> =>
  Number((await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).count({ n: '*' }))[0].n);
const rowsOf = (jobId: string) => testKnex()('enrichment_rows').where({ job_id: jobId }).orderBy('row_index');
const configOf = async (jobId: string) => (await testKnex()('enrichment_jobs').where({ id: jobId }).first()).config;
const uploadsLeft = (): string[] => (fs.existsSync(path.join(dataDir, 'uploads')) ? fs.readdirSync(path.join(dataDir, 'uploads')) : []);

describe('multipart POST /public/enrich (Rules 2-4)', () => {
  const multipart = (requestJson: unknown, files: Array<[string, string | Buffer, string?]>) => {
    let r = request(app).post('/api/public/enrich').set(org.auth);
    if (requestJson !== undefined) r = r.field('request_json', typeof requestJson === 'string' ? requestJson : JSON.stringify(requestJson));
    for (const [name, content, filename] of files)
      r = r.attach(name, Buffer.from(content), { filename: filename ?? 'items.json', contentType: 'application/json' });
    return r;
  };

  it('streams a JSON array of 1500 items (no inline cap) into rows and removes the upload', async () => {
    const items = Array.from({ length: 1500 }, (_, i) => ({ sku: `S${i}`, name: `item ${i}` }));
    const res = await multipart({ output_schema: [field], async_mode: true, max_rows: 10 }, [['items_file', JSON.stringify(items), 'big.json']]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'running', total_rows: 1500, total_items: 10 });
    const rows = await rowsOf(res.body.job_id);
    expect(rows).toHaveLength(1500);
    expect(rows[1499].input).toEqual({ sku: 'S1499', name: 'item 1499' });
    expect((await configOf(res.body.job_id)).file_name).toBe('big.json');
    expect(uploadsLeft()).toEqual([]);
  });

  it('accepts {"items": [...]} and knowledge-base files listed as SOURCE_n', async () => {
    const res = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .field('request_json', JSON.stringify({ output_schema: [field], async_mode: true }))
      .attach('items_file', Buffer.from(JSON.stringify({ meta: { x: 1 }, items: [{ name: 'a' }, { name: 'b' }] })), {
        filename: 'i.json',
        contentType: 'application/json',
      })
      .attach('knowledge_base_files', Buffer.from('# spec sheet'), { filename: 'spec.md', contentType: 'text/markdown' });
    expect(res.status).toBe(200);
    expect((await rowsOf(res.body.job_id)).map((r) => r.input)).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(res.body.knowledge_base_enabled).toBe(true);
    expect(res.body.knowledge_base_sources).toEqual({ SOURCE_1: expect.stringMatching(/^https:\/\/svc\.test\/api\/public\/media\/[0-9a-f]{64}\.md$/) });
    // Uploaded files are read by the extractor, so no knowledge_base notice is recorded.
    expect(res.body.notices ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/^knowledge_base/)]));
  });

  it('refuses a missing or repeated items_file, bad JSON, request_json errors and items_storage_url with 422 and writes nothing', async () => {
    const before = await jobCount();
    const cases: Array<[ReturnType<typeof multipart>, Array<string | number>]> = [
      [multipart({ output_schema: [field] }, []), ['body', 'items_file']],
      [
        multipart({ output_schema: [field] }, [
          ['items_file', '[{"a":1}]'],
          ['items_file', '[{"a":2}]'],
        ]),
        ['body', 'items_file'],
      ],
      [multipart({ output_schema: [field] }, [['items_file', '[{"a":1}, {"b":']]), ['body', 'items_file']],
      [multipart({ output_schema: [field] }, [['items_file', '42']]), ['body', 'items_file']],
      [multipart({ output_schema: [field], speed: 'warp' }, [['items_file', '[{"a":1}]']]), ['body', 'request_json', 'speed']],
      [
        multipart({ output_schema: [field], items_storage_url: 'https://x.test/i.json' }, [['items_file', '[{"a":1}]']]),
        ['body', 'request_json', 'items_storage_url'],
      ],
      [multipart('{not json', [['items_file', '[{"a":1}]']]), ['body', 'request_json']],
      [multipart(undefined, [['items_file', '[{"a":1}]']]), ['body', 'request_json']],
      [multipart({}, [['items_file', '[{"a":1}]']]), ['body', 'request_json', 'output_schema']],
      [multipart({ output_schema: [field] }, [['items_file', '[{"a":1}, 7]']]), ['body', 'items_file', 1]],
    ];
    for (const [req, loc] of cases) {
      const res = await req;
      expect([loc, res.status]).toEqual([loc, 422]);
      expect(bodyOf<ValidationErrorBody>(res).detail.map((d) => d.loc)).toContainEqual(loc);
    }
    expect(await jobCount()).toBe(before);
    expect(uploadsLeft()).toEqual([]);
  });

  it('answers 413 for an items_file over the documented limit', async () => {
    const big = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ name: `item ${i}` })));
    const res = await multipart({ output_schema: [field] }, [['items_file', big]]);
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/too large/);
    expect(uploadsLeft()).toEqual([]);
  });
});

describe('enrichment templates (G20) and template_id', () => {
  it('creates, lists and reads templates, organization-scoped', async () => {
    const created = await request(app)
      .post('/api/public/enrichment-templates')
      .set(org.auth)
      .send({ name: 'Shoes', defaults: { output_schema: [field], speed: 'fast' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id: expect.any(String), name: 'Shoes', defaults: { speed: 'fast' }, safety: {} });
    const list = await request(app).get('/api/public/enrichment-templates').set(org.auth);
    expect(bodyOf<{ templates: Array<{ id: string }> }>(list).templates.map((t) => t.id)).toContain(created.body.id);
    expect((await request(app).get(`/api/public/enrichment-templates/${created.body.id}`).set(org.auth)).body.name).toBe('Shoes');
    const other = await createTestOrg('template stranger');
    expect((await request(app).get(`/api/public/enrichment-templates/${created.body.id}`).set(other.auth)).status).toBe(403);
    expect((await request(app).get('/api/public/enrichment-templates/00000000-0000-4000-8000-000000000000').set(org.auth)).status).toBe(404);
    const bad = await request(app)
      .post('/api/public/enrichment-templates')
      .set(org.auth)
      .send({ name: 'x', defaults: { items: [] } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'defaults', 'items']);
  });

  it('fills omitted fields from defaults and keeps the safety controls: the request can only narrow them', async () => {
    const t = await request(app)
      .post('/api/public/enrichment-templates')
      .set(org.auth)
      .send({
        name: 'Safe',
        defaults: { output_schema: [field], prompt: 'template prompt', web_search: true },
        safety: { allowed_domains: ['example.com', 'shop.test'], blocked_domains: ['bad.com'], web_search: false, max_rows: 3 },
      });
    const res = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        template_id: t.body.id,
        async_mode: true,
        prompt: 'mine',
        items: Array.from({ length: 5 }, (_, i) => ({ name: `i${i}` })),
        allowed_domains: ['www.example.com', 'other.org'],
        blocked_domains: ['worse.com'],
        web_search: true,
        max_rows: 10,
      });
    expect(res.status).toBe(200);
    expect(res.body.total_items).toBe(3);
    const config = await configOf(res.body.job_id);
    expect(config).toMatchObject({
      prompt: 'mine',
      output_schema: [field],
      web_search: false,
      max_rows: 3,
      allowed_domains: ['www.example.com'],
      speed: 'deep',
    });
    expect(config.blocked_domains.sort()).toEqual(['bad.com', 'worse.com']);
    const outside = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ template_id: t.body.id, items: [{ name: 'x' }], allowed_domains: ['other.org'] });
    expect(outside.status).toBe(422);
    expect(outside.body.detail[0].loc).toEqual(['body', 'allowed_domains']);
  });
});

describe('attribute_sets and source_hint_sets', () => {
  it('refuses per-row requested_attributes, inline source_hints and unknown set ids with 422 at the row', async () => {
    const res = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        output_schema: [field],
        attribute_sets: { dims: [{ name: 'width', type: 'number', unit: 'cm', description: 'Width' }] },
        source_hint_sets: { maker: { domains: ['maker.test'] } },
        items: [
          { name: 'ok', attribute_set_id: 'dims', source_hint_set_id: 'maker' },
          { name: 'a', requested_attributes: ['x'] },
          { name: 'b', source_hints: { domains: ['x'] } },
          { name: 'c', attribute_set_id: 'nope' },
        ],
      });
    expect(res.status).toBe(422);
    expect(bodyOf<ValidationErrorBody>(res).detail.map((d) => d.loc)).toEqual([
      ['body', 'items', 1, 'requested_attributes'],
      ['body', 'items', 2, 'source_hints'],
      ['body', 'items', 3, 'attribute_set_id'],
    ]);
  });

  it("stores the registries so each row gets its set's fields and hints", async () => {
    const { engineInput } = await import('../../src/services/enrichment/rows');
    const res = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        output_schema: [field],
        async_mode: true,
        attribute_sets: { dims: { attributes: [{ name: 'width', type: 'number', unit: 'cm', description: 'Width' }] } },
        source_hint_sets: { maker: { domains: ['maker.test'], urls: ['https://maker.test/p/1'] } },
        items: [{ name: 'with sets', attribute_set_id: 'dims', source_hint_set_id: 'maker' }, { name: 'plain' }],
      });
    expect(res.status).toBe(200);
    const config = await configOf(res.body.job_id);
    const [r0, r1] = await rowsOf(res.body.job_id);
    const in0 = engineInput(config, r0.input, 0);
    expect(in0.output_schema.map((f) => f.name)).toEqual(['brand', 'width']);
    expect(in0.options.source_hints).toEqual({ domains: ['maker.test'], urls: ['https://maker.test/p/1'] });
    expect(in0.item).toEqual({ name: 'with sets' });
    expect(engineInput(config, r1.input, 1).output_schema.map((f) => f.name)).toEqual(['brand']);
  });
});

describe('source_catalog_id, resume and re-extract rules', () => {
  it('copies every item of the source catalog (org-checked) with its __catalog_item_id', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const [idA, idB] = [newId(), newId()];
    await testKnex()('catalog_items').insert([
      { id: idA, catalog_id: catalogId, business_key: 'A', data: { sku: 'A' }, created_at: new Date('2026-01-01') },
      { id: idB, catalog_id: catalogId, business_key: 'B', data: { sku: 'B' }, created_at: new Date('2026-01-02') },
    ]);
    const res = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ source_catalog_id: catalogId, output_schema: [field], async_mode: true });
    expect(res.status).toBe(200);
    expect((await rowsOf(res.body.job_id)).map((r) => r.input)).toEqual([
      { sku: 'A', __catalog_item_id: idA },
      { sku: 'B', __catalog_item_id: idB },
    ]);
    const both = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ source_catalog_id: catalogId, items: [{ a: 1 }], output_schema: [field] });
    expect(both.status).toBe(422);
    const other = await createTestOrg('catalog stranger');
    const foreign = await request(app)
      .post('/api/public/enrich')
      .set(other.auth)
      .send({ source_catalog_id: catalogId, output_schema: [field] });
    expect(foreign.status).toBe(403);
  });

  it('refuses to resume or re-extract a running job (409), unknown activities (404) and config changes on resume (422)', async () => {
    const running = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }], output_schema: [field], async_mode: true });
    expect((await request(app).post('/api/public/enrich').set(org.auth).send({ source_activity_id: running.body.job_id })).status).toBe(409);
    expect((await request(app).post('/api/public/enrich').set(org.auth).send({ reextract_from_activity_id: running.body.job_id })).status).toBe(409);
    expect((await request(app).post('/api/public/enrich').set(org.auth).send({ source_activity_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    const changed = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ source_activity_id: running.body.job_id, output_schema: [field] });
    expect(changed.status).toBe(422);
    expect(changed.body.detail[0].loc).toEqual(['body', 'output_schema']);
    expect((await request(app).post(`/api/public/enrich/${running.body.job_id}/to-catalog`).set(org.auth).send({ name: 'x' })).status).toBe(409);
  });

  it('requires host_media for strict_hosted_media and reports pricing estimates honestly', async () => {
    const strict = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }], output_schema: [field], strict_hosted_media: true });
    expect(strict.status).toBe(422);
    const priced = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }, { name: 'y' }], output_schema: [field], async_mode: true, pricing_estimates: true, image_processing: { enabled: true } });
    expect(priced.body.pricing_estimates).toEqual(
      expect.objectContaining({ credits_per_successful_item: 1, items: 2, items_to_process: 2, estimated_credits: 2 }),
    );
    expect(priced.body.notices ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/^image_processing/)]));
    const badFormat = await request(app)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }], output_schema: [field], image_processing: { enabled: true, output_format: 'bmp', background_color: 'rgb(1,2,3)' } });
    expect(badFormat.status).toBe(422);
    expect(badFormat.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.image_processing.output_format', 'body.image_processing.background_color']),
    );
  });
});

describe('request shapes existing clients send (issue 26 §6)', () => {
  const post = (body: Record<string, unknown>) => request(app).post('/api/public/enrich').set(org.auth).send(body);

  it('takes review_mode as a boolean: true stores the post-enrichment audit, false is "all"', async () => {
    const audited = await post({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, review_mode: true });
    expect(audited.status).toBe(200);
    expect(await configOf(audited.body.job_id)).toMatchObject({ review_mode: 'all', audit_decisions_enabled: true });
    const plain = await post({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, review_mode: false });
    expect(plain.status).toBe(200);
    expect(await configOf(plain.body.job_id)).toMatchObject({ review_mode: 'all', audit_decisions_enabled: false });
    const flagged = await post({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, review_mode: 'flagged' });
    expect(await configOf(flagged.body.job_id)).toMatchObject({ review_mode: 'flagged' });
    expect((await post({ items: [{ name: 'x' }], output_schema: [field], review_mode: 'sometimes' })).status).toBe(422);
  });

  it('records knowledge_base_vector_store_id and says in notices that it was not used', async () => {
    const res = await post({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, knowledge_base_vector_store_id: 'vs_abc123' });
    expect(res.status).toBe(200);
    expect((await configOf(res.body.job_id)).knowledge_base_vector_store_id).toBe('vs_abc123');
    expect(res.body.notices).toEqual(expect.arrayContaining([expect.stringMatching(/^knowledge_base_vector_store_id: recorded .* not searched/)]));
    const without = await post({ items: [{ name: 'x' }], output_schema: [field], async_mode: true });
    expect(without.body.notices ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/vector_store/)]));
  });

  it("with catalog_id and no output_schema, researches the catalog's fields but never its key field", async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const res = await post({ items: [{ sku: 'K-1', title: 'Boots' }], catalog_id: catalogId, async_mode: true });
    expect(res.status).toBe(200);
    expect((await configOf(res.body.job_id)).output_schema.map((f: { name: string }) => f.name).sort()).toEqual(['price', 'title']);
  });

  it('defaults low_confidence.enabled to false and always answers pricing_estimates', async () => {
    const res = await post({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, low_confidence: { scopes: ['field'] } });
    expect(res.status).toBe(200);
    expect((await configOf(res.body.job_id)).low_confidence).toEqual({ enabled: false, scopes: ['field'] });
    expect(res.body.pricing_estimates).toMatchObject({ currency: 'credits', items: 1, items_to_process: 1, estimated_credits: 1 });
    const polled = await request(app).get(`/api/public/enrich/${res.body.job_id}`).set(org.auth);
    expect(polled.body.pricing_estimates).toMatchObject({ items: 1 });
  });

  it('reads multipart knowledge_base_metadata_json into knowledge_base_metadata; bad JSON or a second copy is 422', async () => {
    const form = (metadata: string, requestJson: Record<string, unknown> = { output_schema: [field], async_mode: true }) =>
      request(app)
        .post('/api/public/enrich')
        .set(org.auth)
        .field('request_json', JSON.stringify(requestJson))
        .field('knowledge_base_metadata_json', metadata)
        .attach('items_file', Buffer.from(JSON.stringify([{ name: 'x' }])), { filename: 'items.json', contentType: 'application/json' });
    const ok = await form(JSON.stringify({ SOURCE_1: { title: 'Spec sheet' } }));
    expect(ok.status).toBe(200);
    expect((await configOf(ok.body.job_id)).knowledge_base_metadata).toEqual({ SOURCE_1: { title: 'Spec sheet' } });
    const bad = await form('{not json');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'knowledge_base_metadata_json']);
    const twice = await form('{}', { output_schema: [field], knowledge_base_metadata: {} });
    expect(twice.status).toBe(422);
    expect(uploadsLeft()).toEqual([]);
  });
});
