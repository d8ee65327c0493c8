import type { Knex } from 'knex';

/**
 * What a delta feed run needs to read only the items that changed since its base run
 * (docs/feeds.md, "Delta runs"):
 *
 * - `catalog_items (catalog_id, updated_at)`: the items written since a time. Every item writer
 *   sets `updated_at = now()` (the writing transaction's start); the one writer that sets an
 *   older value, a snapshot restore, makes the delta fall back to comparing every item.
 *   Costs one more index entry per item write.
 * - `catalog_item_deletions`: a record of each deleted item (its catalog, parent and the
 *   deleting transaction's time), written by a statement trigger (transition table) for
 *   catalogs that have a live feed, whoever deletes (API, cascades from a product). Items are
 *   deleted outright, so without it a delta could not tell which items vanished without
 *   reading all of them. Records older than the retention (src/services/feeds/delta.ts) are
 *   pruned when a run finishes; a delta whose base is older compares every item instead.
 * - `feed_runs.items_watermark`: the time a run's reads are complete from: the earliest start
 *   of the transactions open when the run was created, so an item written by a transaction
 *   still open then (committed while the run read) has `updated_at` at or after it.
 * - `feed_runs.settings_key`: a hash of what turns items into rows besides the items (the feed's
 *   channel, format, mapping, currency and filter; the catalog's product id field and schema
 *   version): a delta reads only written items when its base had the same key.
 * - `feed_runs.delta_mode`: how a delta run found its changes (`changed`: the items written
 *   since its base's watermark; `compare`: every item's row hash), fixed by its first step.
 * - `feed_run_removals`: the base's items a `changed` delta run read and did not export
 *   (deleted, filtered out, now excluded), recorded by its pages with `ON CONFLICT DO NOTHING`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX catalog_items_catalog_updated ON catalog_items (catalog_id, updated_at)');
  await knex.schema.createTable('catalog_item_deletions', (t) => {
    t.uuid('catalog_id').notNullable();
    t.uuid('item_id').notNullable();
    t.uuid('parent_id');
    t.timestamp('deleted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['catalog_id', 'deleted_at']);
  });
  await knex.raw(`
    CREATE FUNCTION catalog_items_deletions_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO catalog_item_deletions (catalog_id, item_id, parent_id)
      SELECT o.catalog_id, o.id, o.parent_id FROM gone o
      WHERE o.catalog_id IN (SELECT f.catalog_id FROM feeds f WHERE NOT f.deleted);
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER catalog_items_deletions AFTER DELETE ON catalog_items
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_deletions_trg()`);
  await knex.schema.alterTable('feed_runs', (t) => {
    t.timestamp('items_watermark', { useTz: true });
    t.string('delta_mode', 16);
    t.string('settings_key', 64);
  });
  await knex.schema.createTable('feed_run_removals', (t) => {
    t.uuid('run_id').notNullable().references('feed_runs.id').onDelete('CASCADE');
    t.uuid('item_id').notNullable();
    t.text('offer_id');
    t.primary(['run_id', 'item_id']);
  });
}

/** Reverts `up`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('feed_run_removals');
  await knex.schema.alterTable('feed_runs', (t) => {
    t.dropColumn('items_watermark');
    t.dropColumn('delta_mode');
    t.dropColumn('settings_key');
  });
  await knex.raw('DROP TRIGGER IF EXISTS catalog_items_deletions ON catalog_items');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_items_deletions_trg()');
  await knex.schema.dropTableIfExists('catalog_item_deletions');
  await knex.raw('DROP INDEX IF EXISTS catalog_items_catalog_updated');
}
