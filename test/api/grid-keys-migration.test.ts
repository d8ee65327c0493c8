/**
 * Migration 20261208090000 (grid field indexes move to the field keys, docs/console.md "Grid
 * field indexes") on a database that has an index of the earlier form: a partial expression index
 * `cgi_…` over `data` for a catalog whose grid row is `ready`. Run down then up (the test database
 * is migrated already): the `cgi_` index is gone (so updates of `data` are heap-only again), the
 * field is recorded in `catalog_sort_fields` (its keys kept from then on), the grid row is back to
 * `building` (the next page asks the workflow for the keys), and the odd-keys index exists.
 */
import type { Knex } from 'knex';
import { down, up } from '../../migrations/20261208090000_grid_keys';
import { gridIndexName } from '../../src/services/catalog/grid/grid-indexes';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

let knex: Knex;

beforeAll(() => {
  knex = testKnex();
});

afterAll(async () => {
  await closeTestKnex();
});

/** Names of the indexes on `table` among `names`. */
async function indexesNamed(table: string, names: string[]): Promise<string[]> {
  return knex('pg_indexes').where('tablename', table).whereIn('indexname', names).orderBy('indexname').pluck('indexname');
}

test('drops the cgi_ index over data, records the field for keys, and asks for the build again', async () => {
  const org = await createTestOrg('grid keys migration');
  const catalogId = await createTestCatalog(org.organizationId);
  const name = gridIndexName(catalogId, 'text', 'brand');
  await knex.raw(`CREATE INDEX ${name} ON catalog_items ((data ->> 'brand'), id) WHERE catalog_id = '${catalogId}'`);
  await knex('catalog_field_indexes').insert({
    index_name: name,
    catalog_id: catalogId,
    organization_id: org.organizationId,
    field: 'brand',
    kind: 'text',
    state: 'ready',
  });
  try {
    await down(knex);
    expect(await indexesNamed('catalog_sort_keys', ['catalog_sort_keys_odd'])).toEqual([]);
    await up(knex);
    expect(await indexesNamed('catalog_items', [name])).toEqual([]);
    expect(await indexesNamed('catalog_sort_keys', ['catalog_sort_keys_odd'])).toEqual(['catalog_sort_keys_odd']);
    expect(await knex('catalog_sort_fields').where('catalog_id', catalogId).select('field', 'ready')).toEqual([{ field: 'brand', ready: false }]);
    expect((await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state).toBe('building');
  } finally {
    await knex.raw(`DROP INDEX IF EXISTS ${name}`);
    await knex('catalogs').where('id', catalogId).delete();
  }
});
