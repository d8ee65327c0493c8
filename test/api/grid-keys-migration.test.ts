/**
 * In a database of its own (the migration rewrites every catalog's grid rows). Migration 20261208090000 (grid field indexes move to the field keys, docs/console.md "Grid
 * field indexes") on a database that has an index of the earlier form: a partial expression index
 * `cgi_…` over `data` for a catalog whose grid row is `ready`. Run down then up (the test database
 * is migrated already): the `cgi_` index is gone (so updates of `data` are heap-only again), the
 * field is recorded in `catalog_sort_fields` (its keys kept from then on), the grid row is back to
 * `building` (the next page asks the workflow for the keys).
 */
import type { Knex } from 'knex';
import { down, up } from '../../migrations/20261208090000_grid_keys';
import { gridIndexName } from '../../src/services/catalog/grid/grid-indexes';
import { newId } from '../../src/lib/ids';
import { createOrganizationWithKey } from '../../src/services/access/auth';
import { createTestCatalog } from '../helpers/catalogs';
import { createOwnDatabase, type OwnDatabase } from '../helpers/own-database';

let own: OwnDatabase | undefined;
let knex: Knex;

beforeAll(async () => {
  own = await createOwnDatabase('grid_keys_migration');
  knex = own.knex;
}, 120_000);

afterAll(async () => {
  await own?.drop();
}, 120_000);

/** Names of the indexes on `table` among `names`. */
async function indexesNamed(table: string, names: string[]): Promise<string[]> {
  return knex('pg_indexes').where('tablename', table).whereIn('indexname', names).orderBy('indexname').pluck('indexname');
}

test('drops the cgi_ index over data, records the field for keys, and asks for the build again', async () => {
  const org = await createOrganizationWithKey(knex, 'grid keys migration');
  const catalogId = await createTestCatalog(org.organizationId, { knex });
  // A row of a catalog deleted meanwhile (rows have no foreign key; the hourly sweep drops them): the migration skips it.
  const gone = gridIndexName(newId(), 'key', 'price');
  await knex('catalog_field_indexes').insert({
    index_name: gone,
    catalog_id: newId(),
    organization_id: org.organizationId,
    field: 'price',
    kind: 'key',
    state: 'ready',
  });
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
    await up(knex);
    expect(await indexesNamed('catalog_items', [name])).toEqual([]);
    expect(await knex('catalog_sort_fields').where('catalog_id', catalogId).select('field', 'ready')).toEqual([{ field: 'brand', ready: false }]);
    expect((await knex('catalog_field_indexes').where('index_name', name).first('state'))?.state).toBe('building');
  } finally {
    await knex.raw(`DROP INDEX IF EXISTS ${name}`);
  }
});
