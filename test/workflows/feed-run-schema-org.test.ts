/**
 * schema.org feed runs (docs/feeds.md "Runs", docs/channels.md "Formats") through the HTTP API,
 * the real Temporal dev server and PostgreSQL, over a catalog whose item ids are chosen so that
 * paging by item (two per page) would split each product's variants over several pages:
 * standalone products S1, S2, S3, a jacket G with variants GV1–GV4 differing by colour and size
 * (GV4 with a bad GTIN), socks H with variants HV1, HV2 differing by size, and X with a bad GTIN.
 * Proves: a full schema_org run writes one line per product, a `ProductGroup` with every
 * exported variant in `hasVariant` (inheriting the product's values, `isVariantOf` pointing back,
 * `productGroupID` and `variesBy`) or a `Product` with its `Offer`; each page holds whole
 * products and at most two items unless one product alone has more; issues stay per variant;
 * the feed's item filter applies to variants; a Google run of the same catalog still writes one
 * row per variant; a schema_org delta after a grouped run lists exactly the changed and removed
 * items and keeps the same item list as a full run.
 */
import crypto from 'node:crypto';
import request from 'supertest';
import { gtinCheckDigit } from '../../src/channels';
import { feedRunWorkflowId } from '../../src/contracts/feed-workflows';
import { createTestCatalog } from '../helpers/catalogs';
import { FEED_MAPPING, FEED_SCHEMA, feedProductData } from '../helpers/feed-catalog';
import { useFeedRunSuite, type FeedRunSuite } from '../helpers/feed-run-suite';

const TASK_QUEUE = 'test-feed-runs-schema-org';
/** Two items per page: every product with variants here is larger than a page by item would keep together. */
const PAGE_ITEMS = 2;

let env: FeedRunSuite['env'];
let knex: FeedRunSuite['knex'];
let app: FeedRunSuite['app'];
let org: FeedRunSuite['org'];

useFeedRunSuite({ orgName: 'schema.org feed tests', taskQueue: TASK_QUEUE, pageItems: PAGE_ITEMS }, (suite) => ({ env, knex, app, org } = suite));

/** A valid GTIN-13 from a 12-digit body. */
const gtin = (body: string) => body + String(gtinCheckDigit(body));
/** A GTIN-13 whose check digit is wrong (an `invalid_gtin` error). */
const badGtin = (body: string) => body + String((gtinCheckDigit(body) + 1) % 10);

/** The catalog's items in id order (the order the SKUs are listed in), with their product and data. */
const ITEMS: Array<[sku: string, parent: string | null, data: Record<string, unknown>]> = [
  ['S1', null, { ...feedProductData('S1', 'Mug'), gtin: gtin('400638133101') }],
  ['G', null, { ...feedProductData('G', 'Trail jacket'), description: 'A jacket for the trail' }],
  ['GV1', 'G', { sku: 'GV1', product_id: 'G', gtin: gtin('400638133201'), color: 'red', size: 'M' }],
  ['S2', null, { ...feedProductData('S2', 'Lamp'), gtin: gtin('400638133102') }],
  ['GV2', 'G', { sku: 'GV2', product_id: 'G', gtin: gtin('400638133202'), color: 'blue', size: 'M' }],
  ['GV3', 'G', { sku: 'GV3', product_id: 'G', gtin: gtin('400638133203'), color: 'red', size: 'L', price: 24 }],
  ['GV4', 'G', { sku: 'GV4', product_id: 'G', gtin: badGtin('400638133204'), color: 'green', size: 'S' }],
  ['S3', null, { ...feedProductData('S3', 'Vase'), gtin: gtin('400638133103') }],
  ['H', null, { ...feedProductData('H', 'Wool socks'), color: 'grey' }],
  ['HV1', 'H', { sku: 'HV1', product_id: 'H', gtin: gtin('400638133301'), size: '39-42' }],
  ['HV2', 'H', { sku: 'HV2', product_id: 'H', gtin: gtin('400638133302'), size: '43-46' }],
  ['X', null, { ...feedProductData('X', 'Broken kettle'), gtin: badGtin('400638133104') }],
];

