import type { Knex } from 'knex';

const CHANGED = `(NEW.data IS DISTINCT FROM OLD.data AND NEW.search_text IS NOT DISTINCT FROM OLD.search_text)
                    OR (NEW.search_text IS DISTINCT FROM OLD.search_text AND NEW.search_tsv IS NOT DISTINCT FROM OLD.search_tsv)`;

/**
 * Search-column trigger on UPDATE: skipped when the writer declares that it supplies both
 * derived columns (docs/api-reference.md "Snapshots").
 *
 * The trigger's `WHEN` (migration 20261121170000) infers "the writer did not supply them" from
 * the row alone: `data` changed but `search_text` did not, or `search_text` changed but
 * `search_tsv` did not. A writer that copies both columns from a stored row (snapshot restore)
 * also produces those patterns whenever a change leaves one of them equal: a boolean or a
 * number's formatting changed (`search_text` equal), or a word moved between fields
 * (`search_tsv` equal). The trigger then recomputed the columns with SQL regexp work,
 * ~100 µs a row (measured: 21,280 of 100,000 rows of a restore, 2.4 s). Such a writer now runs
 * `SET LOCAL catalog_items.search_columns_supplied = on` and the `WHEN` (still evaluated in
 * C, no PL/pgSQL call) skips the trigger while the setting is on. Any other writer
 * behaves as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS catalog_items_search_text_upd ON catalog_items');
  await knex.raw(`CREATE TRIGGER catalog_items_search_text_upd BEFORE UPDATE ON catalog_items
    FOR EACH ROW WHEN ((${CHANGED}) AND current_setting('catalog_items.search_columns_supplied', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION catalog_items_search_text_trg()`);
}

/** Reverts `up`, restoring the trigger of migration 20261121170000. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS catalog_items_search_text_upd ON catalog_items');
  await knex.raw(`CREATE TRIGGER catalog_items_search_text_upd BEFORE UPDATE ON catalog_items
    FOR EACH ROW WHEN (${CHANGED})
    EXECUTE FUNCTION catalog_items_search_text_trg()`);
}
