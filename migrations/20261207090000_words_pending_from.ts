import type { Knex } from 'knex';

/**
 * Searches while the word index is behind use the search count index's delta
 * (docs/large-catalogs.md "Searches while the word index catches up";
 * src/services/catalog/search/search-words.ts `pendingWordMatches`).
 *
 * `catalogs.search_words_pending_from`: the search count index's log position (`logged`) when the
 * catalog's word index was left behind (set with `search_words_pending`, kept while it stays set,
 * NULL when the catalog had no index then, and cleared by the catch-up and by a build that turns
 * the index on again). While the index's `logged` is still at or before it, every change of an
 * item's words since the word index fell behind is in `catalog_search_delta`, so a search can find
 * the items whose pending words may match there instead of reading every row of the catalog.
 * Catalogs pending at deployment have it NULL and search as before until their catch-up.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE catalogs ADD COLUMN search_words_pending_from bigint');
}

/** Reverts `up`. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE catalogs DROP COLUMN search_words_pending_from');
}
