/**
 * A `web_search: false` job that writes to a catalog learns from the catalog's own items
 * (src/services/enrichment/rows/examples.ts, src/enrichment/learned-text.ts): over HTTP →
 * PostgreSQL → a real Temporal dev server → the worker's real engine.
 *
 * The catalog writes a made-up product line between brand and size in its titles
 * ("Acme Zelara Pro 500 ml Water Bottle"); new items carry lines the catalog has never seen and
 * the request's `sample_values` do not list, so neither vocabulary nor any built-in pattern of
 * the rule layer can find them: only the position learned from the catalog's titles can. The
 * same request against a catalog holding the same values without titles (so the same known
 * values, but no examples) finds none, which is what lets this test fail.
 */
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { createEngine } from '../../src/enrichment';
import { newId } from '../../src/lib/ids';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { bodyOf, EnrichBody, EnrichResultBody } from '../helpers/wire';
import { noResearch } from '../helpers/no-research';

const TASK_QUEUE = 'test-e2e-catalog-text-examples';
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;

const FIRST = ['Zeph', 'Nim', 'Quor', 'Vel', 'Tam', 'Brix', 'Sol', 'Kor', 'Lum', 'Dax', 'Fen', 'Gar', 'Hol', 'Jin'];
/** First syllables only new items' lines use. */
const NEW_FIRST = ['Mav', 'Pex', 'Rul', 'Syl', 'Tov', 'Wex'];
const SECOND = ['ara', 'ion', 'ex', 'ano', 'ix', 'ora', 'elle', 'ust', 'ium', 'ond'];
const TIER = ['Pro', 'Max', 'Lite', 'Air', 'One', 'Plus', 'Edge', 'Core'];
const BRANDS = ['Acme', 'Borealis', 'Castor', 'Dunmore', 'Elbrus'];
const NOUNS = ['Water Bottle', 'Travel Mug', 'Lunch Box', 'Thermos', 'Flask'];
const SIZES = ['350 ml', '500 ml', '750 ml', '1 l', '1.5 l'];

interface Product {
  sku: string;
  title: string;
  brand: string;
  product_line: string;
  size: string;
}

/** The i-th product: `<brand> <line> <size> <noun>`; `fresh` products use lines no catalog item has. */
function product(i: number, fresh = false): Product {
  const line = fresh
    ? `${NEW_FIRST[i % NEW_FIRST.length]}${SECOND[(i * 3) % SECOND.length]} ${TIER[(i * 5) % TIER.length]}`
    : `${FIRST[(i * 7) % FIRST.length]}${SECOND[(i * 3) % SECOND.length]} ${TIER[i % TIER.length]}`;
  const brand = BRANDS[i % BRANDS.length]!;
  const size = SIZES[(i * 2) % SIZES.length]!;
  return { sku: `${fresh ? 'NEW' : 'BT'}-${1000 + i}`, title: `${brand} ${line} ${size} ${NOUNS[(i * 3) % NOUNS.length]}`, brand, product_line: line, size };
}

const CATALOG = Array.from({ length: 60 }, (_, i) => product(i));
const FRESH = Array.from({ length: 10 }, (_, i) => product(i, true));

const brand = { name: 'brand', type: 'string', description: 'Brand' };
const productLine = { name: 'product_line', type: 'string', description: 'Product line (series) of the brand', sample_values: ['Series 5'] };
const size = { name: 'size', type: 'string', description: 'Capacity' };
const SCHEMA = {
  type: 'object',
  properties: { sku: { type: 'string' }, title: { type: 'string' }, brand: { type: 'string' }, product_line: { type: 'string' }, size: { type: 'string' } },
  required: ['sku'],
};

/** A catalog holding `CATALOG` (with titles, or values only), created 1 s apart per item. */
async function catalogOf(withTitles: boolean): Promise<string> {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA });
  const base = Date.parse('2026-01-01T00:00:00Z');
  await testKnex()('catalog_items').insert(
    CATALOG.map((p, i) => ({
      id: newId(),
      catalog_id: catalogId,
      business_key: p.sku,
      created_at: new Date(base + i * 1000),
      data: withTitles ? p : { sku: p.sku, brand: p.brand, product_line: p.product_line, size: p.size },
    })),
  );
  return catalogId;
}

