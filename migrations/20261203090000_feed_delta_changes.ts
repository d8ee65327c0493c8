import type { Knex } from 'knex';

/**
 * What a delta feed run needs to read only the items that changed since its base run
 * (docs/feeds.md, "Delta runs"):
 *
 * - `catalog_item_changes`: a record of each written or deleted item (its catalog, item, parent
 *   and the writing transaction's start, `now()`), written by statement triggers (transition
 *   tables) on insert, update and delete, whoever writes (API, imports, applies, restores,
 *   cascades from a product); an update that moves a variant to another product also records
 *   the old product. A log rather than an index on `updated_at`: `updated_at` changes with every
 *   update, so an index on it would make every update of the table non-HOT (every index entry
 *   written again; docs/benchmarks.md "Restore regression"), while the log costs one narrow row
 *   per written item. Records older than the retention (src/services/catalog/item-changes.ts)
 *   are pruned; a reader whose watermark is older reads everything again.
 * - `feed_runs.items_watermark`: the time a run's reads are complete from: the earliest start
 *   of the transactions open when the run was created, so an item written by a transaction
 *   still open then (committed while the run read) has its change record at or after it.
 * - `feed_runs.settings_key`: a hash of what turns items into rows besides the items (the feed's
 *   channel, format, mapping, currency and filter; the catalog's product id field and schema
 *   version): a delta reads only written items when its base had the same key.
 * - `feed_runs.delta_mode`: how a delta run found its changes (`changed`: the items written
 *   since its base's watermark; `compare`: every item's row hash), fixed by its first step.
 * - `feed_run_removals`: the base's items a `changed` delta run read and did not export
 *   (deleted, filtered out, now excluded), recorded by its pages with `ON CONFLICT DO NOTHING`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalog_item_changes', (t) => {
    t.uuid('catalog_id').notNullable();
    t.uuid('item_id').notNullable();
    t.uuid('parent_id');
    t.timestamp('changed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['catalog_id', 'changed_at']);
    t.index(['changed_at']);
  });
  // A deleted catalog's cascade leaves no records (its catalog row is gone in the same statement).
  await knex.raw(`
    CREATE FUNCTION catalog_item_changes_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        INSERT INTO catalog_item_changes (catalog_id, item_id, parent_id)
        SELECT o.catalog_id, o.id, o.parent_id FROM old_rows o WHERE EXISTS (SELECT 1 FROM catalogs c WHERE c.id = o.catalog_id);
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO catalog_item_changes (catalog_id, item_id, parent_id)
        SELECT n.catalog_id, n.id, n.parent_id FROM new_rows n
        UNION ALL
        SELECT o.catalog_id, o.id, o.parent_id FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.parent_id IS DISTINCT FROM n.parent_id AND o.parent_id IS NOT NULL;
      ELSE
        INSERT INTO catalog_item_changes (catalog_id, item_id, parent_id)
        SELECT n.catalog_id, n.id, n.parent_id FROM new_rows n;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER catalog_item_changes_ins AFTER INSERT ON catalog_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_item_changes_trg()`);
  await knex.raw(`CREATE TRIGGER catalog_item_changes_upd AFTER UPDATE ON catalog_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_item_changes_trg()`);
  await knex.raw(`CREATE TRIGGER catalog_item_changes_del AFTER DELETE ON catalog_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_item_changes_trg()`);
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
  for (const op of ['ins', 'upd', 'del']) await knex.raw(`DROP TRIGGER IF EXISTS catalog_item_changes_${op} ON catalog_items`);
  await knex.raw('DROP FUNCTION IF EXISTS catalog_item_changes_trg()');
  await knex.schema.dropTableIfExists('catalog_item_changes');
}
