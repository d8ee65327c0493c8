import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { testApp } from '../helpers/app';
import { startRestores, type RestoreTemporal } from '../helpers/restores';
import { catalogState, createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import type { ItemBody } from '../helpers/wire';

/**
 * Snapshots and their restore (docs/api-reference.md "Snapshots") over the API, called through the typed client
 * (packages/client); bodies and queries its types refuse go through supertest.
 */

let server: Server;
let a: Awaited<ReturnType<typeof createTestOrg>>;
let b: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with organization a's credential. */
let api: CatalogClient;
/** `POST …/items/bulk` body. */
type BulkBody = paths['/api/public/catalogs/{catalog_id}/items/bulk']['post']['requestBody']['content']['application/json'];

const url = (c: string, rest = '') => `/api/public/catalogs/${c}${rest}`;
const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });
/** `POST …/items/bulk` of catalog `c`. */
const bulk = (c: string, body: BulkBody) => api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(c), body });
/** `POST …/snapshots` of catalog `c` with `body`, as `client`. */
const takeSnapshot = (c: string, body: { reason?: string } = {}, client: CatalogClient = api) =>
  client.POST('/api/public/catalogs/{catalog_id}/snapshots', { ...cat(c), body });
/** `POST …/snapshots/{id}/restore` of catalog `c`. */
const restore = (c: string, snapshotId: string) =>
  api.POST('/api/public/catalogs/{catalog_id}/snapshots/{snapshot_id}/restore', { params: { path: { catalog_id: c, snapshot_id: snapshotId } } });
/** `DELETE …/items/{id}` of catalog `c`. */
const deleteItem = (c: string, itemId: string) =>
  api.DELETE('/api/public/catalogs/{catalog_id}/items/{item_id}', { params: { path: { catalog_id: c, item_id: itemId } } });
/** `GET …/items?search=…&limit=5` of catalog `c`: the total. */
const searchTotal = async (c: string, search: string) =>
  (await api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: c }, query: { search, limit: 5 } } })).data!.total;
const taxonomy = { name: 'Apparel', hierarchy_levels: ['category'], nodes: { shirts: { name: 'Shirts', parent: null, attributes: [] } } };

let restores: RestoreTemporal;

