import type { Knex } from 'knex';

/**
 * The console grid's field indexes move off `catalog_items` (docs/console.md "Grid field
 * indexes"; src/services/catalog/grid/grid-keys.ts). They were partial expression indexes over
 * `data` (`cgi_*`): PostgreSQL makes an update non-HOT when any index reads a column it changes,
 * whatever the index's predicate, so one such index in one catalog made every update of `data`
 * in every catalog write every index again (restores and applies about half as fast,
 * docs/large-catalogs.md "Restores of large catalogs"). The grid now reads the field's keys in
 * `catalog_sort_keys`, which the items' triggers keep.
 *
 * - Every `cgi_` index on `catalog_items` is dropped; each field the grid had indexed (in a
 *   catalog that still exists: the rows have no foreign key, the hourly sweep drops the others) gets its
 *   `catalog_sort_fields` row (the triggers keep its keys from this commit on), and the grid's
 *   rows go back to `building`: the next grid page that would use one asks the catalog's
 *   workflow, which copies the existing items' keys and marks them ready. Until then those
 *   pages read as before the index was built (and say so).
 */
export async function up(knex: Knex): Promise<void> {
  // An index of an earlier draft of this migration (keys a text filter could not rule out); not used.
  await knex.raw('DROP INDEX IF EXISTS catalog_sort_keys_odd');
  const { rows } = await knex.raw(
    `SELECT format('DROP INDEX IF EXISTS %I', c.relname) AS ddl FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
     WHERE i.indrelid = 'catalog_items'::regclass AND c.relname LIKE 'cgi\\_%'`,
  );
  for (const { ddl } of rows as Array<{ ddl: string }>) await knex.raw(ddl);
  await knex.raw(`INSERT INTO catalog_sort_fields (catalog_id, field)
    SELECT DISTINCT f.catalog_id, f.field FROM catalog_field_indexes f
    WHERE f.state IN ('building', 'ready') AND EXISTS (SELECT 1 FROM catalogs c WHERE c.id = f.catalog_id) ON CONFLICT DO NOTHING`);
  await knex.raw("UPDATE catalog_field_indexes SET state = 'building', requested_at = now(), build_ms = NULL WHERE state = 'ready'");
}

/** Reverts `up`: the grid's rows go back to `building`, so the previous code builds its indexes again. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw("UPDATE catalog_field_indexes SET state = 'building', requested_at = now(), build_ms = NULL WHERE state = 'ready'");
}
