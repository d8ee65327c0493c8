import type { Knex } from 'knex';

/**
 * (the item page's provenance and history): the applied staged changes of one item,
 * newest first, are read by `catalog_item_id`; a partial index over applied changes only keeps
 * that read an index scan however many changes the catalog's activities staged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX staged_changes_item_applied_idx ON staged_changes (catalog_item_id, applied_at DESC) WHERE applied_at IS NOT NULL AND catalog_item_id IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS staged_changes_item_applied_idx');
}
