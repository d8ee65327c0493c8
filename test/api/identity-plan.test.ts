import type { Knex } from 'knex';
import { Catalog } from '../../src/models/catalog';
import { createOrganizationWithKey } from '../../src/services/access/auth';
import { type Candidate, loadExisting } from '../../src/services/catalog/items/items-write-plan';
import { createTestCatalog } from '../helpers/catalogs';
import { createOwnDatabase, type OwnDatabase, rowsReadInTransaction } from '../helpers/own-database';

/**
 * The identity look-up of a batch write (docs/large-catalogs.md "Identity look-ups of a growing
 * catalog") must read the rows its batch names, not the catalog, whatever the planner believes
 * about the catalog's size. Seen in the bulk bench: a catalog created after the table was last
 * analyzed is estimated at 1 row, and every batch of 1,000 items walked the whole catalog through
 * `(catalog_id, id)` filtering on the business key (15–23 ms at 20,000 items, growing with each
 * batch, so an import of n items cost O(n²)). Runs in a database of its own, so the items
 * table's statistics are this suite's alone.
 */

let own: OwnDatabase;
let knex: Knex;
let organizationId: string;
/** Items of the catalog the look-ups run in; a batch names `BATCH` business keys. */
const ITEMS = 6000;
const BATCH = 500;

beforeAll(async () => {
  own = await createOwnDatabase('identity_plan');
  knex = own.knex;
  organizationId = (await createOrganizationWithKey(knex, 'identity plan')).organizationId;
}, 120_000);

afterAll(async () => {
  await own?.drop();
}, 120_000);

/** A catalog of ITEMS items `S-1` … `S-6000` inserted in one statement. */
async function seededCatalog(): Promise<string> {
  const catalogId = await createTestCatalog(organizationId, { knex });
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data)
     SELECT gen_random_uuid(), ?, 'product', 'S-' || g, jsonb_build_object('sku', 'S-' || g, 'title', 'item ' || g)
     FROM generate_series(1, ?) AS g`,
    [catalogId, ITEMS],
  );
  return catalogId;
}

/** Rows of `catalog_items` the transaction read so far. */
const itemRowsRead = (trx: Knex.Transaction): Promise<number> => rowsReadInTransaction(trx, 'catalog_items');

/** The planner's row estimate for the catalog's rows. */
async function estimatedRows(catalogId: string): Promise<number> {
  const { rows } = await knex.raw('EXPLAIN (FORMAT JSON) SELECT * FROM catalog_items WHERE catalog_id = ?', [catalogId]);
  return rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
}

/** Candidates naming the business keys `S-<from>` … for BATCH items. */
const batch = (from: number): Candidate[] =>
  Array.from({ length: BATCH }, (_, i) => ({ index: i, key: `S-${from + i}`, pid: null, data: { sku: `S-${from + i}` } }));

/** Runs the look-up of `candidates` in catalog `catalogId`: the rows found and the item rows it read. */
async function lookUp(catalogId: string, candidates: Candidate[]): Promise<{ found: number; read: number }> {
  return knex.transaction(async (trx) => {
    const catalog = await Catalog.query(trx).findById(catalogId).throwIfNotFound();
    const before = await itemRowsRead(trx);
    const existing = await loadExisting(trx, catalog, candidates, null);
    const read = (await itemRowsRead(trx)) - before;
    return { found: existing.byKey.size, read };
  });
}

test.each([
  ['the items table never analyzed', false],
  ['statistics from before the catalog existed', true],
])('with %s, a batch reads only the rows it names', async (_, analyzeFirst) => {
  if (analyzeFirst) {
    // Another catalog's rows are all the statistics know: the new catalog is estimated at 1 row.
    const other = await seededCatalog();
    await knex.raw('ANALYZE catalog_items');
    expect(await estimatedRows(other)).toBeGreaterThan(ITEMS / 2);
  }
  const catalogId = await seededCatalog();
  expect(await estimatedRows(catalogId)).toBeLessThan(ITEMS / 10);
  // Keys none of the catalog's rows carry (a batch of creates), then keys every one of them matches.
  expect(await lookUp(catalogId, batch(ITEMS + 1))).toEqual({ found: 0, read: 0 });
  expect(await lookUp(catalogId, batch(1))).toEqual({ found: BATCH, read: BATCH });
  // Half and half, with a database id too.
  const { id } = await knex('catalog_items').where({ catalog_id: catalogId, business_key: 'S-42' }).first('id');
  const mixed = [...batch(ITEMS - BATCH / 2 + 1), { index: BATCH, explicitId: id, key: null, pid: null, data: {} }];
  expect(await lookUp(catalogId, mixed)).toEqual({ found: BATCH / 2 + 1, read: BATCH / 2 + 1 });
  // Database ids alone (the look-up of staged changes and of enrichment staging).
  const ids: string[] = (await knex('catalog_items').where({ catalog_id: catalogId }).orderBy('business_key').limit(BATCH).select('id')).map((r) => r.id);
  const byIds = ids.map((explicitId, index) => ({ index, explicitId, key: null, pid: null, data: {} }));
  expect(await lookUp(catalogId, byIds)).toEqual({ found: BATCH, read: BATCH });
});

// Three reads guarded here: the products' look-up walked the catalog (catalog estimated at 1 row),
// their lock read the whole table sequentially (500 ids against a table the statistics saw small),
// and the search query's prefixes (`1:*`) fetched every product whose number starts like a wanted one.
test('a product-grouped batch finds its products by business id reading only the rows it names', async () => {
  const other = await seededCatalog();
  await knex.raw('ANALYZE catalog_items');
  expect(await estimatedRows(other)).toBeGreaterThan(ITEMS / 2);
  const catalogId = await createTestCatalog(organizationId, { knex, product_id_field: 'product_id' });
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, data)
     SELECT gen_random_uuid(), ?, 'product', jsonb_build_object('product_id', 'P-' || g, 'title', 'product ' || g)
     FROM generate_series(1, ?) AS g`,
    [catalogId, ITEMS],
  );
  expect(await estimatedRows(catalogId)).toBeLessThan(ITEMS / 10);
  const products = (from: number): Candidate[] =>
    Array.from({ length: BATCH }, (_, i) => ({ index: i, key: null, pid: `P-${from + i}`, data: { product_id: `P-${from + i}` } }));
  for (const [from, found] of [
    [ITEMS + 1, 0],
    [1, BATCH],
  ]) {
    const { products: byPid, read } = await knex.transaction(async (trx) => {
      const catalog = await Catalog.query(trx).findById(catalogId).throwIfNotFound();
      const before = await itemRowsRead(trx);
      const existing = await loadExisting(trx, catalog, products(from), 'product_id');
      return { products: existing.products, read: (await itemRowsRead(trx)) - before };
    });
    expect(byPid.size).toBe(found);
    // Each product found is read twice: found by its words, then locked and read again.
    expect(read).toBeLessThanOrEqual(2 * found);
  }
});
