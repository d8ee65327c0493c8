import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { parseServerTiming } from '../../src/lib/stage-timings';
import { catalogState, createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import type { ItemBody, ValidationErrorBody, VariantEntry } from '../helpers/wire';

/**
 * Item routes (docs/api-reference.md "Items") over the API, called through the typed client (packages/client);
 * bodies and query values its types refuse (wrong shapes, unknown keys, values outside the enums,
 * malformed JSON) go through supertest.
 */

let server: Server;
let a: Awaited<ReturnType<typeof createTestOrg>>;
let b: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with organization a's credential. */
let api: CatalogClient;
let catalog: string;
let otherCatalog: string;
/** `GET …/items` query. */
type ListQuery = NonNullable<paths['/api/public/catalogs/{catalog_id}/items']['get']['parameters']['query']>;
/** `GET …/raw-items` query. */
type RawQuery = NonNullable<paths['/api/public/catalogs/{catalog_id}/raw-items']['get']['parameters']['query']>;
/** `POST …/items` body. */
type ItemInput = paths['/api/public/catalogs/{catalog_id}/items']['post']['requestBody']['content']['application/json'];

const url = (c: string, rest = '') => `/api/public/catalogs/${c}${rest}`;
const itemPath = (catalog_id: string, item_id: string) => ({ params: { path: { catalog_id, item_id } } });

beforeAll(async () => {
  server = await listenTestApp();
  a = await createTestOrg('items a');
  b = await createTestOrg('items b');
  api = typedClient(server, a.auth);
  catalog = await createTestCatalog(a.organizationId);
  otherCatalog = await createTestCatalog(b.organizationId);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

async function bulk(c: string, items: unknown[], extra: { source_info?: Record<string, unknown> } = {}) {
  return api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: c } }, body: { items, ...extra } });
}

/** `GET …/items` of catalog `c` with `query`, as `client`. */
const list = (c: string, query: ListQuery = {}, client: CatalogClient = api) =>
  client.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: c }, query } });
