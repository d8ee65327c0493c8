/**
 * Catalog text examples of jobs (src/services/enrichment/rows/examples.ts): sampled at job creation
 * for `web_search: false` jobs with `catalog_id` and stored beside the job (table
 * `enrichment_job_examples`, not the config), copied to resumed and re-extracted jobs, loaded
 * once per process by the worker. No job runs here: a JobRunner that records starts stands in
 * for Temporal (running jobs: test/e2e/catalog-text-examples.test.ts). Called through the typed
 * client (packages/client).
 */
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/lib/ids';
import { createEnrichmentCaches } from '../../src/services/enrichment/enrichment-caches';
import { catalogTextExamples, jobTextExamples, TEXT_EXAMPLE_ITEMS } from '../../src/services/enrichment/rows/examples';
import { setJobStep } from '../../src/services/enrichment/rows/progress';
import type { JobRunner } from '../../src/services/job-runner';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

const recorder: JobRunner = {
  async startEnrichment() {},
  async cancel() {},
  async waitForClose() {},
  async startSearchIndexBuild() {
    return false;
  },
  async startApply() {},
  async startFlowRun() {},
  async ping() {},
};

/** `POST /api/public/enrich`: the JSON body. */
type EnrichBody = NonNullable<paths['/api/public/enrich']['post']['requestBody']>['content']['application/json'];
/** A field of `output_schema`. */
type OutputField = NonNullable<EnrichBody['output_schema']>[number];

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with `org`'s credential. */
let api: CatalogClient;
const brand: OutputField = { name: 'brand', type: 'string', description: 'Brand' };
const line: OutputField = { name: 'product_line', type: 'string', description: 'Product line' };
const SCHEMA = {
  type: 'object',
  properties: { sku: { type: 'string' }, title: { type: 'string' }, brand: { type: 'string' }, product_line: { type: 'string' } },
};
const BASE = Date.parse('2026-01-01T00:00:00Z');

beforeAll(async () => {
  server = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: recorder }));
  org = await createTestOrg('job text examples');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** Inserts items into a catalog, the i-th created i seconds after 2026-01-01 (so the last is newest). */
async function insertItems(catalogId: string, items: Array<Record<string, unknown>>): Promise<void> {
  await testKnex()('catalog_items').insert(
    items.map((data, i) => ({ id: newId(), catalog_id: catalogId, business_key: null, created_at: new Date(BASE + i * 1000), data })),
  );
}

/** A stored text example: the item text and the values labelled in it. */
interface TextExample {
  text: string;
  values: Record<string, string>;
}

const examplesOf = async (jobId: string): Promise<TextExample[] | undefined> =>
  (await testKnex()('enrichment_job_examples').where({ job_id: jobId }).first('examples'))?.examples;
const textsOf = async (jobId: string) => (await testKnex()('enrichment_job_examples').where({ job_id: jobId }).first('texts'))?.texts;

/** `POST /api/public/enrich` of an async job with `body`; asserts 200 and returns the job id. */
const post = async (body: EnrichBody): Promise<string> => {
  const res = await api.POST('/api/public/enrich', { body: { async_mode: true, ...body } });
  expect(res.response.status).toBe(200);
  return res.data!.job_id;
};

