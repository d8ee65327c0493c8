import type { Server } from 'node:http';
import type { Knex } from 'knex';
import type { CatalogClient } from '@catalog-enrichment/client';
import type { Scope } from '../../src/services/access/scope';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { lockCatalogExclusive, lockCatalogShared, MAX_PRODUCT_LOCKS } from '../../src/services/catalog/catalog-locks';
import { writeItems } from '../../src/services/catalog/items/items-write';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

/**
 * Concurrent item writes into one catalog (src/services/catalog/catalog-locks.ts; docs/architecture.md
 * "Catalog write locks"): writers hold the catalog lock shared, lock product business ids and
 * stored rows, and run again when a concurrent writer created one of their business keys first,
 * so requests overlap and still end as if run one after the other:
 * one item per key, one version per write of an item (no write lost), counters equal to a
 * recount, no deadlock whatever the order of the keys. Real PostgreSQL, requests through the API.
 */

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let api: CatalogClient;

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('concurrent writes');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** `POST …/items/bulk` of `items` into `catalog`, with an Idempotency-Key when given. */
const bulk = (catalog: string, items: Array<Record<string, unknown>>, key?: string) =>
  api.POST('/api/public/catalogs/{catalog_id}/items/bulk', {
    params: { path: { catalog_id: catalog } },
    body: { items },
    ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
  });

/** `sku-000` … for `from`…`to` inclusive, in that direction. */
function skus(from: number, to: number): string[] {
  const step = from <= to ? 1 : -1;
  return Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => `sku-${String(from + i * step).padStart(4, '0')}`);
}

/** The catalog's counters and a recount from its rows (fill groups as sorted `category|filled|n` strings). */
async function countersAndRecount(catalog: string) {
  const knex = testKnex();
  const c = await knex('catalogs').where('id', catalog).first('item_count', knex.raw('items_rev::int AS rev'));
  const rows = Number((await knex('catalog_items').where('catalog_id', catalog).count({ n: '*' }))[0].n);
  const fills = async (sql: string) => ((await knex.raw(sql, [catalog])).rows as Array<{ g: string }>).map((r) => r.g).sort();
  const counted = await fills(
    `SELECT top_level || '|' || category || '|' || array_to_string(filled, ',') || '|' || sum(n) AS g FROM catalog_fill_counts
     WHERE catalog_id = ? GROUP BY top_level, category, filled HAVING sum(n) <> 0`,
  );
  const recount = await fills(
    `SELECT t || '|' || c || '|' || array_to_string(f, ',') || '|' || count(*) AS g FROM (
       SELECT parent_id IS NULL AS t, coalesce(data ->> 'category_id', '') AS c, catalog_item_filled_keys(data) AS f
       FROM catalog_items WHERE catalog_id = ?) x GROUP BY t, c, f`,
  );
  return { item_count: c.item_count as number, rev: c.rev as number, rows, counted, recount };
}

it('four requests creating the same keys at once end with one item per key, every write counted once', async () => {
  const catalog = await createTestCatalog(org.organizationId);
  const keys = skus(0, 59);
  const orders = [
    keys,
    [...keys].reverse(),
    [...keys.slice(30), ...keys.slice(0, 30)],
    keys.filter((_, i) => i % 2 === 0).concat(keys.filter((_, i) => i % 2 === 1)),
  ];
  // Each request sets a field of its own: a lost update would lose that field on some item.
  const answers = await Promise.all(
    orders.map((order, r) =>
      bulk(
        catalog,
        order.map((sku) => ({ sku, title: `t ${sku}`, [`by_${r}`]: true })),
      ),
    ),
  );
  for (const a of answers) expect(a.response.status).toBe(200);
  expect(answers.reduce((n, a) => n + (a.data?.items_created ?? 0), 0)).toBe(keys.length);
  expect(answers.reduce((n, a) => n + (a.data?.items_updated ?? 0), 0)).toBe(keys.length * 3);

  const rows = await testKnex()('catalog_items').where('catalog_id', catalog).select('business_key', 'data', 'current_version');
  expect(rows.map((r) => r.business_key).sort()).toEqual([...keys].sort());
  for (const row of rows) {
    expect(row.current_version).toBe(4);
    expect(row.data).toMatchObject({ by_0: true, by_1: true, by_2: true, by_3: true });
  }
  const c = await countersAndRecount(catalog);
  expect(c.item_count).toBe(keys.length);
  expect(c.rows).toBe(keys.length);
  expect(c.counted).toEqual(c.recount);
  // One change record per item written (the feeds' delta log); one items_rev step per request
  // (the first only inserts, the others only update).
  const changes = Number((await testKnex()('catalog_item_changes').where('catalog_id', catalog).count({ n: '*' }))[0].n);
  expect(changes).toBe(keys.length * 4);
  expect(c.rev).toBe(4);
});