/** `GET …/raw-items` of catalog `c` with `query`. */
const rawList = (c: string, query: RawQuery = {}) => api.GET('/api/public/catalogs/{catalog_id}/raw-items', { params: { path: { catalog_id: c }, query } });
/** `POST …/items` of catalog `c` with `body`, as `client`. */
const upsert = (c: string, body: ItemInput, client: CatalogClient = api) =>
  client.POST('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: c } }, body });
/** `GET …/items/{id}`. */
const getItem = (c: string, id: string) => api.GET('/api/public/catalogs/{catalog_id}/items/{item_id}', itemPath(c, id));
/** `PUT …/items/{id}` with `data`. */
const putItem = (c: string, id: string, data: Record<string, unknown>) =>
  api.PUT('/api/public/catalogs/{catalog_id}/items/{item_id}', { ...itemPath(c, id), body: data });
/** `DELETE …/items/{id}`. */
const deleteItem = (c: string, id: string) => api.DELETE('/api/public/catalogs/{catalog_id}/items/{item_id}', itemPath(c, id));

describe('bulk upsert (docs/api-reference.md "Bulk writes")', () => {
  it('creates, then updates by business key, merging fields and keeping item_count exact', async () => {
    const c = await createTestCatalog(a.organizationId);
    const first = await bulk(c, [{ sku: 'A1', title: 'Red Shirt', price: 10 }, { sku: 'A2', title: 'Blue Shirt' }, { title: 'no key' }]);
    expect(first.response.status).toBe(200);
    expect(first.data).toEqual({ success: true, items_processed: 3, items_created: 3, items_updated: 0, items_failed: 0, schema_evolved: false, errors: [] });
    const second = await bulk(
      c,
      [
        { sku: 'A1', price: 12 },
        { sku: 'A3', title: 'Green' },
      ],
      { source_info: { source: 'test' } },
    );
    expect(second.data).toMatchObject({ items_created: 1, items_updated: 1, items_failed: 0 });
    const state = await catalogState(c);
    expect(state).toMatchObject({ rows: 4, item_count: 4 });
    const a1 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'A1' }).first();
    expect(a1.data).toEqual({ sku: 'A1', title: 'Red Shirt', price: 12 });
    expect(a1.current_version).toBe(2);
    expect(a1.source_info).toEqual({ source: 'test' });
  });

  it('says where its time went in a Server-Timing header, one entry per stage of the write (docs/benchmarks.md "Bulk upsert by stage")', async () => {
    const c = await createTestCatalog(a.organizationId);
    const { response } = await bulk(c, [{ sku: 'T1', title: 'Timed' }]);
    expect(response.status).toBe(200);
    const stages = parseServerTiming(response.headers.get('server-timing'));
    expect(Object.keys(stages).sort()).toEqual(['identity', 'lock', 'parse', 'words', 'write']);
    for (const ms of Object.values(stages)) expect(ms).toBeGreaterThanOrEqual(0);
  });

  it('reports bad items by index without failing the others; duplicates: last wins', async () => {
    const c = await createTestCatalog(a.organizationId, { strict_mode: true });
    const res = await bulk(c, [
      { sku: 'S1', price: 'cheap' },
      'not an object',
      { sku: 'S2', title: 'one' },
      { sku: 'S2', title: 'two' },
      { __catalog_item_id: newId(), title: 'x' },
      { sku: 'S3', unknown_field: 1 },
    ]);
    expect(res.response.status).toBe(200);
    expect(res.data!.success).toBe(false);
    expect(res.data).toMatchObject({ items_processed: 6, items_created: 1, items_updated: 0, items_failed: 5 });
    expect(res.data!.errors!.map((e) => e.index)).toEqual([0, 1, 2, 4, 5]);
    expect(res.data!.errors![0].detail).toMatch(/price/);
    const state = await catalogState(c);
    expect(state).toMatchObject({ rows: 1, item_count: 1 });
    expect((state.data[0] as { data: unknown }).data).toEqual({ sku: 'S2', title: 'two' });
  });

  it('writes nothing for an item equal to what it would be written with (a request run again writes nothing twice), and still counts it as updated', async () => {
    const c = await createTestCatalog(a.organizationId);
    const items = [
      { sku: 'S1', title: 'Same', price: 1 },
      { sku: 'S2', title: 'Other', price: 2 },
    ];
    await bulk(c, items);
    const again = await bulk(c, [items[0], { ...items[1], price: 3 }]);
    expect(again.data).toMatchObject({ items_created: 0, items_updated: 2, items_failed: 0 });
    expect(again.data).not.toHaveProperty('unchanged');
    const rows = await testKnex()('catalog_items').where({ catalog_id: c }).orderBy('business_key').select('business_key', 'current_version', 'data');
    expect(rows).toEqual([
      { business_key: 'S1', current_version: 1, data: items[0] },
      { business_key: 'S2', current_version: 2, data: { ...items[1], price: 3 } },
    ]);
  });

  it('matches __catalog_item_id first and does not store it', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(c, [{ sku: 'K1', title: 'a' }]);
    const row = await testKnex()('catalog_items').where({ catalog_id: c }).first();
    const res = await bulk(c, [{ __catalog_item_id: row.id, sku: 'K1-renamed' }]);
    expect(res.data).toMatchObject({ items_created: 0, items_updated: 1 });
    const after = await testKnex()('catalog_items').where({ id: row.id }).first();
    expect(after.data).toEqual({ sku: 'K1-renamed', title: 'a' });
    expect(after.business_key).toBe('K1-renamed');
  });

  it('auto-evolves the schema once per request', async () => {
    const c = await createTestCatalog(a.organizationId, { auto_evolve_schema: true, strict_mode: true });
    const res = await bulk(c, [
      { sku: 'E1', colour: 'red' },
      { sku: 'E2', weight: 2 },
    ]);
    expect(res.data).toMatchObject({ items_created: 2, schema_evolved: true, new_schema_version: '1.1.0' });
    expect((await catalogState(c)).versions).toBe(2);
  });

  it('413 over 1000 items, 422 for wrong shapes and malformed JSON; nothing changes', async () => {
    const before = await catalogState(catalog);
    const big = await bulk(
      catalog,
      Array.from({ length: 1001 }, (_, i) => ({ sku: `B${i}` })),
    );
    expect(big.response.status).toBe(413);
    expect((big.error as { detail: string }).detail).toMatch(/1000/);
    // Wrong shapes, an unknown key and malformed JSON: the client's types refuse them.
    const wrong = await request(server).post(url(catalog, '/items/bulk')).set(a.auth).send({ items: 'nope' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(['body', 'items']);
    const extra = await request(server).post(url(catalog, '/items/bulk')).set(a.auth).send({ items: [], unique_field: 'sku' });
    expect(extra.status).toBe(422);
    const malformed = await request(server).post(url(catalog, '/items/bulk')).set(a.auth).set('Content-Type', 'application/json').send('{"items": [');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].type).toBe('json_invalid');
    expect(await catalogState(catalog)).toEqual(before);
  });

  it('403 for another organization’s catalog, 404 for an unknown one; nothing changes', async () => {
    const before = await catalogState(otherCatalog);
    expect((await bulk(otherCatalog, [{ sku: 'X' }])).response.status).toBe(403);
    expect((await bulk(newId(), [{ sku: 'X' }])).response.status).toBe(404);
    expect((await bulk('not-a-uuid', [{ sku: 'X' }])).response.status).toBe(404);
    expect(await catalogState(otherCatalog)).toEqual(before);
  });
});

