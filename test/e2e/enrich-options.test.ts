// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * End to end over HTTP → PostgreSQL → a real Temporal dev server → the worker's activities, for
 * the enrich request options (docs/api-enrichment.md "Enrichment jobs"): catalog staging + activity endpoints, resume, re-extraction, source artifacts, hosted
 * media, to-catalog. The real engine on the offline archive runs where it matters (artifacts,
 * re-extraction from real stored research); a small deterministic engine with a fetcher runs
 * where only the service's behaviour is under test (staging, media hosting, resume credits).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import { createEngineFromConfig } from '../../src/enrichment';
import type { Fetcher, FetchedPage } from '../../src/enrichment/research/types';
import type { EngineUsage, EnrichInput, EnrichmentEngine, EnrichmentResult, Evidence } from '../../src/enrichment/types';
import { pageItem, PAGES_SCHEMA } from '../../bench/eval/pages';
import { TemporalJobRunner } from '../../temporal/client';
import { createWorker } from '../../temporal/worker';
import { createTestCatalog } from '../helpers/catalogs';
import { SHARED_DATA, subsetArchive } from '../helpers/data';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { startTestTemporal, workflowBundle } from '../helpers/temporal';
import { bodyOf, EnrichBody, EnrichResultBody, StagedChangeListBody, ValidationErrorBody, bufferBody } from '../helpers/wire';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const PAGE_IDS = ['2c42fb6035ff369f80148ebbe5ad62c93fe1532e0435e7ec1be87474cb5578d7', '4e545337e1205c88bdb099402a53153050ce51b1f99cf77e1598ddabbbabd390'];
const index: Array<Parameters<typeof pageItem>[0]> = JSON.parse(fs.readFileSync(path.join(ZYTE, 'page-index.json'), 'utf8'));
const labels: Record<string, Record<string, unknown>> = JSON.parse(fs.readFileSync(path.join(ZYTE, 'ground-truth.json'), 'utf8'));
const pages = PAGE_IDS.map((id) => index.find((p) => p.id === id)!);

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2213fbc0000000049454e44ae426082',
  'hex',
);
/** A 300×200 blue PNG, set in beforeAll (sharp renders it). */
let PHOTO: Buffer;
const NO_USAGE: EngineUsage = { search_calls: 0, pages_fetched: 0, llm_calls: 0, llm_prompt_tokens: 0, llm_completion_tokens: 0 };

/**
 * A deterministic engine with a fetcher: research "finds" one page per item naming brand Acme
 * and the item's `image` (or a hostable PNG); extract reads only that evidence. Counts research
 * and fetch calls so tests can prove re-extraction does neither.
 */
