import type { Knex } from 'knex';

/**
 * Completeness counter triggers skip statements whose writer supplies the counts itself
 * (docs/large-catalogs.md "Completeness counters", "Restores of large catalogs").
 *
 * The UPDATE trigger of migration 20261202090000 joins a statement's old and new rows and
 * computes both rows' filled-key sets: measured with EXPLAIN ANALYZE, two thirds of a snapshot
 * restore's MERGE of 50,000 changed items. A restore knows the counts it leaves (those of the
 * snapshot's rows) and holds the catalog lock exclusive (no other writer of the catalog in
 * flight), so it sets `catalog_items.fill_counts_supplied` to `on` for its own statements and
 * appends one delta per group itself: the snapshot's counts minus the catalog's.
 *
 * - The three triggers get a WHEN condition (evaluated once per statement): they fire unless the
 *   setting is `on`. Any writer that does not set it is counted by the triggers as before.
 * - `catalog_snapshot_fill_counts`: a snapshot's counts per group, summed from the catalog's
 *   counters in the transaction that copies its items under the catalog lock (no item writer in
 *   flight: they count exactly the rows copied), so a restore reads them instead of computing every snapshot row's
 *   filled keys. `catalog_snapshots.fill_counted` says a snapshot has them; snapshots taken
 *   before this migration do not, and a restore of one computes its counts from its rows.
 */
export async function up(knex: Knex): Promise<void> {
  await createTriggers(knex, "WHEN (current_setting('catalog_items.fill_counts_supplied', true) IS DISTINCT FROM 'on')");
  await knex.raw(`CREATE TABLE catalog_snapshot_fill_counts (
    snapshot_id uuid NOT NULL REFERENCES catalog_snapshots(id) ON DELETE CASCADE,
    top_level boolean NOT NULL,
    category text NOT NULL,
    filled text[] NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (snapshot_id, top_level, category, filled)
  )`);
  await knex.raw('ALTER TABLE catalog_snapshots ADD COLUMN fill_counted boolean NOT NULL DEFAULT false');
}

/** Reverts `up`: the triggers of migration 20261202090000, always firing, and no stored snapshot counts. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE catalog_snapshots DROP COLUMN fill_counted');
  await knex.raw('DROP TABLE catalog_snapshot_fill_counts');
  await createTriggers(knex, '');
}

/** (Re)creates the INSERT, UPDATE and DELETE counter triggers of `catalog_items` with the given WHEN clause. */
async function createTriggers(knex: Knex, when: string): Promise<void> {
  const transition = { insert: 'NEW TABLE AS new_rows', update: 'OLD TABLE AS old_rows NEW TABLE AS new_rows', delete: 'OLD TABLE AS old_rows' };
  for (const [op, tables] of Object.entries(transition)) {
    await knex.raw(`DROP TRIGGER catalog_items_fill_counts_${op} ON catalog_items`);
    await knex.raw(`CREATE TRIGGER catalog_items_fill_counts_${op} AFTER ${op.toUpperCase()} ON catalog_items
      REFERENCING ${tables} FOR EACH STATEMENT ${when} EXECUTE FUNCTION catalog_fill_counts_trg()`);
  }
}
