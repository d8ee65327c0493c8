import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { catalogState, createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import type { ItemBody, ValidationErrorBody, VariantEntry } from '../helpers/wire';

/** Product variants (docs/api-reference.md "Products and variants") over the API, called through the typed client (packages/client). */

let server: Server;
let a: Awaited<ReturnType<typeof createTestOrg>>;
let b: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with organization a's credential. */
let api: CatalogClient;
/** `POST …/products/{id}/items/bulk` body. */
type VariantsBulkBody = paths['/api/public/catalogs/{catalog_id}/products/{product_id}/items/bulk']['post']['requestBody']['content']['application/json'];

const url = (c: string, rest = '') => `/api/public/catalogs/${c}${rest}`;
const productPath = (catalog_id: string, product_id: string) => ({ path: { catalog_id, product_id } });
/** `POST …/products/{id}/items`: a variant `data` under product `product` of `catalog`. */
const addVariant = (catalog: string, product: string, data: Record<string, unknown>) =>
  api.POST('/api/public/catalogs/{catalog_id}/products/{product_id}/items', { params: productPath(catalog, product), body: data });
/** `PUT …/products/{id}` with `data`. */
const putProduct = (catalog: string, product: string, data: Record<string, unknown>) =>
  api.PUT('/api/public/catalogs/{catalog_id}/products/{product_id}', { params: productPath(catalog, product), body: data });
/** `POST …/products/{id}/items/bulk` with `body`. */
const bulkVariants = (catalog: string, product: string, body: VariantsBulkBody) =>
  api.POST('/api/public/catalogs/{catalog_id}/products/{product_id}/items/bulk', { params: productPath(catalog, product), body });
const schema = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    product_id: { type: 'string' },
    product_name: { type: 'string' },
    product_brand: { type: 'string' },
    color: { type: 'string' },
    price: { type: 'number' },
  },
};