beforeAll(async () => {
  env = await startTestTemporal();
  // web_search: false never searches or fetches: providers that refuse are enough.
  const engine = createEngine(noResearch('web_search: false'));
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine });
  app = testApiFor(env, TASK_QUEUE);
  org = await createTestOrg('catalog text examples');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

/** Runs a synchronous web_search: false job writing to `catalogId`; returns the response body. */
async function enrich(catalogId: string, body: Record<string, unknown> = {}): Promise<EnrichBody> {
  const res = await request(app)
    .post('/api/public/enrich')
    .set(org.auth)
    .send({
      catalog_id: catalogId,
      web_search: false,
      output_schema: [brand, productLine, size],
      items: FRESH.map((p) => ({ sku: p.sku, title: p.title })),
      ...body,
    });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  return bodyOf<EnrichBody>(res);
}

describe('web_search: false jobs with catalog_id learn from the catalog items', () => {
  let withTitles: string;
  let learned: EnrichBody;

  beforeAll(async () => {
    withTitles = await catalogOf(true);
    learned = await enrich(withTitles);
  }, 120_000);

  it('reads product lines the catalog has never seen from where its titles put them', async () => {
    expect(learned.results.map((r) => r.after_data.product_line)).toEqual(FRESH.map((p) => p.product_line));
    expect(learned.results.map((r) => r.after_data.brand)).toEqual(FRESH.map((p) => p.brand));
    expect(learned.results.map((r) => r.after_data.size)).toEqual(FRESH.map((p) => p.size));
    const [first] = learned.results;
    expect(first.after_data.sources.product_line).toEqual(['INPUT:title']);
    expect(first.review_info.field_methods.product_line).toBe('text');
    expect(first.review_info.reasoning).toMatch(/title read by a tagger learned from 60 example texts/);
    // One title per item, newest item first; SKUs state no value, so they are not examples (and
    // the engine reads the new items' SKUs with the rule layer, which finds no brand in "NEW-1000").
    const stored = await testKnex()('enrichment_job_examples').where({ job_id: learned.job_id }).first('examples');
    expect(stored.examples).toHaveLength(60);
    expect(stored.examples[0]).toEqual({
      field: 'title',
      text: CATALOG[59]!.title,
      values: { brand: CATALOG[59]!.brand, product_line: CATALOG[59]!.product_line, size: CATALOG[59]!.size },
    });
  });

  it('finds none of them without examples (same values in the catalog, no titles)', async () => {
    const valuesOnly = await catalogOf(false);
    const bare = await enrich(valuesOnly);
    const config = (await testKnex()('enrichment_jobs').where({ id: bare.job_id }).first('config')).config;
    expect(Object.keys(config.known_values).sort()).toEqual(['brand', 'product_line', 'size']);
    expect(await testKnex()('enrichment_job_examples').where({ job_id: bare.job_id }).first()).toBeUndefined();
    const found = bare.results.filter((r, i) => r.after_data.product_line === FRESH[i]!.product_line);
    expect(found).toHaveLength(0);
  });

  it('re-extraction reuses the stored examples and gives the same output', async () => {
    const again = await request(app).post('/api/public/enrich').set(org.auth).send({ reextract_from_activity_id: learned.job_id });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('completed');
    const strip = (r: EnrichResultBody) => ({ ...r.after_data });
    expect(bodyOf<EnrichBody>(again).results.map(strip)).toEqual(learned.results.map(strip));
  });

  it('rows with their own attribute set (other output fields) learn too', async () => {
    const items = FRESH.map((p, i) => ({ sku: p.sku, title: p.title, ...(i % 2 === 0 ? { attribute_set_id: 'capacity' } : {}) }));
    const body = await enrich(withTitles, { output_schema: [brand, productLine], attribute_sets: { capacity: [size] }, items });
    expect(body.results.map((r) => r.after_data.product_line)).toEqual(FRESH.map((p) => p.product_line));
    expect(body.results.map((r) => r.after_data.size)).toEqual(FRESH.map((p, i) => (i % 2 === 0 ? p.size : undefined)));
  });
});