function mediaEngine(): EnrichmentEngine & { researched: number; fetched: string[]; fetcher: Fetcher } {
  const fetched: string[] = [];
  const fetcher: Fetcher = {
    async fetch(url: string): Promise<FetchedPage> {
      fetched.push(url);
      const base = { url, final_url: url, fetched_at: '2026-01-01T00:00:00.000Z' };
      if (url.includes('img.example/ok')) return { ...base, status: 200, content_type: 'image/png', body: PNG };
      if (url.includes('img.example/photo')) return { ...base, status: 200, content_type: 'image/png', body: PHOTO };
      return { ...base, status: 404, content_type: 'text/html', body: Buffer.from('not found') };
    },
  };
  const engine = {
    researched: 0,
    fetched,
    fetcher,
    async research(input: EnrichInput) {
      engine.researched += 1;
      const slug = String(input.item.name ?? 'x').replace(/\W+/g, '-');
      const evidence: Evidence = {
        queries: [String(input.item.name)],
        search_results: [],
        documents: [{ url: `https://shop.example/${slug}`, brand: 'Acme', images: [String(input.item.image ?? 'https://img.example/ok.png')] }],
      };
      return { evidence, usage: { ...NO_USAGE, search_calls: 1 } };
    },
    async extract(input: EnrichInput, evidence: Evidence) {
      const doc = evidence.documents[0] as { url: string; brand: string; images: string[] };
      const after: EnrichmentResult['after_data'] = { ...input.item, sources: {}, source_explanations: {} };
      for (const f of input.output_schema) {
        const value = f.name === 'brand' ? doc.brand : f.name === 'images' ? doc.images : f.name === 'color' ? 'red' : undefined;
        if (value === undefined) continue;
        after[f.name] = value;
        // An item naming `cite` makes the engine cite a page it never read (the audit must fail it).
        after.sources[f.name] = [typeof input.item.cite === 'string' ? input.item.cite : doc.url];
        after.source_explanations[f.name] = `From ${doc.url}.`;
      }
      const result: EnrichmentResult = {
        original_data: input.item,
        after_data: after,
        all_sources: [doc.url],
        review_info: { reasoning: 'test', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
      };
      return { result, usage: NO_USAGE };
    },
    async enrich(input: EnrichInput) {
      const { evidence, usage } = await engine.research(input);
      const { result } = await engine.extract(input, evidence);
      return { result, evidence, usage };
    },
  };
  return engine;
}

let env: TestWorkflowEnvironment;
const workers: Worker[] = [];
const runs: Array<Promise<void>> = [];
let fakeApp: ReturnType<ReturnType<typeof createApp>['callback']>;
let realApp: ReturnType<ReturnType<typeof createApp>['callback']>;
let engine: ReturnType<typeof mediaEngine>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let dataDir: string;

beforeAll(async () => {
  PHOTO = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#0000ff' } })
    .png()
    .toBuffer();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-options-'));
  const config = {
    ...loadConfig(),
    dataDir,
    blobStore: { backend: 'filesystem' as const, root: dataDir },
    publicUrl: 'https://svc.test',
    // Only the two pages the real engine researches: parsing the whole archive took minutes on a loaded machine.
    researchArchives: [subsetArchive(ZYTE, PAGE_IDS, dataDir)],
  };
  env = await startTestTemporal();
  engine = mediaEngine();
  const bundle = await workflowBundle();
  for (const [queue, eng] of [
    ['test-enrich-options-fake', engine],
    ['test-enrich-options-real', createEngineFromConfig(config)],
  ] as const) {
    const w = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue: queue,
      config,
      knex: testKnex(),
      engine: eng,
      workflowBundle: bundle,
      storage: enrichmentStorage(config),
    });
    workers.push(w);
    runs.push(w.run());
  }
  fakeApp = createApp({
    config,
    knex: testKnex(),
    jobRunner: new TemporalJobRunner(env.client, { taskQueue: 'test-enrich-options-fake', enrichConcurrency: 2 }),
  }).callback();
  realApp = createApp({
    config,
    knex: testKnex(),
    jobRunner: new TemporalJobRunner(env.client, { taskQueue: 'test-enrich-options-real', enrichConcurrency: 2 }),
  }).callback();
  org = await createTestOrg('enrich options');
}, 180_000);

