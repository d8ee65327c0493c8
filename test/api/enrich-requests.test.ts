/**
 * How `POST /api/public/enrich` turns requests into stored jobs (docs/api-enrichment.md "Enrichment jobs" and Rules; docs/api-enrichment.md "Judging"): multipart uploads streamed from
 * disk, templates, attribute/source-hint registries, source catalogs, resume/re-extract rules.
 * No job runs here: a JobRunner that only records starts stands in for Temporal, and the stored
 * rows and config are checked in PostgreSQL (running jobs are covered in test/e2e). Called through
 * the typed client (packages/client; multipart forms as FormData through its bodySerializer);
 * multipart forms with a missing or repeated part, and bodies its types refuse (values outside the
 * enums, keys a template's defaults do not take), go through supertest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import request from 'supertest';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/lib/ids';
import type { JobRunner } from '../../src/services/job-runner';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, formData, listenTestApp, typedClient } from '../helpers/client';
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

/** `POST /api/public/enrich`: the request body's media types. */
type EnrichContent = NonNullable<paths['/api/public/enrich']['post']['requestBody']>['content'];
/** `POST /api/public/enrich`: the JSON body. */
type EnrichBody = EnrichContent['application/json'];
/** `POST /api/public/enrich`: the multipart form's fields. */
type EnrichForm = EnrichContent['multipart/form-data'];
/** A field of `output_schema`. */
type OutputField = NonNullable<EnrichBody['output_schema']>[number];

let dataDir: string;
let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with `org`'s credential. */
let api: CatalogClient;
const field: OutputField = { name: 'brand', type: 'string', description: 'Brand' };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-requests-'));
  const config = { ...loadConfig(), dataDir, publicUrl: 'https://svc.test' };
  server = await listenTestApp(
    createApp({
      config,
      knex: testKnex(),
      jobRunner: recorder,
      uploadLimits: { fileBytes: 200_000, requestJsonBytes: 10_000, knowledgeBaseFiles: 2 },
    }),
  );
  org = await createTestOrg('enrich requests');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const jobCount = async (): Promise<number> =>
  Number((await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).count({ n: '*' }))[0].n);
const rowsOf = (jobId: string) => testKnex()('enrichment_rows').where({ job_id: jobId }).orderBy('row_index');
const configOf = async (jobId: string) => (await testKnex()('enrichment_jobs').where({ id: jobId }).first()).config;
const uploadsLeft = (): string[] => (fs.existsSync(path.join(dataDir, 'uploads')) ? fs.readdirSync(path.join(dataDir, 'uploads')) : []);

/** `POST /api/public/enrich` with the JSON `body`, as `client` (default: `org`). */
const enrich = (body: EnrichBody, client: CatalogClient = api) => client.POST('/api/public/enrich', { body });

/**
 * `POST /api/public/enrich` as multipart/form-data through the typed client: `form` is checked
 * against the document's multipart body and sent as FormData (openapi-fetch's bodySerializer).
 */
const enrichUpload = (form: EnrichForm) => api.POST('/api/public/enrich', { body: form, bodySerializer: () => formData(form) });

/** A JSON items file named `filename` (default items.json). */
const itemsFile = (content: string, filename = 'items.json'): File => new File([content], filename, { type: 'application/json' });

