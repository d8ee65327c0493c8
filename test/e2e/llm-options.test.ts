/**
 * End to end over HTTP → PostgreSQL → a real Temporal dev server → the worker's engine, for the
 * enrich options that need a model: with an OpenAI-compatible server on 127.0.0.1,
 * `prompt`, the catalog's quality prompt, `speed` (model), `validate_semantics` (the fit check)
 * and, on re-extraction, `global_feedback` + `item_feedback[row]` reach the model, as the server
 * asserts; without a model the prompt steers research and each option that could not act is
 * named in the job's `notices`.
 */
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createEngine } from '../../src/enrichment/engine';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { startModelServer, userJson, type ChatRequest, type ModelAnswer, type ModelServer } from '../helpers/model-server';
import { runTestWorker, startTestTemporal, testApiFor, type RunningTestWorker } from '../helpers/temporal';
import { onePageSite } from '../helpers/one-page-site';

const PAGE_URL = 'https://shop.example.com/acme-widget-3000';
const PAGE = `<html><head><title>Acme Widget 3000</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Widget 3000","brand":{"@type":"Brand","name":"Acme"},"sku":"AW-3000"}</script>
</head><body><h1>Acme Widget 3000</h1><p>Finished in brushed steel.</p></body></html>`;

/** Research: one shop page for any query; the queries sent are recorded. */
const { search, fetcher, queries } = onePageSite(PAGE_URL, PAGE, 'Acme Widget 3000');

/** The model: reads the material from the page; on the fit check, says a "brushed" finish is not a material. */
function answer(req: ChatRequest): ModelAnswer {
  const name = req.response_format.json_schema.name;
  if (name === 'enrichment')
    return {
      content: {
        fields: {
          brand: { value: 'Acme', source_url: PAGE_URL, quote: 'Acme', explanation: 'The JSON-LD brand.', confidence: 'high' },
          material: { value: 'brushed steel', source_url: PAGE_URL, quote: 'Finished in brushed steel', explanation: 'The description.', confidence: 'high' },
        },
      },
    };
  if (name === 'field_fit') {
    const values = userJson(req).values as Array<{ name: string; value: unknown }>;
    const verdict = (v: { value: unknown }) =>
      String(v.value).includes('brushed') ? { fits: false, reason: '"brushed" is a finish, not a material.' } : { fits: true, reason: 'Fits.' };
    return { content: { fields: Object.fromEntries(values.map((v) => [v.name, verdict(v)])) } };
  }
  return { status: 400 };
}

const schema = { type: 'object', properties: { sku: { type: 'string' }, name: { type: 'string' }, brand: { type: 'string' }, material: { type: 'string' } } };
const outputSchema = [
  { name: 'brand', type: 'string', description: 'Brand of the product' },
  { name: 'material', type: 'string', description: 'Main material of the product' },
];
const items = [
  { sku: 'W-1', name: 'Acme Widget 3000' },
  { sku: 'W-2', name: 'Acme Widget 3000' },
];

let env: TestWorkflowEnvironment;
let server: ModelServer;
const workers: RunningTestWorker[] = [];
let withModel: ReturnType<ReturnType<typeof createApp>['callback']>;
let withoutModel: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;

beforeAll(async () => {
  server = await startModelServer(answer);
  env = await startTestTemporal();
  const llm = { baseUrl: server.baseUrl, apiKey: 'test-key', model: 'm-default', timeoutMs: 5_000, maxRetries: 0, models: { fast: 'm-fast', deep: 'm-deep' } };
  workers.push(await runTestWorker(env, { taskQueue: 'test-llm-options-model', knex: testKnex(), engine: createEngine({ search, fetcher, llm }) }));
  workers.push(await runTestWorker(env, { taskQueue: 'test-llm-options-none', knex: testKnex(), engine: createEngine({ search, fetcher }) }));
  withModel = testApiFor(env, 'test-llm-options-model', { config: { ...loadConfig(), llm } });
  withoutModel = testApiFor(env, 'test-llm-options-none', { config: { ...loadConfig(), llm: null } });
  org = await createTestOrg('llm options');
  catalogId = await createTestCatalog(org.organizationId, { schema_definition: schema, quality_prompt: 'Materials in lower case, as the maker names them.' });
}, 180_000);

afterAll(async () => {
  for (const w of workers) await w.stop();
  await env?.teardown();
  await server.close();
  await closeTestKnex();
});

beforeEach(() => {
  server.requests.length = 0;
  queries.length = 0;
});

/** The extraction requests the model received, by the item's SKU. */
function extractionBySku(): Map<string, Record<string, unknown>> {
  return new Map(server.named('enrichment').map((r) => [String((userJson(r).item as { sku: string }).sku), userJson(r)]));
}