it('overlapping key ranges in opposite orders, several rounds: no deadlock, versions consecutive, counters exact', async () => {
  const catalog = await createTestCatalog(org.organizationId);
  const ranges = [skus(0, 799), skus(799, 0), skus(400, 1199), skus(1199, 400)];
  const writes = new Map<string, number>();
  const rounds = 2;
  for (let round = 0; round < rounds; round++) {
    const answers = await Promise.all(
      ranges.map((range, r) =>
        bulk(
          catalog,
          range.map((sku) => ({ sku, price: round * 10 + r, category_id: r % 2 === 0 ? 'even' : 'odd' })),
        ),
      ),
    );
    for (const a of answers) expect({ status: a.response.status, failed: a.data?.items_failed }).toEqual({ status: 200, failed: 0 });
    for (const range of ranges) for (const sku of range) writes.set(sku, (writes.get(sku) ?? 0) + 1);
  }
  const rows = await testKnex()('catalog_items').where('catalog_id', catalog).select('business_key', 'current_version');
  expect(rows).toHaveLength(writes.size);
  // Every write of an item was its own version: versions 1…n with n the writes of that key.
  for (const row of rows) expect(row.current_version).toBe(writes.get(row.business_key));
  const c = await countersAndRecount(catalog);
  expect(c.item_count).toBe(writes.size);
  expect(c.counted).toEqual(c.recount);
  // Each request's statement steps items_rev once for its inserts and once for its updates.
  expect(c.rev).toBeGreaterThanOrEqual(rounds * ranges.length);
  expect(c.rev).toBeLessThanOrEqual(2 * rounds * ranges.length);
});

it('writes of one item by business key, by __catalog_item_id and by PUT at once: each write is a version, none lost', async () => {
  const catalog = await createTestCatalog(org.organizationId);
  const keys = skus(0, 19);
  const created = await bulk(
    catalog,
    keys.map((sku) => ({ sku, title: 'v1' })),
  );
  expect(created.data?.items_created).toBe(20);
  const ids = (await testKnex()('catalog_items').where('catalog_id', catalog).select('id', 'business_key')) as Array<{ id: string; business_key: string }>;
  const answers = await Promise.all([
    bulk(
      catalog,
      keys.map((sku) => ({ sku, by_key: true })),
    ),
    bulk(
      catalog,
      [...ids].reverse().map((r) => ({ __catalog_item_id: r.id, by_id: true })),
    ),
    ...ids.map((r) =>
      api.PUT('/api/public/catalogs/{catalog_id}/items/{item_id}', { params: { path: { catalog_id: catalog, item_id: r.id } }, body: { by_put: true } }),
    ),
  ]);
  for (const a of answers) expect(a.response.status).toBe(200);
  const rows = await testKnex()('catalog_items').where('catalog_id', catalog).select('data', 'current_version');
  expect(rows).toHaveLength(20);
  for (const row of rows) {
    expect(row.current_version).toBe(4);
    expect(row.data).toMatchObject({ title: 'v1', by_key: true, by_id: true, by_put: true });
  }
});

it('variants naming the same new product at once create that product once', async () => {
  const catalog = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true });
  const pids = ['P1', 'P2', 'P3', 'P4', 'P5'];
  const answers = await Promise.all(
    [0, 1, 2, 3].map((r) =>
      bulk(
        catalog,
        (r % 2 === 0 ? pids : [...pids].reverse()).map((product_id) => ({ sku: `${product_id}-v${r}`, product_id })),
      ),
    ),
  );
  for (const a of answers) expect({ status: a.response.status, failed: a.data?.items_failed }).toEqual({ status: 200, failed: 0 });
  const products = await testKnex()('catalog_items').where({ catalog_id: catalog, entity_type: 'product' }).select('id', 'data');
  expect(products.map((p) => p.data.product_id).sort()).toEqual(pids);
  const variants = await testKnex()('catalog_items').where({ catalog_id: catalog, entity_type: 'variant' }).select('parent_id');
  expect(variants).toHaveLength(20);
  const productIds = new Set(products.map((p) => p.id));
  for (const v of variants) expect(productIds.has(v.parent_id)).toBe(true);
  const c = await countersAndRecount(catalog);
  expect(c.item_count).toBe(25);
  expect(c.counted).toEqual(c.recount);
});