describe('multipart POST /public/enrich (Rules 2-4)', () => {
  /**
   * A multipart enrich request through supertest, for forms the client's types refuse (an
   * items_file missing or sent twice, no request_json) and the 422 table they share.
   */
  const multipart = (requestJson: unknown, files: Array<[string, string | Buffer, string?]>) => {
    let r = request(server).post('/api/public/enrich').set(org.auth);
    if (requestJson !== undefined) r = r.field('request_json', typeof requestJson === 'string' ? requestJson : JSON.stringify(requestJson));
    for (const [name, content, filename] of files)
      r = r.attach(name, Buffer.from(content), { filename: filename ?? 'items.json', contentType: 'application/json' });
    return r;
  };

  it('streams a JSON array of 1500 items (no inline cap) into rows and removes the upload', async () => {
    const items = Array.from({ length: 1500 }, (_, i) => ({ sku: `S${i}`, name: `item ${i}` }));
    const res = await enrichUpload({
      request_json: JSON.stringify({ output_schema: [field], async_mode: true, max_rows: 10 }),
      items_file: itemsFile(JSON.stringify(items), 'big.json'),
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ status: 'running', total_rows: 1500, total_items: 10 });
    const rows = await rowsOf(res.data!.job_id);
    expect(rows).toHaveLength(1500);
    expect(rows[1499].input).toEqual({ sku: 'S1499', name: 'item 1499' });
    expect((await configOf(res.data!.job_id)).file_name).toBe('big.json');
    expect(uploadsLeft()).toEqual([]);
  });

  it('accepts {"items": [...]} and knowledge-base files listed as SOURCE_n', async () => {
    const res = await enrichUpload({
      request_json: JSON.stringify({ output_schema: [field], async_mode: true }),
      items_file: itemsFile(JSON.stringify({ meta: { x: 1 }, items: [{ name: 'a' }, { name: 'b' }] }), 'i.json'),
      knowledge_base_files: [new File(['# spec sheet'], 'spec.md', { type: 'text/markdown' })],
    });
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect((await rowsOf(body.job_id)).map((r) => r.input)).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(body.knowledge_base_enabled).toBe(true);
    expect(body.knowledge_base_sources).toEqual({ SOURCE_1: expect.stringMatching(/^https:\/\/svc\.test\/api\/public\/media\/[0-9a-f]{64}\.md$/) });
    // Uploaded files are read by the extractor, so no knowledge_base notice is recorded.
    expect(body.notices ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/^knowledge_base/)]));
  });

  // Forms with a part missing or repeated, which the client's types refuse, and the bad contents
  // beside them in one table: all through supertest.
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
    const res = await enrichUpload({ request_json: JSON.stringify({ output_schema: [field] }), items_file: itemsFile(big) });
    expect(res.response.status).toBe(413);
    expect(res.error?.detail).toMatch(/too large/);
    expect(uploadsLeft()).toEqual([]);
  });
});

