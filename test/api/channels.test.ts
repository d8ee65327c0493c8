/**
 * Channels over the API (docs/channels.md): `GET /public/channels` lists the three channels with
 * their formats and attributes; `GET /public/catalogs/{id}/channel-readiness` checks a catalog's
 * items against a channel's rules under the proposed mapping, against real PostgreSQL: a flat
 * catalog with bad and restricted GTINs, a missing image, an apparel item without its apparel
 * attributes and an item without identifiers; a product-grouped catalog (one row per variant,
 * item_group_id from the product); a catalog larger than one scan page; the kept counts after
 * a snapshot restore (which logs no item changes) equal a scan's. Unknown channels are
 * 422s naming the query parameter, unknown catalogs 404, another organization's catalog 403.
 * Once the catalog has feeds for the channel (created through the feeds route), readiness uses the
 * mapping of the most recently updated one and names it (`mapping_source`, `feed_id`).
 */
import type { Server } from 'node:http';
import request from 'supertest';
import type { CatalogClient } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { createSnapshot, restoreSnapshot } from '../../src/services/catalog/snapshots/snapshots';
import { STATE_PAGE_ITEMS } from '../../src/services/channels/readiness-state';
import { noJobs } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { scopeOf } from '../helpers/review-apply';
import type { ValidationErrorBody } from '../helpers/wire';

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('channels api');
  other = await createTestOrg('channels other');
  api = typedClient(server, org.auth);
});
afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** Inserts items (products, or variants with `parent`) directly. @returns their ids in order */
async function insertItems(catalogId: string, rows: Array<{ data: Record<string, unknown>; parent?: string }>): Promise<string[]> {
  const ids = rows.map(() => newId());
  const knex = testKnex();
  for (let i = 0; i < rows.length; i += 500)
    await knex('catalog_items').insert(
      rows.slice(i, i + 500).map((r, j) => ({
        id: ids[i + j],
        catalog_id: catalogId,
        entity_type: r.parent ? 'variant' : 'product',
        parent_id: r.parent ?? null,
        data: JSON.stringify(r.data),
      })),
    );
  await knex('catalogs').where('id', catalogId).update({ item_count: rows.length });
  return ids;
}

/** A schema whose field names the proposed Google mapping reads (title, brand, price, GTIN, …). */
const SHIRT_SCHEMA = {
  type: 'object',
  properties: {
    ...Object.fromEntries(
      ['sku', 'product_id', 'product_name', 'product_brand', 'description', 'currency', 'image_url', 'link', 'gtin', 'availability', 'size'].map((f) => [
        f,
        { type: 'string' },
      ]),
    ),
    price: { type: 'number' },
  },
};

const readiness = (catalogId: string, channel: string, client: CatalogClient = api) =>
  client.GET('/api/public/catalogs/{catalog_id}/channel-readiness', {
    params: { path: { catalog_id: catalogId }, query: { channel: channel as 'google_merchant_center' } },
  });

const FLAT_SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    brand: { type: 'string' },
    price: { type: 'number' },
    currency: { type: 'string' },
    images: { type: 'array', items: { type: 'string' } },
    url: { type: 'string', format: 'uri' },
    ean: { type: 'string' },
    availability: { type: 'string' },
    color: { type: 'string' },
    category_id: { type: 'string' },
  },
  required: ['sku'],
};

/** A taxonomy whose clothing node is Google's "Apparel & Accessories > Clothing" (1604). */
const TAXONOMY = {
  name: 'shop',
  hierarchy_levels: ['department', 'category'],
  nodes: {
    apparel: { name: 'Apparel & Accessories', parent: null, description: 'Google product taxonomy 166', attributes: [] },
    clothing: { name: 'Clothing', parent: 'apparel', description: 'Google product taxonomy 1604', attributes: [] },
    kitchen: { name: 'Kitchen', parent: null, attributes: [] },
  },
};

/** A complete kitchen item Google accepts. */
const good = (sku: string, extra: Record<string, unknown> = {}) => ({
  sku,
  name: `Chef knife ${sku}`,
  description: 'Forged steel.',
  brand: 'Acme',
  price: 49.9,
  currency: 'EUR',
  images: ['https://shop.example/a.jpg', 'https://shop.example/b.jpg'],
  url: `https://shop.example/${sku}`,
  ean: '4006381333931',
  availability: 'In stock',
  category_id: 'kitchen',
  ...extra,
});