it('a writer waits only for the writer of the same item; a catalog-wide change waits for both', async () => {
  const catalog = await createTestCatalog(org.organizationId);
  await bulk(catalog, [
    { sku: 'held-1', title: 'v1' },
    { sku: 'free-1', title: 'v1' },
  ]);
  const knex = testKnex();
  // A transaction holding what a writer of held-1 holds before its write: the catalog lock shared, the row.
  const held = await knex.transaction();
  try {
    expect(await lockCatalogShared(held, catalog)).toBe('shared');
    await held.raw("SELECT id FROM catalog_items WHERE catalog_id = ? AND business_key = 'held-1' FOR NO KEY UPDATE", [catalog]);
    const other = await bulk(catalog, [{ sku: 'free-1', title: 'not waiting' }]);
    expect(other.response.status).toBe(200);

    let sameDone = false;
    const same = bulk(catalog, [{ sku: 'held-1', title: 'waited' }]).then((a) => ((sameDone = true), a));
    let wideDone = false;
    const wide = knex.transaction(async (trx) => {
      await lockCatalogExclusive(trx, catalog);
      wideDone = true;
    });
    await new Promise((r) => setTimeout(r, 700));
    expect({ sameDone, wideDone }).toEqual({ sameDone: false, wideDone: false });
    await held.commit();
    expect((await same).response.status).toBe(200);
    await wide;
    expect(wideDone).toBe(true);
  } finally {
    if (!held.isCompleted()) await held.rollback();
  }
  const row = await knex('catalog_items').where({ catalog_id: catalog, business_key: 'held-1' }).first('data', 'current_version');
  expect(row).toEqual({ data: { sku: 'held-1', title: 'waited' }, current_version: 2 });
});

it('takes one advisory lock per product id up to the bound, none under the exclusive lock, the exclusive lock past the bound', async () => {
  const catalog = await createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true });
  const knex = testKnex();
  const caches = createCatalogCaches();
  const scope: Scope = { organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } };
  const variants = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ sku: `${tag}-${i}`, product_id: `${tag}-P${i}` }));
  /** Writes `items` in a transaction (after `before`) and returns the advisory locks it held at the end. */
  const advisoryLocksOf = (items: Array<Record<string, unknown>>, before?: (trx: Knex.Transaction) => Promise<unknown>) =>
    knex.transaction(async (trx) => {
      await before?.(trx);
      const c = await trx('catalogs').where('id', catalog).first();
      const result = await writeItems(trx, caches, scope, c, items);
      expect(result.items_failed).toBe(0);
      const { rows } = await trx.raw("SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()");
      return (rows as Array<{ mode: string }>).map((r) => r.mode);
    });
  const few = await advisoryLocksOf(variants(10, 'few'));
  expect(few.filter((m) => m === 'ShareLock')).toHaveLength(1);
  expect(few.filter((m) => m === 'ExclusiveLock')).toHaveLength(10);
  const many = await advisoryLocksOf(variants(MAX_PRODUCT_LOCKS + 1, 'many'));
  expect(many).toEqual(['ExclusiveLock']);
  const underExclusive = await advisoryLocksOf(variants(10, 'held'), (trx) => lockCatalogExclusive(trx, catalog));
  expect(underExclusive).toEqual(['ExclusiveLock']);
  const products = Number((await knex('catalog_items').where({ catalog_id: catalog, entity_type: 'product' }).count({ n: '*' }))[0].n);
  expect(products).toBe(10 + MAX_PRODUCT_LOCKS + 1 + 10);
});

it('a retried request with the same Idempotency-Key sent at once writes once', async () => {
  const catalog = await createTestCatalog(org.organizationId);
  const items = skus(0, 19).map((sku) => ({ sku, title: 'once' }));
  const [a, b] = await Promise.all([bulk(catalog, items, 'concurrent-bulk-1'), bulk(catalog, items, 'concurrent-bulk-1')]);
  // The second either replays the first answer or is told the first is still running (409).
  const statuses = [a.response.status, b.response.status].sort();
  expect([
    [200, 200],
    [200, 409],
  ]).toContainEqual(statuses);
  const rows = await testKnex()('catalog_items').where('catalog_id', catalog).select('current_version');
  expect(rows).toHaveLength(20);
  for (const r of rows) expect(r.current_version).toBe(1);
  expect((await countersAndRecount(catalog)).item_count).toBe(20);
});

it('requests that evolve the schema beside plain writers: all succeed, every new field in the schema', async () => {
  const catalog = await createTestCatalog(org.organizationId, { auto_evolve_schema: true });
  const answers = await Promise.all([
    bulk(catalog, [{ sku: 'e-1', colour: 'red' }]),
    bulk(catalog, [{ sku: 'e-2', title: 'plain' }]),
    bulk(catalog, [{ sku: 'e-3', weight: 2 }]),
    bulk(catalog, [{ sku: 'e-1', title: 'plain again' }]),
  ]);
  for (const a of answers) expect(a.response.status).toBe(200);
  const schema = await testKnex()('catalog_schemas')
    .where('catalog_id', catalog)
    .whereIn('version', testKnex()('catalogs').where('id', catalog).select('current_schema_version'))
    .first('schema_definition');
  expect(Object.keys(schema.schema_definition.properties)).toEqual(expect.arrayContaining(['colour', 'weight']));
  const e1 = await testKnex()('catalog_items').where({ catalog_id: catalog, business_key: 'e-1' }).first('data', 'current_version');
  expect(e1.current_version).toBe(2);
  expect(e1.data).toMatchObject({ colour: 'red', title: 'plain again' });
});
