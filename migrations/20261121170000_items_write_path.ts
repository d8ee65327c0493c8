import type { Knex } from 'knex';

/**
 * Cheaper item writes and restores, and a per-catalog change counter (docs/api-reference.md "Items").
 *
 * - Search-column trigger: split into a BEFORE INSERT and a BEFORE UPDATE trigger, each with a
 *   `WHEN` condition (evaluated in C, no PL/pgSQL call) that fires only when the writer did
 *   not supply the derived columns: on insert when `search_text` or `search_tsv` is NULL, on
 *   update when `data` changed but `search_text` did not, or `search_text` changed but
 *   `search_tsv` did not. The item service supplies both (the word vector for ASCII text is
 *   built in Node), snapshot restore copies both, so neither pays ~40 µs per row of SQL
 *   regexp work; any other writer still gets them filled.
 * - `parent_id` index: partial (`WHERE parent_id IS NOT NULL`). Only variants have a parent,
 *   so products and stand-alone items (most rows) no longer add an entry on every write; the
 *   look-ups by parent (`parent_id = …`, `IN (…)`, the FK cascade) all imply NOT NULL.
 * - `catalog_snapshot_items.snapshot_id`: the foreign key (a per-row look-up of the snapshot
 *   on every copied row, 100,000 of them per snapshot) is replaced by an AFTER DELETE trigger
 *   on `catalog_snapshots` that deletes the snapshot's rows (same cascade behaviour, including
 *   when a catalog or organization is deleted). Snapshot rows are only written by the snapshot
 *   service, in the transaction that creates the snapshot record.
 * - `catalogs.items_rev`: a counter bumped by statement-level triggers (transition tables) in
 *   the same statement as every INSERT, UPDATE or DELETE of `catalog_items`, whoever the
 *   writer. A cached search total stored with the counter value it was counted at is exact
 *   while the counter is unchanged (src/services/catalog/items/items.ts, search count cache).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS catalog_items_search_text ON catalog_items');
  await knex.raw(`CREATE TRIGGER catalog_items_search_text_ins BEFORE INSERT ON catalog_items
    FOR EACH ROW WHEN (NEW.search_text IS NULL OR NEW.search_tsv IS NULL)
    EXECUTE FUNCTION catalog_items_search_text_trg()`);
  await knex.raw(`CREATE TRIGGER catalog_items_search_text_upd BEFORE UPDATE ON catalog_items
    FOR EACH ROW WHEN ((NEW.data IS DISTINCT FROM OLD.data AND NEW.search_text IS NOT DISTINCT FROM OLD.search_text)
                    OR (NEW.search_text IS DISTINCT FROM OLD.search_text AND NEW.search_tsv IS NOT DISTINCT FROM OLD.search_tsv))
    EXECUTE FUNCTION catalog_items_search_text_trg()`);

  await knex.raw('DROP INDEX IF EXISTS catalog_items_parent_id_index');
  await knex.raw('CREATE INDEX catalog_items_parent_id_index ON catalog_items (parent_id) WHERE parent_id IS NOT NULL');

  await knex.raw('ALTER TABLE catalog_snapshot_items DROP CONSTRAINT IF EXISTS catalog_snapshot_items_snapshot_id_foreign');
  await knex.raw(`
    CREATE FUNCTION catalog_snapshots_delete_items_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM catalog_snapshot_items WHERE snapshot_id = OLD.id;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER catalog_snapshots_delete_items AFTER DELETE ON catalog_snapshots
    FOR EACH ROW EXECUTE FUNCTION catalog_snapshots_delete_items_trg()`);
  // Rows of snapshots deleted before this migration ran are gone already (the old FK cascaded).

  await knex.raw('ALTER TABLE catalogs ADD COLUMN items_rev bigint NOT NULL DEFAULT 0');
  await knex.raw(`
    CREATE FUNCTION catalog_items_rev_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE catalogs SET items_rev = items_rev + 1 WHERE id IN (SELECT DISTINCT catalog_id FROM changed);
      RETURN NULL;
    END $$`);
  for (const [op, table] of [
    ['INSERT', 'NEW TABLE AS changed'],
    ['UPDATE', 'NEW TABLE AS changed'],
    ['DELETE', 'OLD TABLE AS changed'],
  ]) {
    await knex.raw(`CREATE TRIGGER catalog_items_rev_${op.toLowerCase()} AFTER ${op} ON catalog_items
      REFERENCING ${table} FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_rev_trg()`);
  }
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  for (const op of ['insert', 'update', 'delete']) await knex.raw(`DROP TRIGGER IF EXISTS catalog_items_rev_${op} ON catalog_items`);
  await knex.raw('DROP FUNCTION IF EXISTS catalog_items_rev_trg()');
  await knex.raw('ALTER TABLE catalogs DROP COLUMN IF EXISTS items_rev');
  await knex.raw('DROP TRIGGER IF EXISTS catalog_snapshots_delete_items ON catalog_snapshots');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_snapshots_delete_items_trg()');
  await knex.raw('DELETE FROM catalog_snapshot_items s WHERE NOT EXISTS (SELECT 1 FROM catalog_snapshots c WHERE c.id = s.snapshot_id)');
  await knex.raw(`ALTER TABLE catalog_snapshot_items ADD CONSTRAINT catalog_snapshot_items_snapshot_id_foreign
    FOREIGN KEY (snapshot_id) REFERENCES catalog_snapshots(id) ON DELETE CASCADE`);
  await knex.raw('DROP INDEX IF EXISTS catalog_items_parent_id_index');
  await knex.raw('CREATE INDEX catalog_items_parent_id_index ON catalog_items (parent_id)');
  await knex.raw('DROP TRIGGER IF EXISTS catalog_items_search_text_ins ON catalog_items');
  await knex.raw('DROP TRIGGER IF EXISTS catalog_items_search_text_upd ON catalog_items');
  await knex.raw(`CREATE TRIGGER catalog_items_search_text BEFORE INSERT OR UPDATE ON catalog_items
    FOR EACH ROW EXECUTE FUNCTION catalog_items_search_text_trg()`);
}