afterAll(async () => {
  workers.forEach((w) => w.shutdown());
  await Promise.all(runs);
  await env?.teardown();
  await closeTestKnex();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const brand = { name: 'brand', type: 'string', description: 'Brand of the product' };
const images = { name: 'images', type: 'array', array_element_type: 'image_url', description: 'Product images' };

describe('catalog_id: staged changes on the job activity (docs/api-enrichment.md "Enrichment jobs")', () => {
  it('stages each result against the matched catalog item, with staged_change_id, and serves the activity', async () => {
    const knex = testKnex();
    const catalogId = await createTestCatalog(org.organizationId, {
      schema_definition: {
        type: 'object',
        properties: { sku: { type: 'string' }, title: { type: 'string' }, brand: { type: 'string', description: 'Brand' } },
      },
      taxonomy: { name: 'T', hierarchy_levels: ['l1'], nodes: { shoes: { name: 'Shoes', parent: null, attributes: [] } } },
    });
    const existingId = '5a1c0000-0000-4000-8000-' + String(Date.now()).slice(-12).padStart(12, '0');
    const otherId =
      '5a1c0000-0000-4000-8000-' +
      String(Date.now() + 1)
        .slice(-12)
        .padStart(12, '0');
    await knex('catalog_items').insert([
      { id: existingId, catalog_id: catalogId, business_key: 'A-1', data: { sku: 'A-1', title: 'Old', brand: 'Zeta' } },
      { id: otherId, catalog_id: catalogId, business_key: 'B-9', data: { sku: 'B-9', brand: 'Zeta' } },
    ]);
    const res = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        catalog_id: catalogId,
        output_schema: [brand],
        staged_status: 'draft',
        // The third row names its catalog item explicitly; its new SKU must not matter (and, an
        // identity field not requested, is never written: docs/api-enrichment.md "Refresh and merge").
        items: [
          { sku: 'A-1', name: 'Shoe one' },
          { sku: 'NEW-2', name: 'Shoe two' },
          { __catalog_item_id: otherId, sku: 'B-9X', name: 'Shoe nine' },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', successful: 3, credits_used: 3 });
    const jobId = res.body.job_id;
    const config = (await knex('enrichment_jobs').where({ id: jobId }).first('config')).config;
    expect(config.taxonomy.nodes.shoes.name).toBe('Shoes'); // request taxonomy defaults to the catalog's
    expect(config.known_values).toEqual({ brand: ['Zeta'] });

    const [first, second] = res.body.results;
    expect(first.staged_change_id).toEqual(expect.any(String));
    const list = await request(fakeApp).get(`/api/activities/${jobId}/staged-changes?page_size=10&include_drafts=true`).set(org.auth);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 3, page: 1, page_size: 10, total_pages: 1 });
    const [a, b, c] = list.body.items;
    expect(a).toMatchObject({
      id: first.staged_change_id,
      row_index: 0,
      status: 'draft',
      catalog_item_id: existingId,
      is_new_item: false,
      before_data: { sku: 'A-1', title: 'Old', brand: 'Zeta' },
      after_data: { sku: 'A-1', title: 'Old', brand: 'Acme', name: 'Shoe one' },
    });
    expect(a.after_data.sources).toBeUndefined();
    expect(a.source_data.sources.brand).toEqual(['https://shop.example/Shoe-one']);
    expect(b).toMatchObject({ id: second.staged_change_id, catalog_item_id: null, is_new_item: true, before_data: {} });
    expect(c).toMatchObject({
      id: res.body.results[2].staged_change_id,
      catalog_item_id: otherId,
      is_new_item: false,
      before_data: { sku: 'B-9', brand: 'Zeta' },
      after_data: { sku: 'B-9', brand: 'Acme', name: 'Shoe nine' },
    });

    // Drafts are read like any change (docs/review.md "Vendor drafts"): no flag needed (include_drafts=true, above, is still accepted).
    const activity = await request(fakeApp).get(`/api/activities/${jobId}`).set(org.auth);
    expect(activity.body).toMatchObject({ id: jobId, catalog_id: catalogId, type: 'enrichment', status: 'pending_review', staged_count: 3, draft_count: 3 });
    const summary = await request(fakeApp).get(`/api/activities/${jobId}/staged-changes/summary`).set(org.auth);
    expect(summary.body).toMatchObject({ total_changes: 3, by_status: { draft: 3 }, field_stats: { brand: { completed: 3, total: 3, completion_rate: 1 } } });
    const searched = await request(fakeApp).get(`/api/activities/${jobId}/staged-changes?search_query=shoe%20TWO&status=draft`).set(org.auth);
    expect(bodyOf<StagedChangeListBody>(searched).items.map((i) => i.row_index)).toEqual([1]);

    const stranger = await createTestOrg('stranger');
    expect((await request(fakeApp).get(`/api/activities/${jobId}`).set(stranger.auth)).status).toBe(403);
    expect((await request(fakeApp).get('/api/activities/00000000-0000-4000-8000-000000000000/staged-changes').set(org.auth)).status).toBe(404);
  });
});

describe('post-enrichment audit: audit_decisions_enabled and review_mode (docs/api-enrichment.md "Extra request fields")', () => {
  it('audits every result, stages only what needs a human as pending under review_mode flagged, and counts decisions on the poll', async () => {
    const catalogId = await createTestCatalog(org.organizationId, {
      schema_definition: { type: 'object', properties: { sku: { type: 'string' }, brand: { type: 'string' } } },
    });
    const items = [
      { sku: 'A-1', name: 'Shoe one', brand: 'Zeta' }, // the web says Acme: replaces an existing value → review
      { sku: 'P-2', name: 'Shoe two' }, // clean → pass
      { sku: 'P-3', name: 'Shoe three', cite: 'https://elsewhere.example/never-read' }, // cites an unread page → fail
    ];
    const res = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ catalog_id: catalogId, output_schema: [brand], review_mode: 'flagged', items });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', successful: 3, audit: { pass: 1, review_required: 1, fail: 1 } });
    expect(res.body.notices ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/audit/)]));
    const audits = bodyOf<EnrichBody>(res).results.map((r) => r.review_info.audit!);
    expect(audits.map((a) => a.decision)).toEqual(['review_required', 'pass', 'fail']);
    expect(audits[0].field_issues).toEqual([{ field: 'brand', message: 'Replaces the existing value "Zeta".' }]);
    expect(audits[2].reasons[0]).toBe('brand: Cites a page research never read: https://elsewhere.example/never-read.');
    const staged = await request(fakeApp).get(`/api/activities/${res.body.job_id}/staged-changes?include_drafts=true`).set(org.auth);
    expect(bodyOf<StagedChangeListBody>(staged).items.map((c) => [c.row_index, c.status, c.review_info.audit!.decision])).toEqual([
      [0, 'pending', 'review_required'],
      [1, 'draft', 'pass'],
      [2, 'pending', 'fail'],
    ]);
    const pendingOnly = await request(fakeApp).get(`/api/activities/${res.body.job_id}/staged-changes?status=pending`).set(org.auth);
    expect(pendingOnly.body.total).toBe(2);

    // audit_decisions_enabled alone annotates; staging follows staged_status.
    const annotated = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ catalog_id: catalogId, output_schema: [brand], audit_decisions_enabled: true, staged_status: 'draft', items });
    expect(annotated.body.audit).toEqual({ pass: 1, review_required: 1, fail: 1 });
    const drafts = await request(fakeApp).get(`/api/activities/${annotated.body.job_id}/staged-changes?status=draft`).set(org.auth);
    expect(drafts.body.total).toBe(3);

    // Without either option: no audit is run or reported.
    const plain = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ output_schema: [brand], items: items.slice(0, 1) });
    expect(plain.body.audit).toBeUndefined();
    expect(plain.body.results[0].review_info.audit).toBeUndefined();

    const bad = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ output_schema: [brand], items, review_mode: 'everything' });
    expect(bad.status).toBe(422);
    expect(bodyOf<ValidationErrorBody>(bad).detail.map((d) => d.loc.join('.'))).toEqual(['body.review_mode']);
  });
});