describe('list items (docs/api-reference.md "Items")', () => {
  let c: string;
  beforeAll(async () => {
    c = await createTestCatalog(a.organizationId);
    await bulk(c, [
      { sku: 'L1', title: 'Red Cotton Shirt', price: 9 },
      { sku: 'L2', title: 'blue shirt', price: 100 },
      { sku: 'L3', title: 'Green 100% wool', price: 20 },
      { sku: 'L4', title: 'Socks' },
      { sku: 'L5', title: 'Hat', price: 20 },
    ]);
  });

  it('pages in insertion order with the exact total', async () => {
    const res = await list(c, { limit: 2, offset: 2 });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(res.data!.items!.map((i) => i.data.sku)).toEqual(['L3', 'L4']);
    expect(res.data!.items![0]).toEqual({
      id: expect.any(String),
      data: { sku: 'L3', title: 'Green 100% wool', price: 20 },
      metadata: { created_at: expect.stringMatching(/Z$/), updated_at: expect.stringMatching(/Z$/), version: 1 },
    });
  });

  it('searches case-insensitively over text values, wildcards literal', async () => {
    const res = await list(c, { search: 'SHIRT' });
    expect(res.data!.items!.map((i) => i.data.sku)).toEqual(['L1', 'L2']);
    expect(res.data!.total).toBe(2);
    const pct = await list(c, { search_query: '100%' });
    expect(pct.data!.items!.map((i) => i.data.sku)).toEqual(['L3']);
    const num = await list(c, { search: '100' });
    expect(num.data!.total).toBe(2);
  });

  it('sorts numbers numerically, ties by id, missing values last', async () => {
    const res = await list(c, { sort: 'price:desc' });
    const skus = res.data!.items!.map((i) => i.data.sku);
    expect(skus[0]).toBe('L2');
    expect(skus.slice(1, 3).sort()).toEqual(['L3', 'L5']);
    expect(skus.slice(3)).toEqual(['L1', 'L4']);
    const listed = res.data!.items!;
    const tie = listed.slice(1, 3).map((i) => i.id);
    expect(tie).toEqual([...tie].sort());
    const asc = await list(c, { sort_field: 'price', sort_order: 'asc' });
    expect(asc.data!.items!.map((i) => i.data.sku)).toEqual(['L1', ...tie.map((id) => listed.find((i) => i.id === id)!.data.sku), 'L2', 'L4']);
    const created = await list(c, { sort: 'created_at:desc', limit: 1 });
    expect(created.data!.items![0].data.sku).toBe('L5');
  });

  it('a sort field carrying SQL is only a key name', async () => {
    const evil = 'price; DROP TABLE catalog_items; --';
    const res = await list(c, { sort_field: evil, sort_order: 'desc' });
    expect(res.response.status).toBe(200);
    expect(res.data!.total).toBe(5);
    const raw = await rawList(c, { sort_field: "data') OR 1=1 --" });
    expect(raw.response.status).toBe(200);
    expect(raw.data!.total).toBe(5);
    expect(await testKnex().schema.hasTable('catalog_items')).toBe(true);
  });

  it('422 for bad query values', async () => {
    for (const query of [{ limit: 0 }, { limit: 1001 }, { offset: -1 }, { sort: 'price:up' }]) {
      const res = await list(c, query);
      expect(res.response.status).toBe(422);
      expect((res.error as ValidationErrorBody).detail[0].loc[0]).toBe('query');
    }
    // A sort_order outside the enum and a limit that is no number: the client's types refuse them.
    for (const q of ['sort_order=sideways', 'limit=abc']) {
      const res = await request(server)
        .get(url(c, `/items?${q}`))
        .set(a.auth);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
  });

  it('403 / 404 for foreign and unknown catalogs', async () => {
    expect((await list(otherCatalog)).response.status).toBe(403);
    expect((await list(newId())).response.status).toBe(404);
    expect((await list(c, {}, typedClient(server))).response.status).toBe(401);
  });
});

describe('single item routes (docs/api-reference.md "Items")', () => {
  it('upserts by business key, by __catalog_item_id, and creates without either', async () => {
    const c = await createTestCatalog(a.organizationId);
    const created = await upsert(c, { unique_identifier: 'ignored', data: { sku: 'U1', title: 'one' } });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ data: { sku: 'U1', title: 'one' }, metadata: { version: 1 } });
    const createdId = created.data!.id;
    const updated = await upsert(c, { unique_identifier: 'x', data: { sku: 'U1', price: 3 } });
    expect(updated.data).toMatchObject({ id: createdId, data: { sku: 'U1', title: 'one', price: 3 }, metadata: { version: 2 } });
    const byId = await upsert(c, { unique_identifier: 'x', data: { __catalog_item_id: createdId, title: 'renamed' } });
    expect(byId.data).toMatchObject({ id: createdId, data: { sku: 'U1', title: 'renamed', price: 3 }, metadata: { version: 3 } });
    const unknown = await upsert(c, { unique_identifier: 'x', data: { __catalog_item_id: newId(), title: 'x' } });
    expect(unknown.response.status).toBe(404);
    const got = await getItem(c, createdId);
    expect(got.data).toEqual(byId.data);
    expect((await catalogState(c)).item_count).toBe(1);
  });

  it('validates the body and strict mode; nothing changes on failure', async () => {
    const c = await createTestCatalog(a.organizationId, { strict_mode: true });
    const before = await catalogState(c);
    // A missing unique_identifier and data that is no object: the client's types refuse them.
    const missing = await request(server)
      .post(url(c, '/items'))
      .set(a.auth)
      .send({ data: { sku: 'Z' } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ['body', 'unique_identifier'], msg: 'Field required', type: 'missing' }]);
    const wrongType = await request(server).post(url(c, '/items')).set(a.auth).send({ unique_identifier: 'Z', data: [] });
    expect(wrongType.status).toBe(422);
    const strict = await upsert(c, { unique_identifier: 'Z', data: { sku: 'Z', price: 'free' } });
    expect(strict.response.status).toBe(422);
    expect((strict.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'data', 'price']);
    expect(await catalogState(c)).toEqual(before);
  });

  it('PUT changes only the given fields; DELETE removes; 403/404 elsewhere', async () => {
    const c = await createTestCatalog(a.organizationId, { strict_mode: true });
    const created = await upsert(c, { unique_identifier: 'P', data: { sku: 'P1', title: 't', price: 1 } });
    const id = created.data!.id;
    const put = await putItem(c, id, { price: 2 });
    expect(put.response.status).toBe(200);
    expect(put.data).toMatchObject({ id, data: { sku: 'P1', title: 't', price: 2 }, metadata: { version: 2 } });
    const before = await catalogState(c);
    expect((await putItem(c, id, { price: 'two' })).response.status).toBe(422);
    // An array body: the client's types refuse it.
    expect(
      (
        await request(server)
          .put(url(c, `/items/${id}`))
          .set(a.auth)
          .send([1])
      ).status,
    ).toBe(422);
    expect((await putItem(c, newId(), { price: 3 })).response.status).toBe(404);
    const other = (await upsert(c, { unique_identifier: 'Q', data: { sku: 'Q1' } })).data!.id;
    expect((await putItem(c, other, { sku: 'P1' })).response.status).toBe(409);
    await testKnex()('catalog_items').where('id', other).delete();
    await testKnex()('catalogs').where('id', c).decrement('item_count', 1);
    expect(await catalogState(c)).toEqual(before);

    // Foreign ids: another organization's item in its own catalog, and under ours.
    await upsert(otherCatalog, { unique_identifier: 'F', data: { sku: 'F1' } }, typedClient(server, b.auth));
    const foreign = await testKnex()('catalog_items').where({ catalog_id: otherCatalog, business_key: 'F1' }).first();
    const foreignBefore = await catalogState(otherCatalog);
    expect((await getItem(otherCatalog, foreign.id)).response.status).toBe(403);
    expect((await getItem(c, foreign.id)).response.status).toBe(403);
    expect((await putItem(c, foreign.id, { title: 'x' })).response.status).toBe(403);
    expect((await deleteItem(c, foreign.id)).response.status).toBe(403);
    expect(await catalogState(otherCatalog)).toEqual(foreignBefore);

    const del = await deleteItem(c, id);
    expect(del.response.status).toBe(200);
    expect(del.data).toEqual({ message: 'Item deleted successfully' });
    expect((await getItem(c, id)).response.status).toBe(404);
    expect((await deleteItem(c, id)).response.status).toBe(404);
    expect((await getItem(c, 'not-a-uuid')).response.status).toBe(404);
    expect(await catalogState(c)).toMatchObject({ rows: 0, item_count: 0 });
  });
});

