import type { Server } from 'node:http';
import type { CatalogClient } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { noJobs, testApp } from '../helpers/app';
import { startRestores, type RestoreTemporal } from '../helpers/restores';
import { catalogState, createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import type { ItemBody, VariantEntry } from '../helpers/wire';
import { createServiceCaches } from '../../src/services/service-caches';

/** Items in product-grouped catalogs and the word search, called through the typed client (packages/client). */

/** The app's caches (the search count cache's hits are read through them). */
const caches = createServiceCaches();

let server: Server;
let api: CatalogClient;
let a: Awaited<ReturnType<typeof createTestOrg>>;

const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });
const itemPath = (catalog_id: string, item_id: string) => ({ params: { path: { catalog_id, item_id } } });
/** `GET …/items` of catalog `c` with `query`. */
const list = (c: string, query: { search?: string; limit?: number; offset?: number } = {}) =>
  api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: c }, query } });
const grouped = { product_id_field: 'product_id', product_enabled: true };

let restores: RestoreTemporal;

beforeAll(async () => {
  // The restore below runs as the workflow snapshot-restore-<id>: a real dev server and worker.
  restores = await startRestores('test-items-grouped', noJobs);
  server = await listenTestApp(testApp(restores.jobRunner, caches));
  a = await createTestOrg('items grouped');
  api = typedClient(server, a.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await restores?.stop();
  await closeTestKnex();
});

async function bulk(c: string, items: unknown[]) {
  return api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(c), body: { items } });
}

/** The catalog's rows, oldest first. */
async function rows(c: string): Promise<Array<Pick<ItemBody, 'id' | 'entity_type' | 'parent_id' | 'business_key' | 'data'>>> {
  return testKnex()('catalog_items')
    .where('catalog_id', c)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('id', 'entity_type', 'parent_id', 'business_key', 'data');
}