describe('host_media / strict_hosted_media', () => {
  it('rewrites image URLs to hosted copies served by /api/public/media, and strict mode clears what cannot be hosted', async () => {
    const res = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        output_schema: [brand, images],
        host_media: true,
        strict_hosted_media: true,
        include_debug_log: true,
        items: [{ name: 'ok item' }, { name: 'broken item', image: 'https://img.example/missing.png' }],
      });
    expect(res.status).toBe(200);
    const [ok, broken] = res.body.results;
    expect(ok.after_data.images).toEqual([expect.stringMatching(/^https:\/\/svc\.test\/api\/public\/media\/[0-9a-f]{64}\.png$/)]);
    expect(broken.after_data.images).toBeUndefined();
    expect(broken.after_data.sources.images).toBeUndefined();
    expect(broken.review_info.field_issues).toContainEqual({ field: 'images', message: expect.stringMatching(/strict_hosted_media/) });
    expect(ok.review_info.debug_log).toEqual(expect.arrayContaining([expect.stringMatching(/^media hosted: 1/)]));
    const mediaPath = new URL(ok.after_data.images[0]).pathname;
    const media = await request(fakeApp).get(mediaPath); // no auth: hosted media is embeddable
    expect(media.status).toBe(200);
    expect(media.headers['content-type']).toBe('image/png');
    expect(Buffer.from(media.body).equals(PNG)).toBe(true);
  });
});