describe('raw items (docs/api-reference.md "Raw items")', () => {
  it('returns every row exactly once across parallel offset pages, with total', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(
      c,
      Array.from({ length: 1000 }, (_, i) => ({ sku: `R${i}`, title: i % 2 ? 'odd' : 'even' })),
    );
    await bulk(
      c,
      Array.from({ length: 234 }, (_, i) => ({ sku: `S${i}` })),
    );
    const pages = await Promise.all([0, 1, 2, 3, 4].map((p) => rawList(c, { limit: 300, offset: p * 300 })));
    const ids = pages.flatMap((p) => p.data!.items!.map((i) => i.id));
    expect(pages.every((p) => p.data!.total === 1234)).toBe(true);
    expect(ids).toHaveLength(1234);
    expect(new Set(ids).size).toBe(1234);
    expect(pages[0].response.headers.get('content-type')).toMatch(/application\/json/);
    expect(pages[0].data!.items![0]).toEqual({
      id: expect.any(String),
      entity_type: 'product',
      parent_id: null,
      current_version: 1,
      data: expect.objectContaining({ sku: expect.any(String) }),
    });
    const one = await api.GET('/api/public/catalogs/{catalog_id}/raw-items/{item_id}', itemPath(c, ids[0]!));
    expect(one.data).toEqual(pages[0].data!.items![0]);
    const search = await rawList(c, { search: 'ODD', limit: 5 });
    expect(search.data!.total).toBe(500);
    expect(search.data!.items).toHaveLength(5);
    const variants = await rawList(c, { entity_type: 'variant' });
    expect(variants.data).toEqual({ items: [], total: 0 });
    const sorted = await rawList(c, { sort_field: 'sku', sort_order: 'desc', limit: 2 });
    expect(sorted.data!.items!.map((i) => i.data!.sku)).toEqual(['S99', 'S98']);
  });

  it('validates limits and ownership', async () => {
    expect((await rawList(catalog, { limit: 5001 })).response.status).toBe(422);
    // An entity_type outside the enum: the client's types refuse it.
    expect((await request(server).get(url(catalog, '/raw-items?entity_type=thing')).set(a.auth)).status).toBe(422);
    expect((await rawList(otherCatalog)).response.status).toBe(403);
    expect((await rawList(newId())).response.status).toBe(404);
    expect((await api.GET('/api/public/catalogs/{catalog_id}/raw-items/{item_id}', itemPath(catalog, newId()))).response.status).toBe(404);
  });
});