describe('items/bulk in a product-grouped catalog (docs/api-reference.md "Products and variants")', () => {
  it('links each variant to the product named by data[product_id_field], creating missing products', async () => {
    const c = await createTestCatalog(a.organizationId, grouped);
    const existing = newId();
    await testKnex()('catalog_items').insert({
      id: existing,
      catalog_id: c,
      entity_type: 'product',
      data: JSON.stringify({ product_id: 'P1', product_name: 'Shirt' }),
    });
    await testKnex()('catalogs').where('id', c).update({ item_count: 1 });

    const res = await bulk(c, [
      { sku: 'V1', product_id: 'P1', color: 'red' },
      { sku: 'V2', product_id: 'P2', product_name: 'Boot', color: 'black' },
      { sku: 'V3', product_id: 'P2', product_name: 'Hiking Boot', color: 'brown' },
      { sku: 'S1', title: 'stand-alone' },
    ]);
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ success: true, items_processed: 4, items_created: 4, items_updated: 0, items_failed: 0 });

    const all = await rows(c);
    const p2 = all.find((r) => r.entity_type === 'product' && r.data.product_id === 'P2')!;
    expect(p2).toMatchObject({ parent_id: null, business_key: null, data: { product_id: 'P2', product_name: 'Hiking Boot' } });
    const bySku = Object.fromEntries(all.filter((r) => r.business_key).map((r) => [r.business_key, r]));
    expect(bySku.V1).toMatchObject({ entity_type: 'variant', parent_id: existing });
    expect(bySku.V2).toMatchObject({ entity_type: 'variant', parent_id: p2.id });
    expect(bySku.V3).toMatchObject({ entity_type: 'variant', parent_id: p2.id });
    expect(bySku.S1).toMatchObject({ entity_type: 'product', parent_id: null });
    // item_count counts the created product too.
    expect(await catalogState(c)).toMatchObject({ rows: 6, item_count: 6 });

    const listed = await list(c);
    expect(listed.data!.total).toBe(3);
    const variantsOf = Object.fromEntries(
      listed.data!.items!.map((i) => [i.data.product_id ?? i.data.sku, ((i.data.variants as VariantEntry[] | undefined) ?? []).map((v) => v.sku)]),
    );
    expect(variantsOf).toEqual({ P1: ['V1'], P2: ['V2', 'V3'], S1: [] });
  });

  it('moves a variant to another product, upserts a keyless product row by its business id, and is idempotent', async () => {
    const c = await createTestCatalog(a.organizationId, grouped);
    await bulk(c, [
      { sku: 'V1', product_id: 'P1' },
      { sku: 'V2', product_id: 'P1' },
    ]);
    const p1 = (await rows(c)).find((r) => r.entity_type === 'product')!;

    // The keyless item naming P1 is the product itself (updated, not created); V2 moves to P3
    // which is created in the same payload.
    const res = await bulk(c, [
      { product_id: 'P1', product_name: 'Renamed' },
      { product_id: 'P3', product_name: 'Third' },
      { sku: 'V2', product_id: 'P3' },
    ]);
    expect(res.data).toMatchObject({ items_created: 1, items_updated: 2, items_failed: 0 });
    const all = await rows(c);
    const p3 = all.find((r) => r.data.product_id === 'P3' && r.entity_type === 'product')!;
    expect(all.find((r) => r.id === p1.id)!.data).toEqual({ product_id: 'P1', product_name: 'Renamed' });
    expect(all.find((r) => r.business_key === 'V2')).toMatchObject({ entity_type: 'variant', parent_id: p3.id });
    expect(all.find((r) => r.business_key === 'V1')).toMatchObject({ entity_type: 'variant', parent_id: p1.id });
    expect(await catalogState(c)).toMatchObject({ rows: 4, item_count: 4 });

    // Same payload again: nothing new.
    const again = await bulk(c, [
      { product_id: 'P1', product_name: 'Renamed' },
      { product_id: 'P3', product_name: 'Third' },
      { sku: 'V2', product_id: 'P3' },
    ]);
    expect(again.data).toMatchObject({ items_created: 0, items_updated: 3 });
    expect(await catalogState(c)).toMatchObject({ rows: 4, item_count: 4 });
  });

  it('does not link in a catalog that is not product-grouped', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(c, [{ sku: 'V1', product_id: 'P1' }]);
    expect(await rows(c)).toEqual([expect.objectContaining({ entity_type: 'product', parent_id: null, business_key: 'V1' })]);
  });
});

