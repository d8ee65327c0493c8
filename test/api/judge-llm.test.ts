/**
 * `POST /api/public/judge` with a model (docs/api-enrichment.md "Judging"): the catalog's quality
 * prompt, the request's prompt, the fields and the row's images reach an OpenAI-compatible server
 * on 127.0.0.1, its decisions are the answer, and the rules cross-check them (a rule failure the
 * model passed goes to review, flagged) and decide when the call fails. Without a model, every
 * option that needed one is named in `meta.notices`. Called through the typed client
 * (packages/client).
 */
import type { Server } from 'node:http';
import type { CatalogClient } from '@catalog-enrichment/client';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { rowImageUrls } from '../../src/services/enrichment/judge/judge-llm';
import { noJobs } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { startModelServer, userJson, type ChatRequest, type ModelAnswer, type ModelServer } from '../helpers/model-server';

const schema = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    title: { type: 'string', description: 'Product title' },
    gtin: { type: 'string', description: 'GTIN-13 barcode' },
    images: { type: 'array', items: { type: 'string', format: 'uri' }, description: 'Product photos' },
  },
  required: ['sku'],
};

/** The model: fails rows whose title is lower case, passes the rest; a row with sku `DOWN` gets a 500. */
function answer(req: ChatRequest): ModelAnswer {
  const row = userJson(req).row as Record<string, unknown>;
  if (row.sku === 'DOWN') return { status: 500 };
  const lower = typeof row.title === 'string' && row.title === row.title.toLowerCase();
  return {
    content: lower
      ? {
          decision: 'fail',
          confidence: 'high',
          reasons: ['Titles must start with a capital letter.'],
          field_issues: [{ field: 'title', message: 'Not capitalised.' }],
        }
      : { decision: 'pass', confidence: 'high', reasons: ['Meets the quality rules.'], field_issues: [] },
  };
}

let server: ModelServer;
/** The app with the model configured, served. */
let withModel: Server;
/** The app without a model (the test configuration), served. */
let withoutModel: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client of {@link withModel} with `org`'s credential. */
let api: CatalogClient;

beforeAll(async () => {
  server = await startModelServer(answer);
  const config = {
    ...loadConfig(),
    llm: { baseUrl: server.baseUrl, apiKey: 'test-key', model: 'm-default', timeoutMs: 5_000, maxRetries: 0, models: { deep: 'm-deep' }, reasoning: true },
  };
  withModel = await listenTestApp(createApp({ config, knex: testKnex(), jobRunner: noJobs }));
  withoutModel = await listenTestApp();
  org = await createTestOrg('judge llm');
  api = typedClient(withModel, org.auth);
});
afterAll(async () => {
  await closeServer(withModel);
  await closeServer(withoutModel);
  await server.close();
  await closeTestKnex();
});
beforeEach(() => {
  server.requests.length = 0;
});

