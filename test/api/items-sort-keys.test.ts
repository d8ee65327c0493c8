import type { Server } from 'node:http';
import type { Knex } from 'knex';
import type { CatalogClient } from '@catalog-enrichment/client';
import type { Scope } from '../../src/services/access/scope';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { filterSql, orderSql, type SortOrder } from '../../src/services/catalog/items/items-sql';
import { buildSortKeys, ensureSortKeys, SORT_KEYS_MAX_FIELDS, SORT_KEYS_MIN_ITEMS } from '../../src/services/catalog/items/sort-keys';
import { walkSortKeys } from '../../src/services/catalog/items/sorted-walk';
import { createSnapshot, restoreSnapshot } from '../../src/services/catalog/snapshots/snapshots';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient, ItemListPage, walkItemCursor } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

/**
 * Sort keys of data fields (docs/large-catalogs.md "Sorting by a data field"): the triggers keep
 * one key per item of a recorded field through every write, the build copies the keys of the
 * items written before, and a list sorted by the field walks the keys and answers exactly the
 * plain SQL sort (numbers numerically, strings by the collation, nulls and missing values last,
 * ties by id), with and without search, both directions, by offset and by cursor, after updates,
 * deletes and a snapshot restore. The totals of lists without search come from the completeness
 * counters and stay exact through the same writes.
 */

let server: Server;
let api: CatalogClient;
let knex: Knex;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let scope: Scope;
let catalogId: string;
/** Statements the app ran (knex `query` events), to see that a list walked the keys. */
const statements: string[] = [];
const onQuery = (q: { sql: string }) => statements.push(q.sql);

/** The `price` of item i: numbers (negative, decimal, large), strings (digits, cases, accents, blank), booleans, JSON null, missing, a small array and object. */
function price(i: number): unknown {
  const kinds: unknown[] = [
    i * 1.5,
    -i,
    String(i % 17),
    ['apple', 'Apple', 'banana', 'Ångström', 'zebra', '', 'Éclair', 'apple pie'][i % 8],
    null,
    undefined,
    i % 3 === 0,
    100000000000 + i,
    9,
    10,
    [i % 2],
    { a: i % 2 },
  ];
  return kinds[i % kinds.length];
}