describe('with a model', () => {
  it('sends prompt, quality prompt, speed model and the fit check; re-extraction sends each row its feedback', async () => {
    const res = await request(withModel).post('/api/public/enrich').set(org.auth).send({
      catalog_id: catalogId,
      items,
      output_schema: outputSchema,
      prompt: 'Name the material as the maker does.',
      speed: 'fast',
      validate_semantics: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', successful: 2 });
    expect(res.body.notices ?? []).toEqual([]);
    const sent = extractionBySku();
    expect([...sent.keys()].sort()).toEqual(['W-1', 'W-2']);
    for (const body of sent.values())
      expect(body).toMatchObject({
        instructions: 'Name the material as the maker does.',
        catalog_quality_rules: 'Materials in lower case, as the maker names them.',
      });
    expect(server.named('enrichment').map((r) => r.model)).toEqual(['m-fast', 'm-fast']);
    const fits = server.named('field_fit');
    expect(fits).toHaveLength(2);
    expect(userJson(fits[0]).values).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'material', value: 'brushed steel', description: 'Main material of the product' })]),
    );
    const result = res.body.results[0];
    expect(result.after_data.material).toBe('brushed steel');
    expect(result.review_info.flags).toContain('semantic_mismatch');
    expect(result.review_info.field_issues).toEqual(
      expect.arrayContaining([{ field: 'material', message: 'Does not fit its field: "brushed" is a finish, not a material.' }]),
    );
    // The staged change carries the same review_info.
    const staged = await testKnex()('staged_changes').where({ activity_id: res.body.job_id }).select('review_info');
    expect(staged.map((s) => s.review_info.flags)).toEqual([expect.arrayContaining(['semantic_mismatch']), expect.arrayContaining(['semantic_mismatch'])]);

    server.requests.length = 0;
    queries.length = 0;
    const again = await request(withModel)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        reextract_from_activity_id: res.body.job_id,
        global_feedback: 'Brand names in capitals.',
        item_feedback: { '1': 'The material is on the spec sheet.' },
      });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'completed', successful: 2 });
    expect(again.body.notices ?? []).toEqual([]);
    const resent = extractionBySku();
    expect(resent.get('W-1')).toMatchObject({ reviewer_feedback: 'Brand names in capitals.', instructions: 'Name the material as the maker does.' });
    expect(resent.get('W-2')).toMatchObject({ reviewer_feedback: 'Brand names in capitals.\nThe material is on the spec sheet.' });
    expect(queries).toEqual([]); // re-extraction does no research
  }, 120_000);
});

describe('without a model', () => {
  it('steers research with the prompt and names every option that could not act in notices', async () => {
    const res = await request(withoutModel)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        catalog_id: catalogId,
        items: [items[0]],
        output_schema: outputSchema,
        prompt: 'Cordless drills; prefer acme-tools.example',
        speed: 'fast',
        validate_semantics: true,
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', successful: 1 });
    expect(queries).toEqual(['W-1', 'Acme Widget 3000 cordless drills']); // the SKU, then the name with the prompt's words
    const notices: string[] = res.body.notices;
    expect(notices).toEqual(
      expect.arrayContaining([
        'prompt: only steered research: its product words (cordless, drills) were added to the name query; the domains it names (acme-tools.example) were preferred as sources; no model is configured (OPENAI_BASE_URL), so extraction did not follow its instructions',
        'catalog quality prompt: not applied: no model is configured (OPENAI_BASE_URL)',
        expect.stringMatching(/^validate_semantics: only the rule checks ran .*no model is configured/),
        expect.stringMatching(/^speed: chose the research budget only; .*no model is configured/),
      ]),
    );
    expect(server.requests).toEqual([]);

    // A resume carries the saved config and its notices: each listed once.
    const resumed = await request(withoutModel).post('/api/public/enrich').set(org.auth).send({ source_activity_id: res.body.job_id });
    expect(resumed.status).toBe(200);
    expect(resumed.body.notices).toEqual(expect.arrayContaining(notices));
    expect(new Set(resumed.body.notices).size).toBe(resumed.body.notices.length);

    const again = await request(withoutModel)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({ reextract_from_activity_id: res.body.job_id, global_feedback: 'Brand names in capitals.', item_feedback: { '0': 'Look again.' } });
    expect(again.status).toBe(200);
    expect(again.body.results[0].review_info.feedback).toBe('Brand names in capitals.\nLook again.');
    expect(again.body.notices).toEqual(
      expect.arrayContaining([
        'prompt: not applied: no model is configured (OPENAI_BASE_URL) and this job does no web research for it to steer',
        expect.stringMatching(/^global_feedback: not applied: no model is configured/),
        expect.stringMatching(/^item_feedback: not applied: no model is configured/),
        'catalog quality prompt: not applied: no model is configured (OPENAI_BASE_URL)',
      ]),
    );
    expect(server.requests).toEqual([]);
  }, 120_000);
});