describe('POST /public/judge with a model', () => {
  it("sends the quality prompt, the prompt, the fields and the row's images; returns the model's decisions cross-checked by the rules", async () => {
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema, quality_prompt: 'Titles start with a capital letter.' });
    const res = await api.POST('/api/public/judge', {
      body: {
        catalog_id: catalog,
        prompt: 'Check that the photos show the product.',
        model: 'high',
        images: true,
        rows: [
          { sku: 'A-1', title: 'Oak table', gtin: '4006381333931', images: ['https://img.example/a1.jpg', 'https://img.example/a1-side.jpg'] },
          { sku: 'A-2', title: 'oak chair' },
          // The GS1 check digit is wrong: the rules fail it, the model passes it.
          { sku: 'A-3', title: 'Oak bench', gtin: '4006381333932' },
        ],
      },
    });
    expect(res.response.status).toBe(200);
    expect(server.named('judgment')).toHaveLength(3);
    const first = server.requests.find((r) => (userJson(r).row as { sku: string }).sku === 'A-1')!;
    expect(first.model).toBe('m-deep');
    expect(first.reasoning_effort).toBe('high');
    expect(first.response_format.json_schema.strict).toBe(true);
    expect(userJson(first)).toMatchObject({
      catalog_quality_rules: 'Titles start with a capital letter.',
      instructions: 'Check that the photos show the product.',
      row: { sku: 'A-1', title: 'Oak table' },
    });
    expect((userJson(first).fields as Array<{ name: string }>).map((f) => f.name).sort()).toEqual(['gtin', 'images', 'sku', 'title']);
    const parts = first.messages[1].content as Array<{ type: string; image_url?: { url: string } }>;
    expect(parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url)).toEqual(['https://img.example/a1.jpg', 'https://img.example/a1-side.jpg']);

    const [ok, lower, ruleFail] = res.data!.judgments;
    expect(ok).toMatchObject({ row_index: 0, decision: 'pass', method: 'llm', rule_decision: 'pass', reasons: ['Meets the quality rules.'], flags: [] });
    // The model's decision stands where the rules have nothing against it (they pass the row): flagged as a disagreement.
    expect(lower).toMatchObject({ decision: 'fail', method: 'llm', rule_decision: 'pass', confidence: 'low', flags: ['rules_disagree'] });
    expect(lower.field_issues).toEqual([{ field: 'title', message: 'Not capitalised.' }]);
    expect(ruleFail).toMatchObject({ decision: 'review_required', rule_decision: 'fail', flags: ['model_passed_rule_failure'] });
    expect(ruleFail.reasons.at(-1)).toMatch(/The rules fail this row .*gtin.*, but the model passed it/);
    expect(ruleFail.field_issues.map((i) => i.field)).toContain('gtin');
    expect(res.data!.meta).toMatchObject({
      method: 'llm',
      model: 'm-deep',
      images_used: true,
      llm_failed_rows: 0,
      notices: [],
      counts: { pass: 1, fail: 1, review_required: 1 },
    });
  });

  it('falls back to the rules for a row the model cannot judge', async () => {
    const res = await api.POST('/api/public/judge', {
      body: {
        schema,
        rows: [
          { sku: 'DOWN', title: 'Oak', gtin: '123' },
          { sku: 'B-2', title: 'Pine shelf' },
        ],
      },
    });
    expect(res.response.status).toBe(200);
    const [down, ok] = res.data!.judgments;
    expect(down).toMatchObject({ decision: 'fail', method: 'rules', flags: ['llm_failed'] });
    expect(down.reasons.at(-1)).toMatch(/The model could not judge this row .*; the rules decided/);
    expect(ok).toMatchObject({ decision: 'pass', method: 'llm' });
    expect(res.data!.meta).toMatchObject({ method: 'llm', model: 'm-default', llm_failed_rows: 1, images_used: false });
  });

  it('sends a model name (the other client generation) to the model endpoint as it is, and echoes it', async () => {
    const res = await api.POST('/api/public/judge', {
      body: { schema, model: 'gpt-5.2', strictness: 'medium', max_rows: 10, rows: [{ sku: 'C-1', title: 'Walnut desk' }] },
    });
    expect(res.response.status).toBe(200);
    expect(server.requests.map((r) => r.model)).toEqual(['gpt-5.2']);
    expect(res.data!.judgments[0]).toMatchObject({ decision: 'pass', method: 'llm' });
    expect(res.data!.meta).toMatchObject({ method: 'llm', model: 'gpt-5.2', notices: [] });
  });
});

describe('POST /public/judge without a model', () => {
  it('judges by rules and names every option that needed a model', async () => {
    const catalog = await createTestCatalog(org.organizationId, { schema_definition: schema, quality_prompt: 'Titles start with a capital letter.' });
    const res = await typedClient(withoutModel, org.auth).POST('/api/public/judge', {
      body: {
        catalog_id: catalog,
        prompt: 'Check the photos.',
        model: 'fast',
        images: true,
        rows: [{ sku: 'A-1', title: 'oak chair', images: ['https://img.example/1.jpg'] }],
      },
    });
    expect(res.response.status).toBe(200);
    expect(server.requests).toEqual([]);
    const body = res.data!;
    expect(body.judgments[0]).toMatchObject({ decision: 'pass' });
    expect(body.judgments[0]).not.toHaveProperty('method');
    expect(body.meta).toMatchObject({ method: 'rules', images_used: false });
    const notices = body.meta.notices;
    for (const option of ['prompt', 'catalog quality prompt', 'model', 'images'])
      expect(notices).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${option}: not .*no model is configured`))]));
  });
});

describe('rowImageUrls', () => {
  const fields = [{ name: 'pictures', type: 'array' as const, array_element_type: 'image_url' as const, description: 'Photos' }];
  it('reads image fields and a row-level images key, or the request map by row index', () => {
    const row = { images: ['https://a.example/1.png'], data: {} };
    expect(
      rowImageUrls(
        row,
        { pictures: ['https://a.example/2.png', 'not a url'], thumbnail_url: 'https://a.example/3.png', title: 'https://a.example/x' },
        0,
        fields,
        true,
      ),
    ).toEqual(['https://a.example/1.png', 'https://a.example/2.png', 'https://a.example/3.png']);
    expect(rowImageUrls(row, {}, 4, fields, { '4': ['https://b.example/4.png'], '5': ['https://b.example/5.png'] })).toEqual(['https://b.example/4.png']);
    expect(rowImageUrls(row, { pictures: ['https://a.example/2.png'] }, 0, fields, false)).toEqual([]);
  });
});
