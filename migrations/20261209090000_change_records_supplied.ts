import type { Knex } from 'knex';

/**
 * The item change log's triggers (migration 20261203090000) skip statements whose writer
 * stands for its own records (docs/feeds.md "Delta runs", docs/large-catalogs.md "Restores of
 * large catalogs").
 *
 * Every reader of `catalog_item_changes` (delta feed runs, kept channel readiness) already reads
 * the whole catalog again when a snapshot restore happened since its watermark: the restore's
 * `safety` snapshot, stamped in the restore's transaction, is that record
 * (src/services/catalog/item-changes.ts `restoredSince`). The per-item records a restore wrote
 * were never read; writing them (one row and two index entries per item, and for updates a join
 * of the old and new rows for moved variants) was measured with `EXPLAIN ANALYZE` at 0.18 s of a
 * 1.8 s MERGE of 100,000 changed items on one machine and 0.58–0.64 s on a slower one.
 *
 * So the three triggers get a WHEN condition (evaluated once per statement): they fire unless
 * `catalog_items.change_records_supplied` is `on`. Only a restore sets it, for its own DELETE and
 * MERGE; every other writer is logged as before.
 */
export async function up(knex: Knex): Promise<void> {
  await createTriggers(knex, "WHEN (current_setting('catalog_items.change_records_supplied', true) IS DISTINCT FROM 'on')");
}

/** Reverts `up`: the triggers of migration 20261203090000, always firing. */
export async function down(knex: Knex): Promise<void> {
  await createTriggers(knex, '');
}

/** (Re)creates the INSERT, UPDATE and DELETE change-log triggers of `catalog_items` with the given WHEN clause. */
async function createTriggers(knex: Knex, when: string): Promise<void> {
  const transition = {
    ins: ['INSERT', 'NEW TABLE AS new_rows'],
    upd: ['UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
    del: ['DELETE', 'OLD TABLE AS old_rows'],
  };
  for (const [suffix, [op, tables]] of Object.entries(transition)) {
    await knex.raw(`DROP TRIGGER catalog_item_changes_${suffix} ON catalog_items`);
    await knex.raw(`CREATE TRIGGER catalog_item_changes_${suffix} AFTER ${op} ON catalog_items
      REFERENCING ${tables} FOR EACH STATEMENT ${when} EXECUTE FUNCTION catalog_item_changes_trg()`);
  }
}