describe('enrichment templates (docs/api-enrichment.md "Enrichment templates") and template_id', () => {
  it('creates, lists and reads templates, organization-scoped', async () => {
    const created = await api.POST('/api/public/enrichment-templates', { body: { name: 'Shoes', defaults: { output_schema: [field], speed: 'fast' } } });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ id: expect.any(String), name: 'Shoes', defaults: { speed: 'fast' }, safety: {} });
    const templateId = created.data!.id;
    const list = await api.GET('/api/public/enrichment-templates');
    expect(list.data!.templates.map((t) => t.id)).toContain(templateId);
    const one = (client: CatalogClient = api, id = templateId) =>
      client.GET('/api/public/enrichment-templates/{template_id}', { params: { path: { template_id: id } } });
    expect((await one()).data!.name).toBe('Shoes');
    const other = await createTestOrg('template stranger');
    expect((await one(typedClient(server, other.auth))).response.status).toBe(403);
    expect((await one(api, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    // `items` among the defaults: the client's types refuse it, so supertest sends it.
    const bad = await request(server)
      .post('/api/public/enrichment-templates')
      .set(org.auth)
      .send({ name: 'x', defaults: { items: [] } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'defaults', 'items']);
  });

  it('fills omitted fields from defaults and keeps the safety controls: the request can only narrow them', async () => {
    const t = await api.POST('/api/public/enrichment-templates', {
      body: {
        name: 'Safe',
        defaults: { output_schema: [field], prompt: 'template prompt', web_search: true },
        safety: { allowed_domains: ['example.com', 'shop.test'], blocked_domains: ['bad.com'], web_search: false, max_rows: 3 },
      },
    });
    const res = await enrich({
      template_id: t.data!.id,
      async_mode: true,
      prompt: 'mine',
      items: Array.from({ length: 5 }, (_, i) => ({ name: `i${i}` })),
      allowed_domains: ['www.example.com', 'other.org'],
      blocked_domains: ['worse.com'],
      web_search: true,
      max_rows: 10,
    });
    expect(res.response.status).toBe(200);
    expect(res.data!.total_items).toBe(3);
    const config = await configOf(res.data!.job_id);
    expect(config).toMatchObject({
      prompt: 'mine',
      output_schema: [field],
      web_search: false,
      max_rows: 3,
      allowed_domains: ['www.example.com'],
      speed: 'deep',
    });
    expect(config.blocked_domains.sort()).toEqual(['bad.com', 'worse.com']);
    const outside = await enrich({ template_id: t.data!.id, items: [{ name: 'x' }], allowed_domains: ['other.org'] });
    expect(outside.response.status).toBe(422);
    expect((outside.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'allowed_domains']);
  });
});

describe('attribute_sets and source_hint_sets', () => {
  it('refuses per-row requested_attributes, inline source_hints and unknown set ids with 422 at the row', async () => {
    const res = await enrich({
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
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail.map((d) => d.loc)).toEqual([
      ['body', 'items', 1, 'requested_attributes'],
      ['body', 'items', 2, 'source_hints'],
      ['body', 'items', 3, 'attribute_set_id'],
    ]);
  });

  it("stores the registries so each row gets its set's fields and hints", async () => {
    const { engineInput } = await import('../../src/services/enrichment/rows/rows');
    const res = await enrich({
      output_schema: [field],
      async_mode: true,
      attribute_sets: { dims: { attributes: [{ name: 'width', type: 'number', unit: 'cm', description: 'Width' }] } },
      source_hint_sets: { maker: { domains: ['maker.test'], urls: ['https://maker.test/p/1'] } },
      items: [{ name: 'with sets', attribute_set_id: 'dims', source_hint_set_id: 'maker' }, { name: 'plain' }],
    });
    expect(res.response.status).toBe(200);
    const config = await configOf(res.data!.job_id);
    const [r0, r1] = await rowsOf(res.data!.job_id);
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
    const res = await enrich({ source_catalog_id: catalogId, output_schema: [field], async_mode: true });
    expect(res.response.status).toBe(200);
    expect((await rowsOf(res.data!.job_id)).map((r) => r.input)).toEqual([
      { sku: 'A', __catalog_item_id: idA },
      { sku: 'B', __catalog_item_id: idB },
    ]);
    const both = await enrich({ source_catalog_id: catalogId, items: [{ a: 1 }], output_schema: [field] });
    expect(both.response.status).toBe(422);
    const other = await createTestOrg('catalog stranger');
    const foreign = await enrich({ source_catalog_id: catalogId, output_schema: [field] }, typedClient(server, other.auth));
    expect(foreign.response.status).toBe(403);
  });

  it('refuses to resume or re-extract a running job (409), unknown activities (404) and config changes on resume (422)', async () => {
    const running = await enrich({ items: [{ name: 'x' }], output_schema: [field], async_mode: true });
    const runningId = running.data!.job_id;
    expect((await enrich({ source_activity_id: runningId })).response.status).toBe(409);
    expect((await enrich({ reextract_from_activity_id: runningId })).response.status).toBe(409);
    expect((await enrich({ source_activity_id: '00000000-0000-4000-8000-000000000000' })).response.status).toBe(404);
    const changed = await enrich({ source_activity_id: runningId, output_schema: [field] });
    expect(changed.response.status).toBe(422);
    expect((changed.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'output_schema']);
    const toCatalog = await api.POST('/api/public/enrich/{job_id}/to-catalog', { params: { path: { job_id: runningId } }, body: { name: 'x' } });
    expect(toCatalog.response.status).toBe(409);
  });

  it('requires host_media for strict_hosted_media and reports pricing estimates honestly', async () => {
    const strict = await enrich({ items: [{ name: 'x' }], output_schema: [field], strict_hosted_media: true });
    expect(strict.response.status).toBe(422);
    const priced = await enrich({
      items: [{ name: 'x' }, { name: 'y' }],
      output_schema: [field],
      async_mode: true,
      pricing_estimates: true,
      image_processing: { enabled: true },
    });
    expect(priced.data!.pricing_estimates).toEqual(
      expect.objectContaining({ credits_per_successful_item: 1, items: 2, items_to_process: 2, estimated_credits: 2 }),
    );
    expect(priced.data!.notices ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/^image_processing/)]));
    // An output_format outside the enum: the client's types refuse it, so supertest sends it.
    const badFormat = await request(server)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }], output_schema: [field], image_processing: { enabled: true, output_format: 'bmp', background_color: 'rgb(1,2,3)' } });
    expect(badFormat.status).toBe(422);
    expect(bodyOf<ValidationErrorBody>(badFormat).detail.map((d) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.image_processing.output_format', 'body.image_processing.background_color']),
    );
  });
});