beforeAll(async () => {
  knex = testKnex();
  server = await listenTestApp();
  org = await createTestOrg('sort keys org');
  scope = { organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } };
  catalogId = await createTestCatalog(org.organizationId);
  api = typedClient(server, org.auth);
  const items = Array.from({ length: 240 }, (_, i) => {
    const p = price(i);
    return { sku: `s-${String(i).padStart(3, '0')}`, title: i % 4 === 0 ? `red boot ${i}` : `blue shoe ${i}`, ...(p === undefined ? {} : { price: p }) };
  });
  // Half written before the field is recorded (the build copies them), half after (the triggers write them).
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at, updated_at)
     SELECT gen_random_uuid(), ?, 'product', x.d ->> 'sku', x.d, now() + x.n * interval '1 microsecond', now()
     FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS x(d, n)`,
    [catalogId, JSON.stringify(items.slice(0, 120))],
  );
  await knex('catalog_sort_fields').insert({ catalog_id: catalogId, field: 'price' });
  const { data } = await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', {
    params: { path: { catalog_id: catalogId } },
    body: { items: items.slice(120) },
  });
  expect(data).toMatchObject({ items_created: 120 });
  await knex('catalogs').where('id', catalogId).update({ item_count: 240 });
  expect(await buildSortKeys(knex, catalogId)).toEqual([{ field: 'price', items: 240, build_ms: expect.any(Number) }]);
  knex.on('query', onQuery);
});

afterAll(async () => {
  knex.off('query', onQuery);
  await closeServer(server);
  await closeTestKnex();
});

/** The ids of the plain SQL sort (items-sql orderSql over the items, no keys). */
async function plainOrder(order: SortOrder, search?: string): Promise<string[]> {
  const where = filterSql(catalogId, { search });
  const o = orderSql('price', order, 'created_at');
  const { rows } = await knex.raw(`SELECT id FROM catalog_items WHERE ${where.sql} ORDER BY ${o.sql}`, [...where.bindings, ...o.bindings]);
  return rows.map((r: { id: string }) => r.id);
}

/** Every key row of the catalog's `price` equals its item's key, one per item. */
async function expectKeysExact(): Promise<void> {
  const { rows } = await knex.raw(
    `SELECT count(*)::int AS n FROM (
       (SELECT item_id, k, oversize FROM catalog_sort_keys WHERE catalog_id = ? AND field = 'price'
        EXCEPT ALL SELECT id, (catalog_sort_key(data -> 'price')).* FROM catalog_items WHERE catalog_id = ?)
       UNION ALL
       (SELECT id, (catalog_sort_key(data -> 'price')).* FROM catalog_items WHERE catalog_id = ?
        EXCEPT ALL SELECT item_id, k, oversize FROM catalog_sort_keys WHERE catalog_id = ? AND field = 'price')) d`,
    [catalogId, catalogId, catalogId, catalogId],
  );
  expect(rows[0].n).toBe(0);
}

async function page(query: Record<string, string | number>): Promise<ItemListPage> {
  const { data, response } = await api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: catalogId }, query } });
  expect(response.status).toBe(200);
  return data as ItemListPage;
}

const walkCursor = (query: Record<string, string | number>, limit: number) => walkItemCursor(page, query, limit);

/** The list's pages (offset and cursor, both directions, with and without search) against the plain sort; the keys were walked. */
async function expectListsExact(): Promise<void> {
  for (const order of ['asc', 'desc'] as const) {
    for (const search of [undefined, 'shoe']) {
      const expected = await plainOrder(order, search);
      const q = { sort: `price:${order}`, ...(search ? { search } : {}) };
      statements.length = 0;
      const first = await page({ ...q, limit: 7 });
      expect(statements.some((s) => s.includes('LEFT JOIN catalog_items ci'))).toBe(true); // walked
      expect(first.items.map((i) => i.id)).toEqual(expected.slice(0, 7));
      expect(first.total).toBe(expected.length);
      expect((await page({ ...q, limit: 7, offset: 21 })).items.map((i) => i.id)).toEqual(expected.slice(21, 28));
      const walked = await walkCursor(q, 9);
      expect(walked).toEqual(expected);
      expect(new Set(walked).size).toBe(expected.length);
    }
  }
}

it('keeps one key per item and lists in the plain SQL order (mixed numbers, strings, nulls), by offset and by cursor', async () => {
  await expectKeysExact();
  await expectListsExact();
  // The service walk itself, without the API: the same order as the SQL sort.
  const ids = await knex.transaction(
    (trx) => walkSortKeys(trx, { catalogId, field: 'price', order: 'asc', where: filterSql(catalogId, {}), need: 500, share: 1, budget: 10_000 }),
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  expect(ids).toEqual(await plainOrder('asc'));
}, 120_000);

it('stays exact after updates, deletes and moves through the API and SQL', async () => {
  const ids = await plainOrder('asc');
  // Through the API: a new price, a price removed, a price set to JSON null, a string price.
  for (const [k, body] of [
    [0, { price: 12.25 }],
    [1, { price: null }],
    [2, { price: 'mango' }],
    [3, { title: 'only the title' }],
  ] as const) {
    const { response } = await api.PUT('/api/public/catalogs/{catalog_id}/items/{item_id}', {
      params: { path: { catalog_id: catalogId, item_id: ids[k] } },
      body: { data: body },
    });
    expect(response.status).toBe(200);
  }
  for (const id of ids.slice(10, 14)) {
    const { response } = await api.DELETE('/api/public/catalogs/{catalog_id}/items/{item_id}', { params: { path: { catalog_id: catalogId, item_id: id } } });
    expect(response.status).toBe(200);
  }
  // In SQL: many rows in one statement, a key removed, an item moved to another catalog and back.
  await knex.raw(`UPDATE catalog_items SET data = data || jsonb_build_object('price', (random() * 50)::int) WHERE catalog_id = ? AND business_key LIKE '%3'`, [
    catalogId,
  ]);
  await knex.raw(`UPDATE catalog_items SET data = data - 'price' WHERE catalog_id = ? AND business_key LIKE '%7'`, [catalogId]);
  const other = await createTestCatalog(org.organizationId);
  await knex('catalog_sort_fields').insert({ catalog_id: other, field: 'price', ready: true });
  await knex('catalog_items').where({ catalog_id: catalogId, business_key: 's-005' }).update({ catalog_id: other });
  expect(await knex('catalog_sort_keys').where({ catalog_id: catalogId, field: 'price' }).count({ n: '*' })).toEqual([
    { n: String((await plainOrder('asc')).length) },
  ]);
  expect(await knex('catalog_sort_keys').where({ catalog_id: other }).count({ n: '*' })).toEqual([{ n: '1' }]);
  await knex('catalog_items').where({ catalog_id: other, business_key: 's-005' }).update({ catalog_id: catalogId });
  await knex('catalog_items').where({ catalog_id: catalogId, business_key: 's-006' }).delete();
  // A rolled-back write leaves the keys as they were.
  await expect(
    knex.transaction(async (trx) => {
      await trx.raw(`UPDATE catalog_items SET data = data || '{"price": 1}' WHERE catalog_id = ?`, [catalogId]);
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  await expectKeysExact();
  await expectListsExact();
  await knex('catalogs').where('id', other).delete();
  expect(await knex('catalog_sort_keys').where({ catalog_id: other }).count({ n: '*' })).toEqual([{ n: '0' }]);
}, 120_000);

it('stays exact through a snapshot restore', async () => {
  const caches = { catalog: createCatalogCaches() };
  const snapshot = await createSnapshot(knex, scope, catalogId, 'sort keys');
  await knex.raw(
    `UPDATE catalog_items SET data = data || jsonb_build_object('price', 'changed ' || business_key) WHERE catalog_id = ? AND business_key LIKE '%1'`,
    [catalogId],
  );
  await knex.raw(`DELETE FROM catalog_items WHERE catalog_id = ? AND business_key LIKE '%9'`, [catalogId]);
  await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', {
    params: { path: { catalog_id: catalogId } },
    body: { items: [{ sku: 'new-1', price: 3 }] },
  });
  await expectKeysExact();
  await restoreSnapshot({ knex, caches, jobRunner: { startSearchIndexBuild: async () => true } }, scope, catalogId, snapshot.id);
  await expectKeysExact();
  await expectListsExact();
}, 120_000);

it('keeps the keys when one statement writes a catalog that keeps no field and one that does, and writes none for the former', async () => {
  // The triggers return early for statements whose catalogs keep no field (migration
  // 20261206090000): a statement that also writes this catalog must not be taken for one.
  const plain = await createTestCatalog(org.organizationId);
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, business_key, data)
     SELECT gen_random_uuid(), CASE WHEN g % 2 = 0 THEN ?::uuid ELSE ?::uuid END, 'mixed-' || g, jsonb_build_object('sku', 'mixed-' || g, 'price', g)
     FROM generate_series(1, 40) AS g`,
    [plain, catalogId],
  );
  await expectKeysExact();
  await knex.raw(
    `UPDATE catalog_items SET data = data || jsonb_build_object('price', -length(business_key)) WHERE catalog_id IN (?, ?) AND business_key LIKE 'mixed-%'`,
    [plain, catalogId],
  );
  await expectKeysExact();
  await knex.raw(`DELETE FROM catalog_items WHERE catalog_id IN (?, ?) AND business_key LIKE 'mixed-%'`, [plain, catalogId]);
  await expectKeysExact();
  // The catalog that keeps no field: its own writes leave no key.
  await knex.raw(`INSERT INTO catalog_items (id, catalog_id, business_key, data) VALUES (gen_random_uuid(), ?, 'alone', '{"sku": "alone", "price": 1}')`, [
    plain,
  ]);
  await knex.raw(`UPDATE catalog_items SET data = data || '{"price": 2}' WHERE catalog_id = ?`, [plain]);
  expect(await knex('catalog_sort_keys').where({ catalog_id: plain }).count({ n: '*' })).toEqual([{ n: '0' }]);
  await expectListsExact();
  await knex('catalogs').where('id', plain).delete();
}, 60_000);

