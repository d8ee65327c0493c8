import type { Knex } from 'knex';

/**
 * Restores that rewrite rows in place (HOT) and leave the word index to catch up afterwards
 * (docs/api-reference.md "Items"; src/services/catalog/search/search-words.ts).
 *
 * Restoring a large catalog in which every row changed was CPU-bound index maintenance: each
 * restored row got a new version with ~31 word-index entries and an entry in every btree
 * (7.4 s for 100,000 rows on a quiet 2-core machine, against a target of 5 s). PostgreSQL
 * writes no index entry at all for an update that changes no indexed column and finds room on
 * the row's own page (a heap-only tuple, HOT). So:
 *
 * - `catalog_items.search_tsv_pending`: the word vector of the row's current `search_text`
 *   while `search_tsv` (the indexed column) still holds an older one. A restore of a large
 *   catalog writes the snapshot's vector here and leaves `search_tsv` as it is; everything else
 *   it restores is unindexed (`data`, `search_text`, `source_info`, version, timestamps), so the
 *   update is HOT. NULL on every row that is not behind (all rows, normally).
 * - `catalogs.search_words_pending`: true while some row of the catalog may have a pending
 *   vector. Searches of such a catalog match `coalesce(search_tsv_pending, search_tsv)` over the
 *   catalog's rows (exact, without the word index) until the catch-up (searchIndexBuildWorkflow)
 *   has moved every pending vector into `search_tsv` and cleared the flag.
 * - `fillfactor = 50`: pages are filled to half on insert, so a page has room for a new version
 *   of its rows and the restore's updates stay on their page (HOT). Applies to pages written
 *   from now on; `VACUUM FULL catalog_items` applies it to existing rows.
 * - Trigger `catalog_items_search_tsv_pending` (BEFORE UPDATE; its `WHEN` only fires on rows
 *   with a pending vector, and not for writers that declare `catalog_items.search_columns_supplied`):
 *   any other write of such a row settles it. When the write leaves `search_text` unchanged, the
 *   pending vector is the row's vector; otherwise the vector the writer supplied (or the
 *   search-column trigger computed, which fires first: triggers run in name order) is. Either
 *   way `search_tsv_pending` becomes NULL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE catalog_items ADD COLUMN search_tsv_pending tsvector');
  await knex.raw('ALTER TABLE catalog_items SET (fillfactor = 50)');
  await knex.raw('ALTER TABLE catalogs ADD COLUMN search_words_pending boolean NOT NULL DEFAULT false');
  await knex.raw(`
    CREATE FUNCTION catalog_items_search_tsv_pending_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.search_text IS NOT DISTINCT FROM OLD.search_text THEN
        NEW.search_tsv := OLD.search_tsv_pending;
      END IF;
      NEW.search_tsv_pending := NULL;
      RETURN NEW;
    END $$`);
  await knex.raw(`CREATE TRIGGER catalog_items_search_tsv_pending BEFORE UPDATE ON catalog_items
    FOR EACH ROW WHEN (OLD.search_tsv_pending IS NOT NULL AND current_setting('catalog_items.search_columns_supplied', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION catalog_items_search_tsv_pending_trg()`);
}

/** Reverts `up`: settles every pending vector first, then drops the columns and the trigger. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS catalog_items_search_tsv_pending ON catalog_items');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_items_search_tsv_pending_trg()');
  await knex.raw(`SET LOCAL catalog_items.search_columns_supplied = on;
    UPDATE catalog_items SET search_tsv = search_tsv_pending WHERE search_tsv_pending IS NOT NULL`);
  await knex.raw('ALTER TABLE catalog_items DROP COLUMN search_tsv_pending');
  await knex.raw('ALTER TABLE catalog_items RESET (fillfactor)');
  await knex.raw('ALTER TABLE catalogs DROP COLUMN search_words_pending');
}