describe('request shapes existing clients send', () => {
  it('takes review_mode as a boolean: true stores the post-enrichment audit, false is "all"', async () => {
    const audited = await enrich({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, review_mode: true });
    expect(audited.response.status).toBe(200);
    expect(await configOf(audited.data!.job_id)).toMatchObject({ review_mode: 'all', audit_decisions_enabled: true });
    const plain = await enrich({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, review_mode: false });
    expect(plain.response.status).toBe(200);
    expect(await configOf(plain.data!.job_id)).toMatchObject({ review_mode: 'all', audit_decisions_enabled: false });
    const flagged = await enrich({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, review_mode: 'flagged' });
    expect(await configOf(flagged.data!.job_id)).toMatchObject({ review_mode: 'flagged' });
    // A review_mode outside the enum: the client's types refuse it, so supertest sends it.
    const sometimes = await request(server)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items: [{ name: 'x' }], output_schema: [field], review_mode: 'sometimes' });
    expect(sometimes.status).toBe(422);
  });

  it('records knowledge_base_vector_store_id and says in notices that it was not used', async () => {
    const res = await enrich({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, knowledge_base_vector_store_id: 'vs_abc123' });
    expect(res.response.status).toBe(200);
    expect((await configOf(res.data!.job_id)).knowledge_base_vector_store_id).toBe('vs_abc123');
    expect(res.data!.notices).toEqual(expect.arrayContaining([expect.stringMatching(/^knowledge_base_vector_store_id: recorded .* not searched/)]));
    const without = await enrich({ items: [{ name: 'x' }], output_schema: [field], async_mode: true });
    expect(without.data!.notices ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/vector_store/)]));
  });

  it("with catalog_id and no output_schema, researches the catalog's fields but never its key field", async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const res = await enrich({ items: [{ sku: 'K-1', title: 'Boots' }], catalog_id: catalogId, async_mode: true });
    expect(res.response.status).toBe(200);
    expect((await configOf(res.data!.job_id)).output_schema.map((f: { name: string }) => f.name).sort()).toEqual(['price', 'title']);
  });

  it('defaults low_confidence.enabled to false and always answers pricing_estimates', async () => {
    const res = await enrich({ items: [{ name: 'x' }], output_schema: [field], async_mode: true, low_confidence: { scopes: ['field'] } });
    expect(res.response.status).toBe(200);
    expect((await configOf(res.data!.job_id)).low_confidence).toEqual({ enabled: false, scopes: ['field'] });
    expect(res.data!.pricing_estimates).toMatchObject({ currency: 'credits', items: 1, items_to_process: 1, estimated_credits: 1 });
    const polled = await api.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: res.data!.job_id } } });
    expect(polled.data!.pricing_estimates).toMatchObject({ items: 1 });
  });

  it('reads multipart knowledge_base_metadata_json into knowledge_base_metadata; bad JSON or a second copy is 422', async () => {
    const form = (metadata: string, requestJson: EnrichBody = { output_schema: [field], async_mode: true }) =>
      enrichUpload({
        request_json: JSON.stringify(requestJson),
        knowledge_base_metadata_json: metadata,
        items_file: itemsFile(JSON.stringify([{ name: 'x' }])),
      });
    const ok = await form(JSON.stringify({ SOURCE_1: { title: 'Spec sheet' } }));
    expect(ok.response.status).toBe(200);
    expect((await configOf(ok.data!.job_id)).knowledge_base_metadata).toEqual({ SOURCE_1: { title: 'Spec sheet' } });
    const bad = await form('{not json');
    expect(bad.response.status).toBe(422);
    expect((bad.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'knowledge_base_metadata_json']);
    const twice = await form('{}', { output_schema: [field], knowledge_base_metadata: {} });
    expect(twice.response.status).toBe(422);
    expect(uploadsLeft()).toEqual([]);
  });
});
