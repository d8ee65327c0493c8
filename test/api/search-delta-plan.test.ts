import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { createOrganizationWithKey } from '../../src/services/access/auth';
import { filterSql } from '../../src/services/catalog/items/items-sql';
import { buildSearchIndex, countWithSearchIndex } from '../../src/services/catalog/search/search-count-index';
import { pendingWordMatches } from '../../src/services/catalog/search/search-words';
import { createTestCatalog } from '../helpers/catalogs';
import { createOwnDatabase, type OwnDatabase, rowsReadInTransaction } from '../helpers/own-database';

/**
 * The reads of the search count index's delta right after a large write, before anything analyzed
 * the delta table (docs/large-catalogs.md "Search right after churn"): a count must read only the
 * delta rows whose changed words (`diff`, GIN) touch its term, whatever the planner believes about
 * the table. Seen at 1,000,000 items right after an import of 100,000 items: the planner, with
 * statistics of the emptied table, took the primary key's index over the catalog's rows and read
 * all 100,000 of them for every count (80–130 ms each). Runs in a database of its own, so the
 * delta table's statistics are this suite's alone.
 */

let own: OwnDatabase;
let knex: Knex;
let catalogId: string;
/** Items of the catalog; the write below changes `CHANGED` of them. */
const ITEMS = 3000;
const CHANGED = 2500;

beforeAll(async () => {
  own = await createOwnDatabase('delta_plan');
  knex = own.knex;
  const org = await createOrganizationWithKey(knex, 'delta plan');
  catalogId = await createTestCatalog(org.organizationId, { knex });
  await knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data)
     SELECT gen_random_uuid(), ?, 'product', 'S-' || g,
            jsonb_build_object('sku', 'S-' || g, 'title', (ARRAY['olive', 'red', 'blue'])[g % 3 + 1] || ' ' || (ARRAY['boot', 'scarf'])[g % 2 + 1] || ' ' || g)
     FROM generate_series(1, ?) AS g`,
    [catalogId, ITEMS],
  );
  expect(await buildSearchIndex(knex, catalogId, { minDf: 50 })).toMatchObject({ items: ITEMS });
  // The state a settle leaves (the delta folded and vacuumed: an empty table, as analyzed), then a
  // large write whose changed words are none of the searched ones.
  await knex.raw('VACUUM ANALYZE catalog_search_delta');
  await knex.raw(
    `UPDATE catalog_items SET data = data || jsonb_build_object('note', 'imported ' || split_part(business_key, '-', 2))
     WHERE catalog_id = ? AND split_part(business_key, '-', 2)::int <= ?`,
    [catalogId, CHANGED],
  );
}, 120_000);

afterAll(async () => {
  await own?.drop();
}, 120_000);

/** Rows of `catalog_search_delta` the transaction read so far. */
const deltaRowsRead = (trx: Knex.Transaction): Promise<number> => rowsReadInTransaction(trx, 'catalog_search_delta');

test('the delta holds the write, and the planner was left with the emptied table’s statistics', async () => {
  expect(Number((await knex('catalog_search_delta').where('catalog_id', catalogId).count<{ n: string }[]>('* as n'))[0].n)).toBe(CHANGED);
  const { rows } = await knex.raw("SELECT reltuples FROM pg_class WHERE relname = 'catalog_search_delta'");
  expect(Number(rows[0].reltuples)).toBeLessThan(CHANGED / 10);
});

test.each(['olive boot', 'red', 'blue scarf 1'])('counting %p reads only the delta rows touching its words, and is exact', async (term) => {
  await knex.transaction(
    async (trx) => {
      const before = await deltaRowsRead(trx);
      const counted = await countWithSearchIndex(trx, catalogId, term);
      const read = (await deltaRowsRead(trx)) - before;
      const where = filterSql(catalogId, { search: term });
      const { rows } = await trx.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings);
      expect(counted).toMatchObject({ total: rows[0].n, path: 'index' });
      // No changed word is one of the term's (the write added `note` words only): nothing to read.
      expect(read).toBe(0);
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
});

test('the items whose pending words may match a term are looked up the same way', async () => {
  // The word index behind since the build: the delta rows after it are the changes it lacks.
  const { logged } = await knex('catalog_search_index').where('catalog_id', catalogId).first('logged');
  await knex('catalogs').where('id', catalogId).update({ search_words_pending: true, search_words_pending_from: logged });
  try {
    await knex.transaction(
      async (trx) => {
        const before = await deltaRowsRead(trx);
        const touching = await pendingWordMatches(trx, catalogId, 'imported');
        const readTouching = (await deltaRowsRead(trx)) - before;
        const untouched = await pendingWordMatches(trx, catalogId, 'olive boot');
        const readUntouched = (await deltaRowsRead(trx)) - before - readTouching;
        // Every changed item gained the word `imported` (its number was in its title already).
        expect(touching?.length).toBe(CHANGED);
        expect(readTouching).toBe(CHANGED);
        expect(untouched).toEqual([]);
        expect(readUntouched).toBe(0);
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
  } finally {
    await knex('catalogs').where('id', catalogId).update({ search_words_pending: false, search_words_pending_from: null });
  }
});

test('a delta row of another catalog is never read', async () => {
  // The GIN index on `diff` spans every catalog: the catalog's condition still applies to each row it finds.
  const org = await createOrganizationWithKey(knex, 'delta plan other');
  const other = await createTestCatalog(org.organizationId, { knex });
  expect(await buildSearchIndex(knex, other, { minDf: 1 })).toMatchObject({ items: 0 });
  await knex('catalog_items').insert({ id: newId(), catalog_id: other, business_key: 'O-1', data: JSON.stringify({ sku: 'O-1', title: 'olive boot' }) });
  await knex.transaction(
    async (trx) => {
      const counted = await countWithSearchIndex(trx, catalogId, 'olive boot');
      const where = filterSql(catalogId, { search: 'olive boot' });
      const { rows } = await trx.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings);
      expect(counted).toMatchObject({ total: rows[0].n, path: 'index' });
      expect(await trx('catalog_search_delta').where('catalog_id', other).count<{ n: string }[]>('* as n')).toEqual([{ n: '1' }]);
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
});