describe('GET /api/public/channels', () => {
  it('lists the three channels with formats and attributes', async () => {
    const res = await api.GET('/api/public/channels');
    expect(res.response.status).toBe(200);
    const channels = res.data!.channels;
    expect(channels.map((c) => [c.id, c.formats])).toEqual([
      ['google_merchant_center', ['tsv', 'xml']],
      ['meta_catalog', ['csv']],
      ['schema_org', ['jsonl']],
    ]);
    const gmc = channels[0].attributes;
    expect(gmc.find((a) => a.name === 'title')).toMatchObject({ required: 'always' });
    expect(gmc.find((a) => a.name === 'gtin')).toMatchObject({ required: 'conditional', condition: expect.any(String) });
    expect(gmc.find((a) => a.name === 'item_group_id')?.condition).toMatch(/variant/);
  });
});

describe('GET /api/public/catalogs/{id}/channel-readiness', () => {
  it('counts ready items, items blocked per code and missing attributes in a flat catalog', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: FLAT_SCHEMA, taxonomy: TAXONOMY });
    await insertItems(catalogId, [
      { data: good('K1') },
      { data: good('K2', { ean: '4006381333932' }) }, // wrong check digit
      { data: good('K3', { ean: '9912345678909' }) }, // coupon range
      { data: good('K4', { images: [] }) }, // no image
      { data: good('S1', { category_id: 'clothing', color: 'blue' }) }, // clothing without size, gender, age group
      { data: good('K5', { ean: null }) }, // brand but no MPN, no GTIN
    ]);
    const res = await readiness(catalogId, 'google_merchant_center');
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      channel: 'google_merchant_center',
      total: 6,
      ready: 1,
      blocked: { invalid_gtin: 1, restricted_gtin: 1, missing_required: 1, missing_apparel_attribute: 1, identifier_missing: 1 },
      by_attribute: { image_link: 1, size: 1, gender: 1, age_group: 1, mpn: 1 },
      mapping_suggested: true,
      mapping_source: 'proposed',
      feed_id: null,
    });
    expect(Object.keys(res.data!.blocked)).toHaveLength(5);
    expect(res.data!.mapping).toMatchObject({
      id: 'sku',
      title: 'name',
      gtin: 'ean',
      price: { template: '{price} {currency}' },
      google_product_category: '$google_product_category',
    });

    // Meta: no apparel rule, "In stock" written as Meta's "in stock", GTIN rules alike.
    const meta = await readiness(catalogId, 'meta_catalog');
    expect(meta.data).toMatchObject({
      channel: 'meta_catalog',
      total: 6,
      ready: 3,
      blocked: { invalid_gtin: 1, restricted_gtin: 1, missing_required: 1 },
      by_attribute: { image_link: 1 },
    });
  });

  it("reads the mapping of the catalog's most recently updated feed for the channel", async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: FLAT_SCHEMA, taxonomy: TAXONOMY });
    await insertItems(catalogId, [{ data: good('K1') }, { data: good('K4', { images: [] }) }, { data: good('K2', { ean: '4006381333932' }) }]);
    const proposed = await readiness(catalogId, 'google_merchant_center');
    expect(proposed.data).toMatchObject({ total: 3, ready: 1, blocked: { missing_required: 1, invalid_gtin: 1 }, mapping_source: 'proposed', feed_id: null });
    const createFeed = (mapping?: Record<string, unknown>) =>
      request(server)
        .post(`/api/public/catalogs/${catalogId}/feeds`)
        .set(org.auth)
        .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', currency: 'EUR', ...(mapping ? { mapping } : {}) });
    // A feed with the proposal: same counts, the feed named.
    const first = await createFeed();
    expect(first.status).toBe(201);
    const viaFirst = await readiness(catalogId, 'google_merchant_center');
    expect(viaFirst.data).toMatchObject({ total: 3, ready: 1, mapping_source: 'feed', feed_id: first.body.id, mapping_suggested: false });
    // A newer feed whose image_link is a fixed URL: no item misses its image any more.
    const mapping = { ...proposed.data!.mapping, image_link: { value: 'https://shop.example/placeholder.jpg' } };
    const second = await createFeed(mapping);
    expect(second.status).toBe(201);
    const viaSecond = await readiness(catalogId, 'google_merchant_center');
    expect(viaSecond.data).toMatchObject({ total: 3, ready: 2, blocked: { invalid_gtin: 1 }, mapping_source: 'feed', feed_id: second.body.id });
    expect(viaSecond.data!.mapping.image_link).toEqual({ value: 'https://shop.example/placeholder.jpg' });
    // Updating the first feed makes it the most recently updated one again.
    expect((await request(server).patch(`/api/public/feeds/${first.body.id}`).set(org.auth).send({ language: 'en' })).status).toBe(200);
    expect((await readiness(catalogId, 'google_merchant_center')).data).toMatchObject({ ready: 1, feed_id: first.body.id });
    // Another channel's readiness ignores the Google feeds.
    expect((await readiness(catalogId, 'meta_catalog')).data).toMatchObject({ mapping_source: 'proposed', feed_id: null });
  });

  it('checks one row per variant with item_group_id from its product, and products without variants', async () => {
    const schema = {
      type: 'object',
      properties: {
        sku: { type: 'string' },
        product_id: { type: 'string' },
        product_name: { type: 'string' },
        product_brand: { type: 'string' },
        description: { type: 'string' },
        price: { type: 'number' },
        currency: { type: 'string' },
        image_url: { type: 'string' },
        link: { type: 'string' },
        gtin: { type: 'string' },
        availability: { type: 'string' },
        size: { type: 'string' },
      },
    };
    const catalogId = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: schema });
    const shared = {
      product_name: 'Linen shirt',
      product_brand: 'Acme',
      description: 'Linen.',
      currency: 'EUR',
      image_url: 'https://s.example/1.jpg',
      link: 'https://s.example/p',
      availability: 'in_stock',
    };
    const [p1] = await insertItems(catalogId, [
      { data: { product_id: 'P1', ...shared } },
      { data: { product_id: 'P2', sku: 'P2', price: 10, gtin: '036000291452', ...shared } },
    ]);
    await insertItems(catalogId, [
      { parent: p1, data: { sku: 'P1-S', product_id: 'P1', size: 'S', price: 59, gtin: '96385074', ...shared } },
      { parent: p1, data: { sku: 'P1-M', product_id: 'P1', size: 'M', price: 59, gtin: '96385075', ...shared } },
    ]);
    const res = await readiness(catalogId, 'google_merchant_center');
    expect(res.data).toMatchObject({ total: 3, ready: 2, blocked: { invalid_gtin: 1 }, by_attribute: {} });
    expect(res.data!.mapping).toMatchObject({ id: 'sku', title: 'product_name', brand: 'product_brand', image_link: 'image_url' });
    const schemaOrg = await readiness(catalogId, 'schema_org');
    expect(schemaOrg.data).toMatchObject({ total: 3, ready: 2, blocked: { invalid_gtin: 1 } });
  });

  it('scans a catalog larger than one page', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: FLAT_SCHEMA });
    const n = STATE_PAGE_ITEMS * 2 + 37;
    const bad = (i: number) => i % 7 === 0;
    await insertItems(
      catalogId,
      Array.from({ length: n }, (_, i) => ({ data: good(`B${i}`, bad(i) ? { ean: '4006381333932' } : {}) })),
    );
    const res = await readiness(catalogId, 'google_merchant_center');
    const blocked = Array.from({ length: n }, (_, i) => i).filter(bad).length;
    expect(res.data).toMatchObject({ total: n, ready: n - blocked, blocked: { invalid_gtin: blocked } });
  });

  it('keeps its counts by the items touched since: equal to a full scan after inserts, updates and deletes, without rescanning', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: SHIRT_SCHEMA });
    const shared = {
      product_brand: 'Acme',
      description: 'Linen.',
      currency: 'EUR',
      image_url: 'https://s.example/1.jpg',
      link: 'https://s.example/p',
      availability: 'in_stock',
    };
    const product = (sku: string, extra: Record<string, unknown> = {}) => ({
      product_id: sku,
      sku,
      product_name: `Shirt ${sku}`,
      price: 10,
      gtin: '036000291452',
      ...shared,
      ...extra,
    });
    const [p1, p2, p3] = await insertItems(catalogId, [
      { data: { product_id: 'P1', product_name: 'Linen shirt', ...shared } },
      { data: product('P2', { gtin: '036000291453' }) },
      { data: product('P3') },
      ...Array.from({ length: 10 }, (_, i) => ({ data: product(`Q${i}`) })),
    ]);
    const [, v2] = await insertItems(catalogId, [
      { parent: p1, data: { sku: 'P1-S', product_id: 'P1', size: 'S', price: 59, gtin: '96385074' } },
      { parent: p1, data: { sku: 'P1-M', product_id: 'P1', size: 'M', price: 59, gtin: '96385074' } },
    ]);
    const counts = (d: Record<string, unknown> | undefined) => ({ total: d?.total, ready: d?.ready, blocked: d?.blocked, by_attribute: d?.by_attribute });
    const before = counts((await readiness(catalogId, 'google_merchant_center')).data as Record<string, unknown>);
    expect(before).toEqual({ total: 14, ready: 13, blocked: { invalid_gtin: 1 }, by_attribute: {} });
    const knex = testKnex();
    const verdictRow = () =>
      knex.raw(
        `SELECT i.ctid::text AS at FROM channel_readiness_items i JOIN channel_readiness_states s ON s.id = i.state_id
         WHERE s.catalog_id = ? AND i.item_id = (SELECT id FROM catalog_items WHERE catalog_id = ? AND data->>'sku' = 'Q5')`,
        [catalogId, catalogId],
      );
    const untouched = (await verdictRow()).rows[0].at as string;

    const write = (id: string, data: Record<string, unknown>) =>
      knex('catalog_items')
        .where('id', id)
        .update({ data: JSON.stringify(data), updated_at: knex.fn.now() });
    await write(p1, { product_id: 'P1', ...shared }); // its name gone: both variants inherit the missing title
    await write(p3, product('P3', { gtin: '036000291453' })); // now blocked
    await insertItems(catalogId, [{ parent: p3, data: { sku: 'P3-L', product_id: 'P3', size: 'L', price: 12, gtin: '96385074' } }]); // P3 counted through its variant now
    await knex('catalog_items').where('id', v2).delete();
    await knex('catalog_items').where('id', p2).delete();
    await insertItems(catalogId, [{ data: product('P4') }]);

    const kept = counts((await readiness(catalogId, 'google_merchant_center')).data as Record<string, unknown>);
    // The refresh rewrote only the touched items' verdicts: an untouched item's row is the same row.
    expect((await verdictRow()).rows[0].at).toBe(untouched);
    await knex('channel_readiness_states').where('catalog_id', catalogId).delete();
    const scanned = counts((await readiness(catalogId, 'google_merchant_center')).data as Record<string, unknown>);
    expect(kept).toEqual(scanned);
    // Q0–Q9, P4, P3-L ready; P1-S blocked by its inherited missing title.
    expect(kept).toEqual({ total: 13, ready: 12, blocked: { missing_required: 1 }, by_attribute: { title: 1 } });
  });

  it('counts again after a snapshot restore, which leaves no change records: equal to a full scan', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SHIRT_SCHEMA });
    const item = (sku: string, gtin: string) => ({
      sku,
      product_name: `Shirt ${sku}`,
      product_brand: 'Acme',
      description: 'Linen.',
      price: 10,
      currency: 'EUR',
      image_url: 'https://s.example/1.jpg',
      link: 'https://s.example/p',
      availability: 'in_stock',
      gtin,
    });
    const [a, b] = await insertItems(catalogId, [{ data: item('A', '036000291452') }, { data: item('B', '036000291452') }]);
    const knex = testKnex();
    const snapshot = await createSnapshot(knex, scopeOf(org.organizationId), catalogId, 'before the bad GTINs');
    await knex('catalog_items')
      .where('id', a)
      .update({ data: JSON.stringify(item('A', '036000291453')), updated_at: knex.fn.now() });
    await knex('catalog_items').where('id', b).delete();
    const counts = async () => {
      const d = (await readiness(catalogId, 'google_merchant_center')).data as Record<string, unknown>;
      return { total: d.total, ready: d.ready, blocked: d.blocked };
    };
    // The kept state, as of the edits: A blocked, B gone.
    expect(await counts()).toEqual({ total: 1, ready: 0, blocked: { invalid_gtin: 1 } });
    const records = async () => Number((await knex('catalog_item_changes').where('catalog_id', catalogId).count({ n: '*' }))[0].n);
    const logged = await records();
    await restoreSnapshot({ knex, caches: { catalog: createCatalogCaches() }, jobRunner: noJobs }, scopeOf(org.organizationId), catalogId, snapshot.id);
    expect(await records()).toBe(logged);
    // Both back and ready, as a scan from nothing counts them.
    const kept = await counts();
    expect(kept).toEqual({ total: 2, ready: 2, blocked: {} });
    await knex('channel_readiness_states').where('catalog_id', catalogId).delete();
    expect(await counts()).toEqual(kept);
  });

  it('answers 422 naming the channel for an unknown or missing channel, 404 for an unknown catalog, 403 for another organization’s', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: FLAT_SCHEMA });
    const unknown = await readiness(catalogId, 'ebay');
    expect(unknown.response.status).toBe(422);
    expect((unknown.error as ValidationErrorBody).detail[0].loc).toEqual(['query', 'channel']);
    const missing = await request(server).get(`/api/public/catalogs/${catalogId}/channel-readiness`).set(org.auth);
    expect(missing.status).toBe(422);
    expect((missing.body as ValidationErrorBody).detail[0].loc).toEqual(['query', 'channel']);
    expect((await readiness(newId(), 'meta_catalog')).response.status).toBe(404);
    expect((await readiness(catalogId, 'meta_catalog', typedClient(server, other.auth))).response.status).toBe(403);
    expect((await request(server).get(`/api/public/catalogs/${catalogId}/channel-readiness?channel=meta_catalog`)).status).toBe(401);
  });
});