/** Inserts {@link ITEMS} into a new product-grouped catalog with ids rising in list order; returns the catalog and the ids by SKU. */
async function seedVariantCatalog(): Promise<{ catalogId: string; ids: Record<string, string> }> {
  const catalogId = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: FEED_SCHEMA });
  const prefix = crypto.randomBytes(4).toString('hex');
  const ids = Object.fromEntries(ITEMS.map(([sku], i) => [sku, `${prefix}-0000-4000-8000-${String(i + 1).padStart(12, '0')}`]));
  await knex('catalog_items').insert(
    ITEMS.map(([sku, parent, data]) => ({
      id: ids[sku],
      catalog_id: catalogId,
      entity_type: parent ? 'variant' : 'product',
      parent_id: parent ? ids[parent] : null,
      business_key: sku,
      data: JSON.stringify(data),
    })),
  );
  return { catalogId, ids };
}

async function newFeed(catalogId: string, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  const res = await request(app)
    .post(`/api/public/catalogs/${catalogId}/feeds`)
    .set(org.auth)
    .send({ channel: 'schema_org', format: 'jsonl', target_country: 'DE', language: 'de', currency: 'EUR', mapping: FEED_MAPPING, ...extra });
  expect(res.status).toBe(201);
  return res.body;
}

/** A run as `GET …/runs/{run_id}` answers it. */
interface RunBody {
  id: string;
  status: string;
  file_url: string;
  issues_url: string;
  progress: Record<string, number>;
  counts: Record<string, number>;
}

async function runToEnd(feedId: string, body: Record<string, unknown> = {}): Promise<RunBody> {
  const res = await request(app).post(`/api/public/feeds/${feedId}/runs`).set(org.auth).send(body);
  expect(res.status).toBe(202);
  await env.client.workflow.getHandle(feedRunWorkflowId(res.body.run_id)).result();
  return (await request(app).get(`/api/public/feeds/${feedId}/runs/${res.body.run_id}`).set(org.auth)).body;
}

type Json = Record<string, unknown>;

/** The lines of a run's file, each parsed. */
async function linesOf(run: RunBody): Promise<Json[]> {
  const file = await request(app).get(run.file_url).set(org.auth).buffer(true);
  expect(file.status).toBe(200);
  expect(file.headers['content-type']).toMatch(/^application\/x-ndjson/);
  return file.text.trimEnd() === ''
    ? []
    : file.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
}

/** Checks an Offer: a decimal price, an ISO 4217 currency, a schema.org availability. */
function expectOffer(offer: unknown): void {
  expect(offer).toMatchObject({ '@type': 'Offer' });
  const o = offer as Json;
  expect(o.price).toMatch(/^\d+\.\d{2}$/);
  expect(o.priceCurrency).toMatch(/^[A-Z]{3}$/);
  expect(o.availability).toMatch(/^https:\/\/schema\.org\/(InStock|OutOfStock|PreOrder|BackOrder|Discontinued)$/);
}

/**
 * Checks one line's shape (https://schema.org/Product, /ProductGroup): `@context`; a Product has
 * sku, name and an Offer; a ProductGroup has name and productGroupID, no offers of its own,
 * variesBy of schema.org property URLs, and each variant a Product with its Offer and
 * `isVariantOf` naming the group.
 */
