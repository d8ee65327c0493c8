import type { Knex } from 'knex';

/**
 * Channel readiness kept instead of scanned (docs/channels.md, "Readiness"):
 *
 * - `channel_readiness_states`: one per (catalog, channel): the key of what the verdicts were
 *   computed with (channel definition, mapping, currency, schema version, product id field),
 *   the watermark they are complete from, and the report's counts (total, ready, blocked by
 *   code, missing by attribute). Refreshed by reading only the items touched since the
 *   watermark; a new key rebuilds it.
 * - `channel_readiness_items`: each counted item's verdict under the state: its error codes and
 *   missing attributes (an item with no error codes is ready). What a refresh subtracts before
 *   it adds the item's new verdict.
 * - The deletion records (`catalog_item_deletions`) are now kept for every deleted item whose
 *   catalog still exists (not only catalogs with a feed), so a state built while a deletion was
 *   still uncommitted sees it; with an index on `deleted_at` for the retention's pruning.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('channel_readiness_states', (t) => {
    t.uuid('id').primary();
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.string('channel', 64).notNullable();
    t.string('context_key', 64).notNullable();
    t.timestamp('watermark', { useTz: true });
    t.integer('total').notNullable().defaultTo(0);
    t.integer('ready').notNullable().defaultTo(0);
    t.jsonb('blocked').notNullable().defaultTo('{}');
    t.jsonb('by_attribute').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['catalog_id', 'channel']);
  });
  await knex.schema.createTable('channel_readiness_items', (t) => {
    t.uuid('state_id').notNullable().references('channel_readiness_states.id').onDelete('CASCADE');
    t.uuid('item_id').notNullable();
    t.specificType('errors', 'text[]').notNullable();
    t.specificType('missing', 'text[]').notNullable();
    t.primary(['state_id', 'item_id']);
  });
  await knex.raw(`
    CREATE OR REPLACE FUNCTION catalog_items_deletions_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO catalog_item_deletions (catalog_id, item_id, parent_id)
      SELECT o.catalog_id, o.id, o.parent_id FROM gone o
      WHERE EXISTS (SELECT 1 FROM catalogs c WHERE c.id = o.catalog_id);
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE INDEX catalog_item_deletions_deleted_at ON catalog_item_deletions (deleted_at)');
}

/** Reverts `up` (deletion records again only for catalogs with a live feed). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS catalog_item_deletions_deleted_at');
  await knex.raw(`
    CREATE OR REPLACE FUNCTION catalog_items_deletions_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO catalog_item_deletions (catalog_id, item_id, parent_id)
      SELECT o.catalog_id, o.id, o.parent_id FROM gone o
      WHERE o.catalog_id IN (SELECT f.catalog_id FROM feeds f WHERE NOT f.deleted);
      RETURN NULL;
    END $$`);
  await knex.schema.dropTableIfExists('channel_readiness_items');
  await knex.schema.dropTableIfExists('channel_readiness_states');
}