it('sorts the plain way, still exact, while a value is too large for a key', async () => {
  const id = (await plainOrder('asc'))[5];
  await knex('catalog_items')
    .where('id', id)
    .update({ data: knex.raw(`data || jsonb_build_object('price', repeat('x', 2000))`) });
  await expectKeysExact();
  const expected = await plainOrder('desc');
  statements.length = 0;
  expect((await page({ sort: 'price:desc', limit: 7 })).items.map((i) => i.id)).toEqual(expected.slice(0, 7));
  expect(statements.some((s) => s.includes('LEFT JOIN catalog_items ci'))).toBe(false); // no walk
  expect(statements.some((s) => s.includes('FROM catalog_sort_keys s WHERE'))).toBe(true); // it looked
  await knex('catalog_items')
    .where('id', id)
    .update({ data: knex.raw(`data || '{"price": 4}'`) });
}, 60_000);

it('answers the total of a list without search from the completeness counters, folding them when many', async () => {
  const expected = (await plainOrder('asc')).length;
  // 600 delta rows that sum to nothing, as 600 small writes would leave them.
  await knex.raw(
    `INSERT INTO catalog_fill_counts (catalog_id, top_level, category, filled, n)
     SELECT ?, true, 'x', '{}', CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END FROM generate_series(1, 600) AS g`,
    [catalogId],
  );
  await knex.raw('UPDATE catalogs SET items_rev = items_rev + 1 WHERE id = ?', [catalogId]); // as the items' trigger does
  expect((await page({ limit: 1 })).total).toBe(expected);
  expect(Number((await knex('catalog_fill_counts').where('catalog_id', catalogId).count({ n: '*' }))[0].n)).toBeLessThan(50);
  expect((await page({ limit: 1, sort: 'price:desc' })).total).toBe(expected);
});

