import request from 'supertest';
import type { Server } from 'node:http';
import { newId } from '../../src/lib/ids';
import { testApp } from '../helpers/app';
import { catalogState, createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bodyOf, ItemBody, ItemListBody } from '../helpers/wire';

let server: Server;
let a: Awaited<ReturnType<typeof createTestOrg>>;
let b: Awaited<ReturnType<typeof createTestOrg>>;

const url = (c: string, rest = '') => `/api/public/catalogs/${c}${rest}`;
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
  server = testApp().listen(0);
  a = await createTestOrg('variants a');
  b = await createTestOrg('variants b');
});

afterAll(async () => {
  server.close();
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

describe('product variants (G10)', () => {
  it('creates a variant under a product with the shared product fields', async () => {
    const { catalog, product } = await grouped(a.organizationId);
    const res = await request(server)
      .post(url(catalog, `/products/${product}/items`))
      .set(a.auth)
      .send({ sku: 'V1', color: 'red' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sku: 'V1', color: 'red', product_id: 'P1', product_name: 'Shirt' });
    const row = await testKnex()('catalog_items').where('id', res.body.id).first();
    expect(row).toMatchObject({ entity_type: 'variant', parent_id: product, business_key: 'V1' });
    const byUid = await request(server)
      .post(url(catalog, `/products/${product}/items`))
      .set(a.auth)
      .send({ unique_identifier: 'V2', color: 'blue' });
    expect(byUid.body.data).toMatchObject({ sku: 'V2', color: 'blue' });
    expect(byUid.body.data.unique_identifier).toBeUndefined();
    expect(await catalogState(catalog)).toMatchObject({ rows: 3, item_count: 3 });

    const list = await request(server).get(url(catalog, '/items')).set(a.auth);
    expect(list.body.total).toBe(1);
    expect(bodyOf<ItemListBody>(list).items[0].data.variants!.map((v) => v.sku)).toEqual(['V1', 'V2']);
  });

  it('refuses variants without a key, under a variant, unknown or foreign products; nothing changes', async () => {
    const { catalog, product } = await grouped(a.organizationId, true);
    const v = await request(server)
      .post(url(catalog, `/products/${product}/items`))
      .set(a.auth)
      .send({ sku: 'V1' });
    const before = await catalogState(catalog);
    const noKey = await request(server)
      .post(url(catalog, `/products/${product}/items`))
      .set(a.auth)
      .send({ color: 'red' });
    expect(noKey.status).toBe(422);
    expect(noKey.body.detail[0].loc).toEqual(['body', 'sku']);
    expect(
      (
        await request(server)
          .post(url(catalog, `/products/${product}/items`))
          .set(a.auth)
          .send({ sku: 'V9', price: 'x' })
      ).status,
    ).toBe(422);
    expect(
      (
        await request(server)
          .post(url(catalog, `/products/${v.body.id}/items`))
          .set(a.auth)
          .send({ sku: 'V3' })
      ).status,
    ).toBe(404);
    expect(
      (
        await request(server)
          .post(url(catalog, `/products/${newId()}/items`))
          .set(a.auth)
          .send({ sku: 'V3' })
      ).status,
    ).toBe(404);
    const foreign = await grouped(b.organizationId);
    expect(
      (
        await request(server)
          .post(url(foreign.catalog, `/products/${foreign.product}/items`))
          .set(a.auth)
          .send({ sku: 'V3' })
      ).status,
    ).toBe(403);
    expect(
      (
        await request(server)
          .post(url(catalog, `/products/${foreign.product}/items`))
          .set(a.auth)
          .send({ sku: 'V3' })
      ).status,
    ).toBe(403);
    expect(
      (
        await request(server)
          .put(url(catalog, `/products/${foreign.product}`))
          .set(a.auth)
          .send({ product_name: 'x' })
      ).status,
    ).toBe(403);
    expect(await catalogState(catalog)).toEqual(before);
    expect(await catalogState(foreign.catalog)).toMatchObject({ rows: 1 });
  });

  it('PUT product applies only product_* keys, to the product and every variant', async () => {
    const { catalog, product } = await grouped(a.organizationId, true);
    await request(server)
      .post(url(catalog, `/products/${product}/items/bulk`))
      .set(a.auth)
      .send({ variants: [{ sku: 'A' }, { sku: 'B' }] });
    const res = await request(server)
      .put(url(catalog, `/products/${product}`))
      .set(a.auth)
      .send({ product_name: 'Better Shirt', color: 'ignored' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      product: { id: product, data: { product_id: 'P1', product_name: 'Better Shirt' }, metadata: { version: 2 } },
      variants_updated: 2,
      ignored_fields: ['color'],
    });
    const variants: Array<Pick<ItemBody, 'data' | 'current_version'>> = await testKnex()('catalog_items')
      .where('parent_id', product)
      .select('data', 'current_version');
    expect(variants.every((v) => v.data.product_name === 'Better Shirt' && v.data.color === undefined && v.current_version === 2)).toBe(true);
    const before = await catalogState(catalog);
    expect(
      (
        await request(server)
          .put(url(catalog, `/products/${product}`))
          .set(a.auth)
          .send({ color: 'x' })
      ).status,
    ).toBe(422);
    expect(
      (
        await request(server)
          .put(url(catalog, `/products/${product}`))
          .set(a.auth)
          .send({ product_name: 5 })
      ).status,
    ).toBe(422);
    expect(await catalogState(catalog)).toEqual(before);
  });

  it('bulk variants: product fields, duplicates, warnings, per-item errors, 413', async () => {
    const { catalog, product } = await grouped(a.organizationId, true);
    const res = await request(server)
      .post(url(catalog, `/products/${product}/items/bulk`))
      .set(a.auth)
      .send({
        product: { product_brand: 'Acme', brand: 'no prefix' },
        variants: [{ sku: 'V1', color: 'red' }, { sku: 'V1', color: 'blue' }, { sku: 'V2', price: 'bad' }, { sku: 'V3' }],
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: false,
      product_id: product,
      items_processed: 4,
      items_created: 2,
      items_updated: 0,
      items_failed: 2,
      duplicates_in_payload: 1,
    });
    expect(res.body.warnings).toHaveLength(2);
    const v1 = await testKnex()('catalog_items').where({ catalog_id: catalog, business_key: 'V1' }).first();
    expect(v1.data).toEqual({ sku: 'V1', color: 'blue', product_id: 'P1', product_name: 'Shirt', product_brand: 'Acme' });
    const p = await testKnex()('catalog_items').where('id', product).first();
    expect(p.data.product_brand).toBe('Acme');
    expect(await catalogState(catalog)).toMatchObject({ rows: 3, item_count: 3 });
    const before = await catalogState(catalog);
    const big = await request(server)
      .post(url(catalog, `/products/${product}/items/bulk`))
      .set(a.auth)
      .send({ variants: Array.from({ length: 1001 }, (_, i) => ({ sku: `X${i}` })) });
    expect(big.status).toBe(413);
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
    await request(server)
      .post(url(catalog, `/products/${product}/items/bulk`))
      .set(a.auth)
      .send({ variants: [{ sku: 'A' }, { sku: 'B' }] });
    expect(
      (
        await request(server)
          .delete(url(catalog, `/items/${product}`))
          .set(a.auth)
      ).status,
    ).toBe(200);
    expect(await catalogState(catalog)).toMatchObject({ rows: 0, item_count: 0 });
  });
});
