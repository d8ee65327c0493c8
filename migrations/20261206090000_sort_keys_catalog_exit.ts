import type { Knex } from 'knex';
import { sortKeysTriggerFunctionSql } from './20261205100000_catalog_sort_keys';

/**
 * Sort-key triggers skip statements of catalogs that keep no sort field (docs/large-catalogs.md
 * "Sorting by a data field", "Restores of large catalogs").
 *
 * Before: the triggers of migration 20261205100000 returned early only when no catalog at all
 * kept a sort field. Once one did, every write of every catalog ran the key statements: an
 * UPDATE joined its old and new transition rows (a hash of every row the statement wrote, with
 * their `data`) only to find no kept field of the written catalog, which was most of what the
 * triggers cost a restore of 100,000 items that all changed.
 *
 * Now the function first collects the catalogs the statement wrote (the distinct `catalog_id`s
 * of its transition rows: one pass over narrow values, no join) and returns unless one of them
 * keeps a field; the key statements themselves are unchanged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(sortKeysTriggerFunctionSql(true));
}

/** Reverts `up` (the function of migration 20261205100000). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(sortKeysTriggerFunctionSql(false));
}