describe('image_processing', () => {
  it('resizes, squares and re-encodes images before hosting them, without host_media', async () => {
    const res = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        output_schema: [brand, images],
        include_debug_log: true,
        image_processing: { enabled: true, make_square: true, background_color: '#ff0000', max_side_px: 100, output_format: 'webp', quality: 80 },
        items: [{ name: 'photo item', image: 'https://img.example/photo.png' }],
      });
    expect(res.status).toBe(200);
    const [result] = res.body.results;
    expect(result.after_data.images).toEqual([expect.stringMatching(/^https:\/\/svc\.test\/api\/public\/media\/[0-9a-f]{64}\.webp$/)]);
    expect(result.review_info.debug_log).toEqual(expect.arrayContaining([expect.stringMatching(/images processed: 1/)]));
    const media = await request(fakeApp).get(new URL(result.after_data.images[0]).pathname).buffer(true).parse(bufferBody);
    expect(media.headers['content-type']).toBe('image/webp');
    const { data, info } = await sharp(media.body as Buffer)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([100, 100]);
    // 300×200 scaled to 100×67, centred on a red square: the top row is padding, the centre the photo.
    const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    expect(pixel(50, 2)[0]).toBeGreaterThan(200);
    expect(pixel(50, 2)[2]).toBeLessThan(60);
    expect(pixel(50, 50)[2]).toBeGreaterThan(200);
    expect(pixel(50, 50)[0]).toBeLessThan(60);
  });
});

describe('resume (source_activity_id) and to-catalog', () => {
  it('processes the rest of a dry run without charging carried rows twice, then converts it into a catalog', async () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ sku: `R-${i}`, name: `resume item ${i}` }));
    const dry = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items, output_schema: [brand], max_rows: 2, pricing_estimates: true });
    expect(dry.body).toMatchObject({ status: 'completed', total_items: 2, total_rows: 5, credits_used: 2 });
    const before = engine.researched;
    const refused = await request(fakeApp).post('/api/public/enrich').set(org.auth).send({ source_activity_id: dry.body.job_id, speed: 'fast' });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'speed']);

    const resumed = await request(fakeApp).post('/api/public/enrich').set(org.auth).send({ source_activity_id: dry.body.job_id, pricing_estimates: undefined });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'completed', total_items: 5, total_rows: 5, completed_items: 5, successful: 5, credits_used: 3 });
    expect(engine.researched - before).toBe(3);
    expect(bodyOf<EnrichBody>(resumed).results.map((r) => r.after_data.brand)).toEqual(['Acme', 'Acme', 'Acme', 'Acme', 'Acme']);
    expect(resumed.body.pricing_estimates).toMatchObject({ credits_per_successful_item: 1, items: 5, items_carried_free: 2, estimated_credits: 3 });

    const created = await request(fakeApp)
      .post(`/api/public/enrich/${resumed.body.job_id}/to-catalog`)
      .set(org.auth)
      .send({ name: 'From resume', description: 'd' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'From resume', description: 'd', item_count: 5, unique_id_field: 'sku' });
    expect(created.body.schema.schema_definition.properties.brand).toMatchObject({ type: 'string', description: 'Brand of the product' });
    const rows = await testKnex()('catalog_items').where({ catalog_id: created.body.id }).orderBy('business_key');
    expect(rows[0].data).toEqual({ sku: 'R-0', name: 'resume item 0', brand: 'Acme' });
  });
});