describe('word search (docs/api-reference.md "Items")', () => {
  let c: string;
  beforeAll(async () => {
    c = await createTestCatalog(a.organizationId);
    await bulk(c, [
      { sku: 'W-1', title: 'Red Cotton Shirt', url: 'https://img.example.com/1.jpg' },
      { sku: 'W-2', title: 'Overshirt, navy' },
      { sku: 'W-3', title: 'Café crème', price: 12.5 },
      { sku: 'W-10', title: 'Socks' },
    ]);
  });
  const skus = async (term: string) => {
    const res = await list(c, { search: term });
    expect(res.response.status).toBe(200);
    expect(res.data!.total).toBe(res.data!.items!.length);
    return res.data!.items!.map((i) => i.data.sku);
  };

  it('matches word prefixes in any order, case-insensitively', async () => {
    expect(await skus('SHIR')).toEqual(['W-1']);
    expect(await skus('shirt red')).toEqual(['W-1']);
    expect(await skus('over')).toEqual(['W-2']);
    expect(await skus('hirt')).toEqual([]);
    expect(await skus('CAFÉ')).toEqual(['W-3']);
    expect(await skus('12')).toEqual(['W-3']);
  });

  it('matches terms with punctuation literally (identifiers, URLs)', async () => {
    expect(await skus('w-1')).toEqual(['W-1', 'W-10']);
    expect(await skus('W-10')).toEqual(['W-10']);
    expect(await skus('img.example.com/1.jpg')).toEqual(['W-1']);
    expect(await skus('overshirt, navy')).toEqual(['W-2']);
    expect(await skus('shirt, navy')).toEqual([]);
    expect(await skus('12.5')).toEqual(['W-3']);
    expect(await skus('%')).toEqual([]);
  });

  it('builds the same word vector in Node as the SQL function, for ASCII and other text', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(c, [{ sku: 'V-1', title: 'Red/Blue shirt_2 x', price: 12.5 }, { sku: 'V-2', title: 'Café Straße ÉTÉ', tags: ['naïve', 'A–B'] }, { sku: 'V-3' }]);
    const { rows: check } = await testKnex().raw(
      'SELECT business_key, search_tsv = catalog_item_search_tsv(search_text) AS same FROM catalog_items WHERE catalog_id = ? ORDER BY business_key',
      [c],
    );
    expect(check).toEqual(['V-1', 'V-2', 'V-3'].map((k) => ({ business_key: k, same: true })));
  });

  it('serves a cached total only while nothing in the catalog changed (every kind of write invalidates it)', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(c, [
      { sku: 'C1', title: 'wool scarf' },
      { sku: 'C2', title: 'wool hat' },
      { sku: 'C3', title: 'cotton hat' },
    ]);
    const total = async () => {
      const res = await list(c, { search: 'wool', limit: 1 });
      expect(res.response.status).toBe(200);
      const { rows: sql } = await testKnex().raw('SELECT count(*)::int AS n FROM catalog_items WHERE catalog_id = ? AND search_text LIKE ?', [c, '%wool%']);
      expect(res.data!.total).toBe(sql[0].n);
      return res.data!.total!;
    };
    expect(await total()).toBe(2);
    const hits = caches.catalog.searchTotalStats.hits;
    expect(await total()).toBe(2);
    expect(caches.catalog.searchTotalStats.hits).toBe(hits + 1);

    await bulk(c, [{ sku: 'C3', title: 'wool cap' }]);
    expect(await total()).toBe(3);
    const c1 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'C1' }).first('id');
    const snap = await api.POST('/api/public/catalogs/{catalog_id}/snapshots', { ...cat(c), body: {} });
    await api.PUT('/api/public/catalogs/{catalog_id}/items/{item_id}', { ...itemPath(c, c1.id), body: { title: 'linen scarf' } });
    expect(await total()).toBe(2);
    await api.DELETE('/api/public/catalogs/{catalog_id}/items/{item_id}', itemPath(c, c1.id));
    expect(await total()).toBe(2);
    const c2 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'C2' }).first('id');
    await api.DELETE('/api/public/catalogs/{catalog_id}/items/{item_id}', itemPath(c, c2.id));
    expect(await total()).toBe(1);
    // Writers outside the service (raw SQL) bump the counter too.
    await testKnex()('catalog_items').insert({ id: newId(), catalog_id: c, business_key: 'C4', data: JSON.stringify({ sku: 'C4', title: 'Wool socks' }) });
    expect(await total()).toBe(2);
    await testKnex()('catalog_items')
      .where({ catalog_id: c, business_key: 'C4' })
      .update({ data: JSON.stringify({ sku: 'C4', title: 'silk socks' }) });
    expect(await total()).toBe(1);
    const restored = await api.POST('/api/public/catalogs/{catalog_id}/snapshots/{snapshot_id}/restore', {
      params: { path: { catalog_id: c, snapshot_id: snap.data!.id! } },
    });
    expect(restored.response.status).toBe(200);
    expect(await total()).toBe(3);
  });

  it('pages broad results in order with an exact total', async () => {
    const big = await createTestCatalog(a.organizationId);
    await bulk(
      big,
      Array.from({ length: 300 }, (_, i) => ({ sku: `B${i}`, title: i % 3 === 0 ? 'wool scarf' : 'cotton hat' })),
    );
    const res = await list(big, { search: 'wool', limit: 7, offset: 14 });
    expect(res.data!.total).toBe(100);
    expect(res.data!.items!.map((i) => i.data.sku)).toEqual([42, 45, 48, 51, 54, 57, 60].map((i) => `B${i}`));
  });
});