describe('copyCatalogItems (catalog duplicate with include_items)', () => {
  it('copies every row with new ids, remapped parents and an exact item_count', async () => {
    const { copyCatalogItems } = await import('../../src/services/catalog/items/items-write');
    const from = await createTestCatalog(a.organizationId, { product_id_field: 'product_id', product_enabled: true });
    const product = newId();
    await testKnex()('catalog_items').insert({
      id: product,
      catalog_id: from,
      entity_type: 'product',
      data: JSON.stringify({ product_id: 'P', product_name: 'Shirt' }),
    });
    await testKnex()('catalogs').where('id', from).update({ item_count: 1 });
    await api.POST('/api/public/catalogs/{catalog_id}/products/{product_id}/items/bulk', {
      params: { path: { catalog_id: from, product_id: product } },
      body: { variants: [{ sku: 'V1' }, { sku: 'V2' }] },
    });
    const to = await createTestCatalog(a.organizationId, { product_id_field: 'product_id', product_enabled: true });
    const copied = await testKnex().transaction((trx) => copyCatalogItems(trx, from, to));
    expect(copied).toBe(3);
    const rows: ItemBody[] = await testKnex()('catalog_items').where('catalog_id', to).select('id', 'entity_type', 'parent_id', 'data', 'search_text');
    const copyProduct = rows.find((r) => r.entity_type === 'product')!;
    expect(copyProduct.id).not.toBe(product);
    expect(rows.filter((r) => r.entity_type === 'variant').every((r) => r.parent_id === copyProduct.id)).toBe(true);
    expect(rows.every((r) => typeof r.search_text === 'string' && r.search_text.includes('shirt'))).toBe(true);
    expect(await catalogState(to)).toMatchObject({ rows: 3, item_count: 3 });
    expect(await catalogState(from)).toMatchObject({ rows: 3, item_count: 3 });
    const search = await list(to, { search: 'V2' });
    expect(search.data!.total).toBe(1);
    expect((search.data!.items![0].data.variants as VariantEntry[]).map((v) => v.sku)).toEqual(['V1', 'V2']);
  });
});