describe('re-extraction and source artifacts on the real engine (offline archive)', () => {
  it('keeps the exact bytes of every consulted page, served org-scoped by SHA-256', async () => {
    const items = pages.map((p) => pageItem(p, labels[p.id], 'A'));
    const res = await request(realApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ items, output_schema: PAGES_SCHEMA, speed: 'fast', capture_source_artifacts: true });
    expect(res.status).toBe(200);
    const artifacts = res.body.results[0].source_artifacts as Array<{ url: string; sha256: string; artifact_url: string; content_type: string }>;
    expect(artifacts.length).toBeGreaterThan(0);
    const cited = artifacts.find((a) => a.url === pages[0].url)!;
    expect(cited).toBeDefined();
    const got = await request(realApp).get(`/api/public/artifacts/${cited.sha256}`).set(org.auth).buffer(true).parse(bufferBody);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toMatch(/html/);
    expect(createHash('sha256').update(got.body).digest('hex')).toBe(cited.sha256);
    const stranger = await createTestOrg('artifact stranger');
    expect((await request(realApp).get(`/api/public/artifacts/${cited.sha256}`).set(stranger.auth)).status).toBe(404);
  });

  it('re-extracts from stored research only: same research + request give the same output; overrides and row selection apply', async () => {
    const items = pages.map((p) => pageItem(p, labels[p.id], 'A'));
    const original = await request(realApp).post('/api/public/enrich').set(org.auth).send({ items, output_schema: PAGES_SCHEMA, speed: 'fast' });
    expect(original.body.successful).toBe(2);
    const jobId = original.body.job_id;
    const again = () => request(realApp).post('/api/public/enrich').set(org.auth).send({ reextract_from_activity_id: jobId });
    const r1 = await again();
    const r2 = await again();
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ status: 'completed', successful: 2, credits_used: 2 });
    const strip = (r: EnrichResultBody) => ({ after_data: r.after_data, all_sources: r.all_sources, review_info: r.review_info });
    const results = (res: { body: unknown }) => bodyOf<EnrichBody>(res).results.map(strip);
    expect(results(r1)).toEqual(results(r2));
    expect(results(r1)).toEqual(results(original));
    const usage = await testKnex()('enrichment_rows').where({ job_id: r1.body.job_id }).select('usage');
    expect(usage.every((u) => u.usage.search_calls === 0 && u.usage.pages_fetched === 0)).toBe(true);

    const narrowed = await request(realApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        reextract_from_activity_id: jobId,
        output_schema: [PAGES_SCHEMA[0]],
        source_row_indices: [1],
        global_feedback: 'prices include VAT',
        item_feedback: { 1: 'check the sale price' },
      });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body).toMatchObject({ successful: 2, credits_used: 1 });
    const [carried, redone] = narrowed.body.results;
    expect(carried.after_data).toEqual(original.body.results[0].after_data); // carried unchanged
    expect(redone.after_data.price).toBe(original.body.results[1].after_data.price);
    expect(redone.after_data.sku).toBeUndefined(); // only the overridden schema's fields
    expect(redone.review_info.feedback).toBe('prices include VAT\ncheck the sale price');

    const forbidden = await request(realApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ reextract_from_activity_id: jobId, allowed_domains: ['x.com'], source_row_indices: [7] });
    expect(forbidden.status).toBe(422);
    expect(bodyOf<ValidationErrorBody>(forbidden).detail.map((d) => d.loc.join('.'))).toEqual(['body.allowed_domains']);
  });
});

describe('request shapes existing clients send, run through Temporal', () => {
  it('review_mode: true runs the post-enrichment audit and stages every change; vector store noticed; pricing_estimates without asking', async () => {
    const catalogId = await createTestCatalog(org.organizationId, {
      schema_definition: { type: 'object', properties: { sku: { type: 'string' }, brand: { type: 'string' } } },
    });
    const items = [
      { sku: 'B-1', name: 'Boot one', brand: 'Zeta' },
      { sku: 'B-2', name: 'Boot two' },
    ];
    const res = await request(fakeApp)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ catalog_id: catalogId, output_schema: [brand], review_mode: true, knowledge_base_vector_store_id: 'vs_legacy', items });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', successful: 2, audit: { pass: 1, review_required: 1, fail: 0 } });
    expect(res.body.pricing_estimates).toMatchObject({ items: 2, estimated_credits: 2 });
    expect(res.body.notices).toEqual(expect.arrayContaining([expect.stringMatching(/^knowledge_base_vector_store_id/)]));
    expect(res.body.results.map((r: { review_info: { audit?: { decision: string } } }) => r.review_info.audit?.decision)).toEqual(['review_required', 'pass']);
    const staged = await request(fakeApp).get(`/api/activities/${res.body.job_id}/staged-changes`).set(org.auth);
    expect(bodyOf<StagedChangeListBody>(staged).items.map((c) => [c.row_index, c.status])).toEqual([
      [0, 'pending'],
      [1, 'pending'],
    ]);
  });
});