it('walks the keys of a product-grouped catalog: products only, matched also through their variants', async () => {
  const grouped = await createTestCatalog(org.organizationId, { product_enabled: true, product_id_field: 'product_id' });
  await knex.raw(
    `WITH p AS (INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at)
                SELECT gen_random_uuid(), ?, 'product', 'p-' || g,
                       jsonb_build_object('product_id', 'p-' || g, 'title', CASE WHEN g % 3 = 0 THEN 'wool coat' ELSE 'cotton coat' END)
                       || CASE WHEN g % 4 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('price', (g % 9) * 2.5) END,
                       now() + g * interval '1 microsecond'
                FROM generate_series(1, 80) AS g RETURNING id, business_key)
     INSERT INTO catalog_items (id, catalog_id, entity_type, parent_id, business_key, data)
     SELECT gen_random_uuid(), ?, 'variant', p.id, p.business_key || '-v', jsonb_build_object('sku', p.business_key || '-v', 'product_id', p.business_key,
            'title', CASE WHEN right(p.business_key, 1) = '5' THEN 'wool lining' ELSE 'plain' END, 'price', 1)
     FROM p`,
    [grouped, grouped],
  );
  await knex('catalogs').where('id', grouped).update({ item_count: 160 });
  await knex('catalog_sort_fields').insert({ catalog_id: grouped, field: 'price' });
  await buildSortKeys(knex, grouped);
  for (const search of [undefined, 'wool']) {
    const where = filterSql(grouped, { search, top_level: true });
    const o = orderSql('price', 'desc', 'created_at');
    const expected = (await knex.raw(`SELECT id FROM catalog_items WHERE ${where.sql} ORDER BY ${o.sql}`, [...where.bindings, ...o.bindings])).rows.map(
      (r: { id: string }) => r.id,
    );
    const ids: string[] = [];
    statements.length = 0;
    // Pages small enough that the walk is chosen (`wool` matches about a fifth of the rows).
    for (let cursor: string | null = null, guard = 0; guard < 50; guard++) {
      const { data } = await api.GET('/api/public/catalogs/{catalog_id}/items', {
        params: {
          path: { catalog_id: grouped },
          query: { sort: 'price:desc', limit: search ? 2 : 6, ...(search ? { search } : {}), ...(cursor ? { cursor } : {}) },
        },
      });
      const p = data as ItemListPage;
      expect(p.total).toBe(expected.length);
      ids.push(...p.items.map((i) => i.id));
      cursor = p.next_cursor;
      if (!cursor) break;
    }
    expect(statements.some((s) => s.includes('LEFT JOIN catalog_items ci'))).toBe(true);
    expect(ids).toEqual(expected);
  }
  await knex('catalogs').where('id', grouped).delete();
}, 60_000);

it('records the field of a large catalog and asks the field index workflow, at most a few fields per catalog', async () => {
  const asked: string[] = [];
  const r = {
    jobRunner: { startGridIndexes: async (c: { id: string }) => void asked.push(c.id) },
    caches: { gridIndexRequests: createCatalogCaches().gridIndexRequests },
  };
  const large = await createTestCatalog(org.organizationId);
  const catalog = { id: large, organization_id: org.organizationId, item_count: SORT_KEYS_MIN_ITEMS };
  expect(await ensureSortKeys(knex, r, { ...catalog, item_count: SORT_KEYS_MIN_ITEMS - 1 }, 'price')).toBe(false);
  expect(await knex('catalog_sort_fields').where('catalog_id', large)).toEqual([]);
  expect(await ensureSortKeys(knex, r, catalog, 'price')).toBe(false);
  await new Promise((resolve) => setImmediate(resolve));
  expect(asked).toEqual([large]);
  expect(await knex('catalog_sort_fields').where('catalog_id', large).pluck('field')).toEqual(['price']);
  // Asked again only after the throttle; the build makes the field ready.
  expect(await ensureSortKeys(knex, r, catalog, 'price')).toBe(false);
  expect(asked).toEqual([large]);
  expect(await buildSortKeys(knex, large)).toEqual([{ field: 'price', items: 0, build_ms: expect.any(Number) }]);
  expect(await ensureSortKeys(knex, r, catalog, 'price')).toBe(true);
  for (let f = 1; f < SORT_KEYS_MAX_FIELDS + 3; f++) await ensureSortKeys(knex, r, catalog, `field_${f}`);
  expect(await knex('catalog_sort_fields').where('catalog_id', large).count({ n: '*' })).toEqual([{ n: String(SORT_KEYS_MAX_FIELDS) }]);
  await knex('catalogs').where('id', large).delete();
});