function expectLineShape(line: Json): void {
  expect(line['@context']).toBe('https://schema.org');
  expect(['Product', 'ProductGroup']).toContain(line['@type']);
  expect(typeof line.name).toBe('string');
  if (line['@type'] === 'Product') {
    expect(typeof line.sku).toBe('string');
    expectOffer(line.offers);
    expect(line.isVariantOf).toBeUndefined();
    return;
  }
  expect(typeof line.productGroupID).toBe('string');
  expect(line.offers).toBeUndefined();
  expect(line.sku).toBeUndefined();
  for (const v of (line.variesBy as string[] | undefined) ?? []) expect(v).toMatch(/^https:\/\/schema\.org\/(color|size|material|pattern)$/);
  const variants = line.hasVariant as Json[];
  expect(variants.length).toBeGreaterThan(0);
  for (const v of variants) {
    expect(v['@type']).toBe('Product');
    expect(v['@context']).toBeUndefined();
    expect(typeof v.sku).toBe('string');
    expectOffer(v.offers);
    expect(v.isVariantOf).toEqual({ '@id': line['@id'], '@type': 'ProductGroup', productGroupID: line.productGroupID });
    expect(line['@id']).toMatch(/#product-group/);
  }
}

/** Items read per page of a run, in page order. */
const pageSizes = async (runId: string) => (await knex('feed_run_pages').where('run_id', runId).orderBy('page_index').pluck('items_read')) as number[];

describe('schema.org feed runs', () => {
  it('writes one ProductGroup per product with variants and one Product per product without, from pages of whole products', async () => {
    const { catalogId, ids } = await seedVariantCatalog();
    const feed = await newFeed(catalogId);
    const run = await runToEnd(feed.id);
    expect(run).toMatchObject({ status: 'completed', progress: { items_read: 10, total: 10 }, counts: { items: 10, exported: 8, excluded: 2 } });
    // Pages of whole products: S1 alone (G would make 5), G's four variants, S2 + S3, H's two, X.
    expect(await pageSizes(run.id)).toEqual([1, 4, 2, 2, 1]);

    const lines = await linesOf(run);
    lines.forEach(expectLineShape);
    expect(lines.map((l) => [l['@type'], l.sku ?? l.productGroupID])).toEqual([
      ['Product', 'S1'],
      ['ProductGroup', 'G'],
      ['Product', 'S2'],
      ['Product', 'S3'],
      ['ProductGroup', 'H'],
    ]);
    const jacket = lines[1];
    expect(jacket).toMatchObject({
      name: 'Trail jacket',
      description: 'A jacket for the trail',
      url: 'https://shop.example/G',
      image: ['https://shop.example/G.jpg'],
      brand: { '@type': 'Brand', name: 'Acme' },
      variesBy: ['https://schema.org/color', 'https://schema.org/size'],
    });
    const variants = jacket.hasVariant as Json[];
    expect(variants.map((v) => [v.sku, v.color, v.size, (v.offers as Json).price])).toEqual([
      ['GV1', 'red', 'M', '19.50'],
      ['GV2', 'blue', 'M', '19.50'],
      ['GV3', 'red', 'L', '24.00'],
    ]);
    // Each variant inherits what it leaves empty from its product.
    expect(variants[0]).toMatchObject({
      name: 'Trail jacket',
      brand: { '@type': 'Brand', name: 'Acme' },
      gtin: ITEMS[2][2].gtin,
      url: 'https://shop.example/G',
      offers: { price: '19.50', priceCurrency: 'EUR', availability: 'https://schema.org/InStock', itemCondition: 'https://schema.org/NewCondition' },
    });
    // The socks vary by size only; their shared colour stays on the group.
    expect(lines[4]).toMatchObject({ productGroupID: 'H', color: 'grey', variesBy: ['https://schema.org/size'] });
    expect((lines[4].hasVariant as Json[]).map((v) => [v.sku, v.color, v.size])).toEqual([
      ['HV1', 'grey', '39-42'],
      ['HV2', 'grey', '43-46'],
    ]);

    // Issues stay per item: the bad GTINs of the variant GV4 and of X.
    const issues = await request(app).get(`${run.issues_url}?code=invalid_gtin&page_size=100`).set(org.auth);
    expect(issues.body.items.map((i: { item_id: string; sku: string }) => [i.sku, i.item_id]).sort()).toEqual([
      ['GV4', ids.GV4],
      ['X', ids.X],
    ]);
    // The item state a delta compares with has one entry per exported item.
    const { state_id: stateId } = await knex('feed_runs').where('id', run.id).first('state_id');
    expect((await knex('feed_item_state').where('state_id', stateId).orderBy('offer_id').pluck('offer_id')) as string[]).toEqual([
      'GV1',
      'GV2',
      'GV3',
      'HV1',
      'HV2',
      'S1',
      'S2',
      'S3',
    ]);

    // The feed's filter applies to the variants: variants only gives the two groups.
    const variantsOnly = await newFeed(catalogId, { filter: { entity_type: 'variant' } });
    const filtered = await runToEnd(variantsOnly.id);
    expect(filtered).toMatchObject({ status: 'completed', counts: { items: 6, exported: 5, excluded: 1 } });
    const groups = await linesOf(filtered);
    groups.forEach(expectLineShape);
    expect(groups.map((l) => [l['@type'], l.productGroupID, (l.hasVariant as Json[]).length])).toEqual([
      ['ProductGroup', 'G', 3],
      ['ProductGroup', 'H', 2],
    ]);
  });

  it('a Google run of the same catalog still writes one row per variant, paged by item', async () => {
    const { catalogId } = await seedVariantCatalog();
    const res = await request(app)
      .post(`/api/public/catalogs/${catalogId}/feeds`)
      .set(org.auth)
      .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', currency: 'EUR', mapping: FEED_MAPPING });
    expect(res.status).toBe(201);
    const run = await runToEnd(res.body.id);
    expect(run).toMatchObject({ status: 'completed', counts: { items: 10, exported: 8, excluded: 2 } });
    expect(await pageSizes(run.id)).toEqual([2, 2, 2, 2, 2, 0]);
    const text = (await request(app).get(run.file_url).set(org.auth).buffer(true)).text;
    const [head, ...rows] = text.trimEnd().split('\n');
    const cols = head.split('\t');
    const idAndGroup = rows.map((r) => r.split('\t')).map((c) => [c[cols.indexOf('id')], c[cols.indexOf('item_group_id')]]);
    expect(idAndGroup).toEqual([
      ['S1', ''],
      ['GV1', 'G'],
      ['S2', ''],
      ['GV2', 'G'],
      ['GV3', 'G'],
      ['S3', ''],
      ['HV1', 'H'],
      ['HV2', 'H'],
    ]);
  });

  it('a schema_org delta after a grouped run lists the changed and removed items, and keeps the item list a full run has', async () => {
    const { catalogId, ids } = await seedVariantCatalog();
    const feed = await newFeed(catalogId);
    expect((await runToEnd(feed.id)).status).toBe('completed');
    await knex('catalog_items')
      .where('id', ids.GV2)
      .update({ data: JSON.stringify({ ...ITEMS[4][2], color: 'green' }), updated_at: knex.fn.now() });
    await knex('catalog_items').whereIn('id', [ids.S2, ids.HV2]).delete();

    const delta = await runToEnd(feed.id, { delta: true });
    expect((await knex('feed_runs').where('id', delta.id).first()).delta_mode).toBe('changed');
    // Touched: GV2 and its product G, the deleted S2 and HV2 and HV2's product H; only GV2 is a row.
    expect(delta).toMatchObject({ status: 'completed', progress: { items_read: 5, total: 5 }, counts: { items: 1, exported: 1, excluded: 0 } });
    const lines = (await linesOf(delta)) as Array<{ changed: Array<Record<string, string>>; removed: Array<{ item_id: string; id: string }> }>;
    expect(lines.flatMap((l) => l.changed).map((r) => [r.id, r.color, r.item_group_id])).toEqual([['GV2', 'green', 'G']]);
    expect(lines.flatMap((l) => l.removed)).toEqual([
      { item_id: ids.S2, id: 'S2' },
      { item_id: ids.HV2, id: 'HV2' },
    ]);

    // The feed's item state after the delta (the grouped run's state updated in place) is a full run's, row hashes included.
    const stateOf = async () => {
      const latest = await knex('feed_runs').where({ feed_id: feed.id, status: 'completed' }).orderBy('completed_at', 'desc').first('state_id');
      return knex('feed_item_state').select('item_id', 'offer_id', 'row_hash').where('state_id', latest.state_id).orderBy('item_id');
    };
    const deltaState = await stateOf();
    const full = await runToEnd(feed.id);
    expect(deltaState).toEqual(await stateOf());
    expect(deltaState).toHaveLength(6);
    const after = await linesOf(full);
    after.forEach(expectLineShape);
    expect(after.map((l) => l.sku ?? l.productGroupID)).toEqual(['S1', 'G', 'S3', 'H']);
    expect((after[1].hasVariant as Json[]).map((v) => [v.sku, v.color])).toEqual([
      ['GV1', 'red'],
      ['GV2', 'green'],
      ['GV3', 'red'],
    ]);
    // One socks variant left: nothing varies.
    expect(after[3].variesBy).toBeUndefined();
    expect((after[3].hasVariant as Json[]).map((v) => v.sku)).toEqual(['HV1']);
  });
});