beforeAll(async () => {
  server = await listenTestApp();
  a = await createTestOrg('variants a');
  b = await createTestOrg('variants b');
  api = typedClient(server, a.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

async function grouped(orgId: string, strict = false): Promise<{ catalog: string; product: string }> {
  const catalog = await createTestCatalog(orgId, { product_id_field: 'product_id', product_enabled: true, strict_mode: strict, schema_definition: schema });
  const knex = testKnex();
  const product = newId();
  await knex('catalog_items').insert({
    id: product,
    catalog_id: catalog,
    entity_type: 'product',
    data: JSON.stringify({ product_id: 'P1', product_name: 'Shirt' }),
  });
  await knex('catalogs').where('id', catalog).update({ item_count: 1 });
  return { catalog, product };
}

describe('product variants (docs/api-reference.md "Products and variants")', () => {
  it('creates a variant under a product with the shared product fields', async () => {
    const { catalog, product } = await grouped(a.organizationId);
    const res = await addVariant(catalog, product, { sku: 'V1', color: 'red' });
    expect(res.response.status).toBe(200);
    expect(res.data!.data).toEqual({ sku: 'V1', color: 'red', product_id: 'P1', product_name: 'Shirt' });
    const row = await testKnex()('catalog_items').where('id', res.data!.id).first();
    expect(row).toMatchObject({ entity_type: 'variant', parent_id: product, business_key: 'V1' });
    const byUid = await addVariant(catalog, product, { unique_identifier: 'V2', color: 'blue' });
    expect(byUid.data!.data).toMatchObject({ sku: 'V2', color: 'blue' });
    expect(byUid.data!.data.unique_identifier).toBeUndefined();
    expect(await catalogState(catalog)).toMatchObject({ rows: 3, item_count: 3 });

    const list = await api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: catalog } } });
    expect(list.data!.total).toBe(1);
    expect((list.data!.items![0].data.variants as VariantEntry[]).map((v) => v.sku)).toEqual(['V1', 'V2']);
  });

  it('refuses variants without a key, under a variant, unknown or foreign products; nothing changes', async () => {
    const { catalog, product } = await grouped(a.organizationId, true);
    const v = await addVariant(catalog, product, { sku: 'V1' });
    const before = await catalogState(catalog);
    const noKey = await addVariant(catalog, product, { color: 'red' });
    expect(noKey.response.status).toBe(422);
    expect((noKey.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'sku']);
    expect((await addVariant(catalog, product, { sku: 'V9', price: 'x' })).response.status).toBe(422);
    expect((await addVariant(catalog, v.data!.id, { sku: 'V3' })).response.status).toBe(404);
    expect((await addVariant(catalog, newId(), { sku: 'V3' })).response.status).toBe(404);
    const foreign = await grouped(b.organizationId);
    expect((await addVariant(foreign.catalog, foreign.product, { sku: 'V3' })).response.status).toBe(403);
    expect((await addVariant(catalog, foreign.product, { sku: 'V3' })).response.status).toBe(403);
    expect((await putProduct(catalog, foreign.product, { product_name: 'x' })).response.status).toBe(403);
    expect(await catalogState(catalog)).toEqual(before);
    expect(await catalogState(foreign.catalog)).toMatchObject({ rows: 1 });
  });

  it('PUT product applies only product_* keys, to the product and every variant', async () => {
    const { catalog, product } = await grouped(a.organizationId, true);
    await bulkVariants(catalog, product, { variants: [{ sku: 'A' }, { sku: 'B' }] });
    const res = await putProduct(catalog, product, { product_name: 'Better Shirt', color: 'ignored' });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      product: { id: product, data: { product_id: 'P1', product_name: 'Better Shirt' }, metadata: { version: 2 } },
      variants_updated: 2,
      ignored_fields: ['color'],
    });
    const variants: Array<Pick<ItemBody, 'data' | 'current_version'>> = await testKnex()('catalog_items')
      .where('parent_id', product)
      .select('data', 'current_version');
    expect(variants.every((v) => v.data.product_name === 'Better Shirt' && v.data.color === undefined && v.current_version === 2)).toBe(true);
    const before = await catalogState(catalog);
    expect((await putProduct(catalog, product, { color: 'x' })).response.status).toBe(422);
    expect((await putProduct(catalog, product, { product_name: 5 })).response.status).toBe(422);
    expect(await catalogState(catalog)).toEqual(before);
  });

  it('bulk variants: product fields, duplicates, warnings, per-item errors, 413', async () => {
    const { catalog, product } = await grouped(a.organizationId, true);
    const res = await bulkVariants(catalog, product, {
      product: { product_brand: 'Acme', brand: 'no prefix' },
      variants: [{ sku: 'V1', color: 'red' }, { sku: 'V1', color: 'blue' }, { sku: 'V2', price: 'bad' }, { sku: 'V3' }],
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      success: false,
      product_id: product,
      items_processed: 4,
      items_created: 2,
      items_updated: 0,
      items_failed: 2,
      duplicates_in_payload: 1,
    });
    expect(res.data!.warnings).toHaveLength(2);
    const v1 = await testKnex()('catalog_items').where({ catalog_id: catalog, business_key: 'V1' }).first();
    expect(v1.data).toEqual({ sku: 'V1', color: 'blue', product_id: 'P1', product_name: 'Shirt', product_brand: 'Acme' });
    const p = await testKnex()('catalog_items').where('id', product).first();
    expect(p.data.product_brand).toBe('Acme');
    expect(await catalogState(catalog)).toMatchObject({ rows: 3, item_count: 3 });
    const before = await catalogState(catalog);
    const big = await bulkVariants(catalog, product, { variants: Array.from({ length: 1001 }, (_, i) => ({ sku: `X${i}` })) });
    expect(big.response.status).toBe(413);
    // No variants at all: the client's types refuse the body.
    expect(
      (
        await request(server)
          .post(url(catalog, `/products/${product}/items/bulk`))
          .set(a.auth)
          .send({ product: {} })
      ).status,
    ).toBe(422);
    expect(await catalogState(catalog)).toEqual(before);
  });

  it('deleting a product deletes its variants and keeps item_count exact', async () => {
    const { catalog, product } = await grouped(a.organizationId);
    await bulkVariants(catalog, product, { variants: [{ sku: 'A' }, { sku: 'B' }] });
    expect(
      (await api.DELETE('/api/public/catalogs/{catalog_id}/items/{item_id}', { params: { path: { catalog_id: catalog, item_id: product } } })).response.status,
    ).toBe(200);
    expect(await catalogState(catalog)).toMatchObject({ rows: 0, item_count: 0 });
  });
});