describe('examples at job creation', () => {
  let catalogId: string;

  beforeAll(async () => {
    catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
    await insertItems(catalogId, [
      { sku: 'A-1', title: 'Acme Zephyr Pro 500 ml', brand: 'Acme', product_line: 'Zephyr Pro', description: 'A bottle by ACME.' },
      { sku: 'A-2', title: 'Acme bottle', price: 9 }, // no value among the output fields
      { sku: 'A-3', brand: 'Acme', product_line: 'Nimbus' }, // no text states a value
      { sku: 'A-4', title: 'Borealis Quill Edge', brand: 'Borealis', product_line: 'Quill Edge', weight: 2, __catalog_item_id: 'x' },
      { sku: 'A-5', title: 'Castor kettle', brand: 'Castor', product_line: ['Kettle One'], notes: 'by castor, nothing else' },
    ]);
  });

  it("stores the newest items' texts that state values, per item field, with the values each states", async () => {
    const jobId = await post({ catalog_id: catalogId, web_search: false, output_schema: [brand, line], items: [{ sku: 'N-1', title: 'Acme Nimbus Max' }] });
    // jsonb keeps keys shortest first; SKUs never state a value, so no SKU text is an example.
    expect(await examplesOf(jobId)).toEqual([
      { field: 'notes', text: 'by castor, nothing else', values: { brand: 'Castor' } },
      { field: 'title', text: 'Castor kettle', values: { brand: 'Castor' } },
      { field: 'title', text: 'Borealis Quill Edge', values: { brand: 'Borealis', product_line: 'Quill Edge' } },
      { field: 'title', text: 'Acme Zephyr Pro 500 ml', values: { brand: 'Acme', product_line: 'Zephyr Pro' } },
      { field: 'description', text: 'A bottle by ACME.', values: { brand: 'Acme' } },
    ]);
    // Not in the config, which every row reads.
    const config = (await testKnex()('enrichment_jobs').where({ id: jobId }).first('config')).config;
    expect(JSON.stringify(config)).not.toContain('Borealis Quill Edge');
    expect(config.known_values.brand).toEqual(expect.arrayContaining(['Acme', 'Borealis', 'Castor']));
  });

  it("stores the job's own item texts beside them, of the fields the examples teach, in row order", async () => {
    const jobId = await post({
      catalog_id: catalogId,
      web_search: false,
      output_schema: [brand, line],
      items: [
        { sku: 'N-1', title: 'Acme Nimbus Max', description: 'Light.\nStrong.' },
        { sku: 'N-2', title: '  ', notes: 'by borealis' },
        { sku: 'N-3', title: 'Castor Kettle Two', color: 'red' },
      ],
    });
    // SKUs and colours never state a catalog value: the model does not read them.
    expect(await textsOf(jobId)).toEqual(['Acme Nimbus Max', 'Light.\nStrong.', 'by borealis', 'Castor Kettle Two']);
  });

  it('samples nothing for web research jobs or jobs without a catalog', async () => {
    const web = await post({ catalog_id: catalogId, output_schema: [brand, line], items: [{ sku: 'N-1', title: 'Acme Nimbus Max' }] });
    expect(await examplesOf(web)).toBeUndefined();
    const inline = await post({ web_search: false, output_schema: [brand, line], items: [{ sku: 'N-1', title: 'Acme Nimbus Max' }] });
    expect(await examplesOf(inline)).toBeUndefined();
  });

  it("samples for the attribute sets' fields too", async () => {
    const jobId = await post({
      catalog_id: catalogId,
      web_search: false,
      output_schema: [brand],
      attribute_sets: { lines: [line] },
      items: [{ sku: 'N-1', title: 'Acme Nimbus Max', attribute_set_id: 'lines' }],
    });
    expect((await examplesOf(jobId))!.find((e) => e.text === 'Borealis Quill Edge')!.values).toEqual({ brand: 'Borealis', product_line: 'Quill Edge' });
  });

  it('resumed and re-extracted jobs copy the examples of the job they continue', async () => {
    const source = await post({ catalog_id: catalogId, web_search: false, output_schema: [brand, line], items: [{ sku: 'N-1', title: 'Acme Nimbus Max' }] });
    const stored = await examplesOf(source);
    expect(stored).toHaveLength(5);
    await testKnex()('enrichment_jobs').where({ id: source }).update({ status: 'completed' });
    // The catalog changes afterwards: the continuing jobs still learn from the stored examples.
    await insertItems(catalogId, [{ sku: 'A-6', title: 'Dunmore Tovex One', brand: 'Dunmore', product_line: 'Tovex One' }]);
    const resumed = await post({ source_activity_id: source });
    expect(await examplesOf(resumed)).toEqual(stored);
    const reextracted = await post({ reextract_from_activity_id: source });
    expect(await examplesOf(reextracted)).toEqual(stored);
    // The item texts come along: the continuing jobs train the very same model.
    expect(await textsOf(resumed)).toEqual(['Acme Nimbus Max']);
    expect(await textsOf(reextracted)).toEqual(await textsOf(source));
    // A job of a catalog without examples passes on none.
    const web = await post({ catalog_id: catalogId, output_schema: [brand], items: [{ sku: 'N-1' }] });
    await testKnex()('enrichment_jobs').where({ id: web }).update({ status: 'completed' });
    expect(await examplesOf(await post({ source_activity_id: web }))).toBeUndefined();
  });

  it("the worker loads a job's examples and texts once per process (the same arrays for every row)", async () => {
    const jobId = await post({ catalog_id: catalogId, web_search: false, output_schema: [brand, line], items: [{ sku: 'N-1', title: 'Acme Nimbus Max' }] });
    const cache = createEnrichmentCaches().jobTextExamples;
    const first = jobTextExamples(testKnex(), cache, jobId);
    expect(jobTextExamples(testKnex(), cache, jobId)).toBe(first);
    expect((await first).examples).toHaveLength(6);
    expect((await first).texts).toEqual(['Acme Nimbus Max']);
    expect(await jobTextExamples(testKnex(), cache, newId())).toEqual({ examples: [], texts: [] });
  });
});

test('the job poll shows the training step (current_step) while the text model learns, null once finished', async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  await insertItems(catalogId, [{ title: 'Acme Zephyr Pro 500 ml', brand: 'Acme' }]);
  const jobId = await post({ catalog_id: catalogId, web_search: false, output_schema: [brand], items: [{ title: 'Acme Nimbus' }] });
  const poll = async () => {
    const res = await api.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: jobId } } });
    expect(res.response.status).toBe(200);
    return res.data!.current_step;
  };
  expect(await poll()).toBe('enriching_items');
  await setJobStep(testKnex(), jobId, 'training_text_model');
  expect(await poll()).toBe('training_text_model');
  await setJobStep(testKnex(), jobId, null);
  expect(await poll()).toBe('enriching_items');
  await testKnex()('enrichment_jobs').where({ id: jobId }).update({ status: 'completed' });
  // A finished job keeps no step, and a late step report does not touch it.
  await setJobStep(testKnex(), jobId, 'training_text_model');
  expect(await poll()).toBeNull();
});

test(`at most ${TEXT_EXAMPLE_ITEMS} items, the newest`, async () => {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  const n = TEXT_EXAMPLE_ITEMS + 5;
  await insertItems(
    catalogId,
    Array.from({ length: n }, (_, i) => ({ title: `Acme Line${i} 1 l`, brand: 'Acme' })),
  );
  const examples = await catalogTextExamples(testKnex(), catalogId, ['brand', 'product_line']);
  expect(examples).toHaveLength(TEXT_EXAMPLE_ITEMS);
  expect(examples[0]!.text).toBe(`Acme Line${n - 1} 1 l`);
  expect(examples[TEXT_EXAMPLE_ITEMS - 1]!.text).toBe(`Acme Line${n - TEXT_EXAMPLE_ITEMS} 1 l`);
});