beforeAll(async () => {
  // Restores run as the workflow snapshot-restore-<id>: a real dev server and worker.
  restores = await startRestores('test-snapshots-api');
  server = await listenTestApp(testApp(restores.jobRunner));
  a = await createTestOrg('snapshots a');
  b = await createTestOrg('snapshots b');
  api = typedClient(server, a.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await restores?.stop();
  await closeTestKnex();
});

const itemsOf = (c: string): Promise<ItemBody[]> =>
  testKnex()('catalog_items')
    .where('catalog_id', c)
    .orderBy('id')
    .select('id', 'entity_type', 'parent_id', 'business_key', 'data', 'current_version', 'created_at', 'updated_at');

describe('snapshots (docs/api-reference.md "Snapshots")', () => {
  it('restores items, schema version, taxonomy, catalog_md and quality prompt after a safety snapshot', async () => {
    const c = await createTestCatalog(a.organizationId, { taxonomy, catalog_md: '# v1', quality_prompt: 'be strict' });
    await bulk(c, {
      items: [
        { sku: 'A', title: 'a' },
        { sku: 'B', title: 'b' },
        { sku: 'C', title: 'c' },
      ],
    });
    const snap = await takeSnapshot(c, { reason: 'before edits' });
    expect(snap.response.status).toBe(200);
    const snapId = snap.data!.id!;
    expect(snap.data).toEqual({
      id: expect.any(String),
      catalog_id: c,
      snapshot_type: 'manual',
      reason: 'before edits',
      item_count: 3,
      schema_version: '1.0.0',
      created_at: expect.stringMatching(/Z$/),
      created_by: expect.stringMatching(/^api_key:/),
    });
    const original = await itemsOf(c);

    // Edit everything the snapshot holds.
    const knex = testKnex();
    await bulk(c, {
      items: [
        { sku: 'A', title: 'changed' },
        { sku: 'D', title: 'new' },
      ],
    });
    await deleteItem(c, original.find((r) => r.business_key === 'B')!.id);
    await knex('catalog_schemas').insert({
      id: newId(),
      catalog_id: c,
      version: '2.0.0',
      schema_definition: JSON.stringify({ type: 'object', properties: {} }),
      taxonomy: null,
      created_by: 'test',
      change_reason: 'taxonomy removed',
    });
    await knex('catalogs').where('id', c).update({ current_schema_version: '2.0.0', catalog_md: '# v2', catalog_md_version: 2, quality_prompt: 'be lenient' });
    const edited = await itemsOf(c);

    const res = await restore(c, snapId);
    expect(res.response.status).toBe(200);
    const restored = res.data!;
    expect(restored).toEqual({
      message: expect.any(String),
      snapshot_id: snapId,
      safety_snapshot_id: expect.any(String),
      items_restored: 3,
      schema_version: '1.0.0',
      restore_id: expect.any(String),
    });
    // The answer names its run: the status route shows it completed with the same result.
    const status = await api.GET('/api/public/catalogs/{catalog_id}/snapshot-restores/{restore_id}', {
      params: { path: { catalog_id: c, restore_id: restored.restore_id! } },
    });
    expect(status.response.status).toBe(200);
    expect(status.data).toMatchObject({
      restore_id: restored.restore_id,
      status: 'completed',
      result: { safety_snapshot_id: restored.safety_snapshot_id, items_restored: 3 },
    });
    expect(await itemsOf(c)).toEqual(original);
    const cat = await knex('catalogs').where('id', c).first();
    expect(cat).toMatchObject({ current_schema_version: '1.0.0', catalog_md: '# v1', catalog_md_version: 3, quality_prompt: 'be strict', item_count: 3 });
    const md = await knex('catalog_md_versions').where({ catalog_id: c, version: 3 }).first();
    expect(md.catalog_md).toBe('# v1');
    const schema = await knex('catalog_schemas').where({ catalog_id: c, version: cat.current_schema_version }).first();
    expect(schema.taxonomy).toEqual(taxonomy);
    expect(await knex('catalog_schemas').where('catalog_id', c).count({ n: '*' })).toEqual([{ n: '2' }]);

    // The safety snapshot holds the edited state and restores it.
    const list = await api.GET('/api/public/catalogs/{catalog_id}/snapshots', { params: { path: { catalog_id: c }, query: { snapshot_type: 'safety' } } });
    expect(list.data!.total).toBe(1);
    expect(list.data!.snapshots![0]).toMatchObject({ id: restored.safety_snapshot_id, snapshot_type: 'safety', item_count: 3, schema_version: '2.0.0' });
    const back = await restore(c, restored.safety_snapshot_id!);
    expect(back.data!.schema_version).toBe('2.0.0');
    expect(await itemsOf(c)).toEqual(edited);
    expect((await knex('catalogs').where('id', c).first()).quality_prompt).toBe('be lenient');

    const all = await api.GET('/api/public/catalogs/{catalog_id}/snapshots', { params: { path: { catalog_id: c }, query: { limit: 2, offset: 0 } } });
    expect(all.data!.total).toBe(3);
    expect(all.data!.snapshots).toHaveLength(2);
    expect(all.data!.snapshots![0].snapshot_type).toBe('safety');
  });

  it('restores products and variants with their parent links', async () => {
    const c = await createTestCatalog(a.organizationId, { product_id_field: 'product_id', product_enabled: true });
    const product = newId();
    await testKnex()('catalog_items').insert({ id: product, catalog_id: c, entity_type: 'product', data: JSON.stringify({ product_id: 'P' }) });
    await testKnex()('catalogs').where('id', c).update({ item_count: 1 });
    await api.POST('/api/public/catalogs/{catalog_id}/products/{product_id}/items/bulk', {
      params: { path: { catalog_id: c, product_id: product } },
      body: { variants: [{ sku: 'V1' }, { sku: 'V2' }] },
    });
    const original = await itemsOf(c);
    const snap = await takeSnapshot(c);
    expect(snap.data!.reason).toBeNull();
    await deleteItem(c, product);
    expect((await catalogState(c)).rows).toBe(0);
    await restore(c, snap.data!.id!);
    expect(await itemsOf(c)).toEqual(original);
    expect(await catalogState(c)).toMatchObject({ rows: 3, item_count: 3 });
  });

  it('restores exactly after every row changed, keys moved between rows, rows added and removed', async () => {
    const c = await createTestCatalog(a.organizationId);
    const knex = testKnex();
    await bulk(c, { items: Array.from({ length: 40 }, (_, i) => ({ sku: `R${i}`, title: `wool item ${i}`, price: i })), source_info: { source: 'first' } });
    const full = (): Promise<ItemBody[]> =>
      knex('catalog_items')
        .where('catalog_id', c)
        .orderBy('id')
        .select(
          'id',
          'entity_type',
          'parent_id',
          'business_key',
          'data',
          'search_text',
          knex.raw('search_tsv::text AS tsv'),
          'source_info',
          'current_version',
          'created_at',
          'updated_at',
        );
    const original = await full();
    const snap = await takeSnapshot(c, { reason: 'all' });

    await bulk(c, {
      items: Array.from({ length: 40 }, (_, i) => ({ sku: `R${i}`, title: `linen item ${i}`, price: i + 1 })),
      source_info: { source: 'second' },
    });
    // Swap the business keys of two rows, delete one, add two.
    const [r0, r1] = [original.find((r) => r.business_key === 'R0')!, original.find((r) => r.business_key === 'R1')!];
    await bulk(c, {
      items: [
        { __catalog_item_id: r0.id, sku: 'TMP' },
        { __catalog_item_id: r1.id, sku: 'R0' },
      ],
    });
    await bulk(c, { items: [{ __catalog_item_id: r0.id, sku: 'R1' }, { sku: 'NEW1' }, { sku: 'NEW2', title: 'wool' }] });
    await deleteItem(c, original[5].id);
    expect((await full()).filter((r, i) => JSON.stringify(r) === JSON.stringify(original[i]))).toHaveLength(0);

    const res = await restore(c, snap.data!.id!);
    expect(res.response.status).toBe(200);
    expect(res.data!.items_restored).toBe(40);
    expect(await full()).toEqual(original);
    expect(await catalogState(c)).toMatchObject({ rows: 40, item_count: 40 });
    expect(await searchTotal(c, 'wool')).toBe(40);

    // Back to the safety snapshot: the changed state again, exactly.
    const back = await restore(c, res.data!.safety_snapshot_id!);
    expect(back.response.status).toBe(200);
    expect(await catalogState(c)).toMatchObject({ rows: 41, item_count: 41 });
    expect(await searchTotal(c, 'wool')).toBe(1);
  });

  it('restores exactly when every row changed in place and none was added or removed; search and other catalogs follow', async () => {
    const c = await createTestCatalog(a.organizationId);
    const other = await createTestCatalog(a.organizationId);
    const knex = testKnex();
    const items = (word: string, price: (i: number) => number) =>
      Array.from({ length: 30 }, (_, i) => ({ sku: `P${i}`, title: `${word} item ${i}`, price: price(i) }));
    await bulk(c, { items: items('wool', (i) => i), source_info: { source: 'first' } });
    await bulk(other, { items: items('wool', (i) => i) });
    const full = (catalogId: string): Promise<ItemBody[]> =>
      knex('catalog_items')
        .where('catalog_id', catalogId)
        .orderBy('id')
        .select(
          'id',
          'entity_type',
          'parent_id',
          'business_key',
          'data',
          'search_text',
          knex.raw('search_tsv::text AS tsv'),
          'source_info',
          'current_version',
          'created_at',
          'updated_at',
        );
    const original = await full(c);
    const snap = await takeSnapshot(c, { reason: 'in place' });

    // Every row changes through the service (new words, versions, timestamps, source_info),
    // then again through SQL without the search columns (the trigger recomputes them).
    await bulk(c, { items: items('linen', (i) => i + 1), source_info: { source: 'second' } });
    await knex.raw(`UPDATE catalog_items SET data = data || '{"color": "teal"}', current_version = current_version + 1 WHERE catalog_id = ?`, [c]);
    const changed = await full(c);
    expect(changed.map((r) => r.id)).toEqual(original.map((r) => r.id));
    expect(changed.filter((r, i) => JSON.stringify(r) === JSON.stringify(original[i]))).toHaveLength(0);
    const otherBefore = await full(other);

    const res = await restore(c, snap.data!.id!);
    expect(res.response.status).toBe(200);
    expect(res.data!.items_restored).toBe(30);
    expect(await full(c)).toEqual(original);
    expect(await catalogState(c)).toMatchObject({ rows: 30, item_count: 30 });
    const search = (q: string) => searchTotal(c, q);
    expect([await search('wool'), await search('linen'), await search('teal')]).toEqual([30, 0, 0]);
    expect(await full(other)).toEqual(otherBefore);

    // The safety snapshot holds the changed rows exactly.
    const back = await restore(c, res.data!.safety_snapshot_id!);
    expect(back.response.status).toBe(200);
    expect(await full(c)).toEqual(changed);
    expect([await search('wool'), await search('linen'), await search('teal')]).toEqual([0, 30, 30]);
  });

  it('the search-column trigger recomputes for plain writers and is skipped while a writer declares it supplies them (restore)', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(c, { items: [{ sku: 'T1', title: 'wool scarf', on_sale: false }] });
    const knex = testKnex();
    const text = async () => await knex('catalog_items').where('catalog_id', c).first('search_text', knex.raw('search_tsv::text AS tsv'));
    const snap = await takeSnapshot(c);
    const original = await text();

    await knex.raw(`UPDATE catalog_items SET data = data || '{"title": "silk scarf"}' WHERE catalog_id = ?`, [c]);
    expect(await text()).toEqual({ search_text: 't1 silk scarf', tsv: "'scarf' 'silk' 't1'" });
    await knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL catalog_items.search_columns_supplied = on');
      await trx.raw(`UPDATE catalog_items SET data = data || '{"title": "linen scarf"}' WHERE catalog_id = ?`, [c]);
      expect((await trx('catalog_items').where('catalog_id', c).first('search_text')).search_text).toBe('t1 silk scarf');
      await trx.raw('SET LOCAL catalog_items.search_columns_supplied = DEFAULT');
      await trx.raw(`UPDATE catalog_items SET data = data || '{"title": "cotton scarf"}' WHERE catalog_id = ?`, [c]);
    });
    expect((await text()).search_text).toBe('t1 cotton scarf');

    // Only a boolean differs from the snapshot (search_text equal): restored exactly, and the
    // setting does not outlive the restore's transaction.
    await knex.raw(`UPDATE catalog_items SET data = data || '{"title": "wool scarf", "on_sale": true}' WHERE catalog_id = ?`, [c]);
    expect(await text()).toEqual(original);
    expect((await restore(c, snap.data!.id!)).response.status).toBe(200);
    expect((await knex('catalog_items').where('catalog_id', c).first('data')).data.on_sale).toBe(false);
    expect(await text()).toEqual(original);
    await knex.raw(`UPDATE catalog_items SET data = data || '{"title": "felt scarf"}' WHERE catalog_id = ?`, [c]);
    expect((await text()).search_text).toBe('t1 felt scarf');
  });

  it('deleting a snapshot or its catalog deletes its item copies', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(c, { items: [{ sku: 'A' }, { sku: 'B' }] });
    const s1 = (await takeSnapshot(c)).data!.id!;
    const s2 = (await takeSnapshot(c)).data!.id!;
    const copies = async (id: string) => Number((await testKnex()('catalog_snapshot_items').where('snapshot_id', id).count({ n: '*' }))[0].n);
    expect(await copies(s1)).toBe(2);
    await testKnex()('catalog_snapshots').where('id', s1).delete();
    expect(await copies(s1)).toBe(0);
    expect(await copies(s2)).toBe(2);
    await testKnex()('catalogs').where('id', c).delete();
    expect(await copies(s2)).toBe(0);
  });

  it('refuses foreign, unknown and malformed input; nothing changes', async () => {
    const c = await createTestCatalog(a.organizationId);
    await bulk(c, { items: [{ sku: 'A' }] });
    const foreignCatalog = await createTestCatalog(b.organizationId);
    const foreignSnap = (await takeSnapshot(foreignCatalog, { reason: 'theirs' }, typedClient(server, b.auth))).data!.id!;
    const before = await catalogState(c);
    const count = async () => Number((await testKnex()('catalog_snapshots').count({ n: '*' }))[0].n);
    const snapshotsBefore = await count();
    expect((await takeSnapshot(foreignCatalog)).response.status).toBe(403);
    expect((await api.GET('/api/public/catalogs/{catalog_id}/snapshots', cat(foreignCatalog))).response.status).toBe(403);
    expect((await restore(c, foreignSnap)).response.status).toBe(403);
    expect((await restore(foreignCatalog, foreignSnap)).response.status).toBe(403);
    expect((await restore(c, newId())).response.status).toBe(404);
    expect((await takeSnapshot(newId())).response.status).toBe(404);
    expect((await takeSnapshot(c, { reason: 'x'.repeat(2001) })).response.status).toBe(422);
    expect((await api.GET('/api/public/catalogs/{catalog_id}/snapshots', { params: { path: { catalog_id: c }, query: { limit: 101 } } })).response.status).toBe(
      422,
    );
    // A reason of the wrong type, malformed JSON and a snapshot_type outside the enum: the client's types refuse them.
    expect((await request(server).post(url(c, '/snapshots')).set(a.auth).send({ reason: 5 })).status).toBe(422);
    expect((await request(server).post(url(c, '/snapshots')).set(a.auth).set('Content-Type', 'application/json').send('{"reason":')).status).toBe(422);
    expect((await request(server).get(url(c, '/snapshots?snapshot_type=daily')).set(a.auth)).status).toBe(422);
    expect(await count()).toBe(snapshotsBefore);
    expect(await catalogState(c)).toEqual(before);
  });
});
