import type { Knex } from 'knex';
import { Catalog } from '../../../models/catalog';
import { lockCatalogExclusive } from '../catalog-locks';
import { indexWordsTerm } from './common-words';

/**
 * Pending word vectors (migration 20261121210000; docs/api-reference.md "Items").
 *
 * A restore of a large catalog rewrites its rows without touching the word index: it writes
 * each changed row's restored word vector to `search_tsv_pending`, leaves the indexed
 * `search_tsv` as it was, and sets `catalogs.search_words_pending`. Rows then update in place
 * (HOT, no index entries), and the index work (~31 GIN entries and four btree entries per row,
 * most of a restore's time when every row changed) moves to {@link catchUpSearchWords}, run by
 * searchIndexBuildWorkflow right after the restore.
 *
 * Searches stay exact meanwhile: while the flag is set, a search matches each row's current
 * vector, `coalesce(search_tsv_pending, search_tsv)` ({@link wordsColumn}), over the catalog's
 * rows without the word index (slower: every row of the catalog is read). The flag and the rows
 * must be read in one snapshot (a REPEATABLE READ transaction, or after taking the catalog lock
 * like every item writer: a restore holds it exclusive), since a restore sets both in one transaction.
 */

/** Catalogs with at least this many items defer their word index on restore (smaller ones restore in well under a second per 10,000 changed rows). */
export const SEARCH_WORDS_DEFER_MIN_ITEMS = 50000;

/** Rows moved from `search_tsv_pending` to `search_tsv` per transaction of a catch-up. */
const CATCH_UP_BATCH = 5000;

/**
 * The SQL expression of an item's current word vector: `search_tsv`, or, when the catalog's
 * word index is behind (`pending`), `coalesce(search_tsv_pending, search_tsv)`, which no index
 * serves. `alias` qualifies the columns (`v` → `v.search_tsv`).
 */
export function wordsColumn(pending: boolean, alias?: string): string {
  const col = (c: string): string => (alias === undefined ? c : `${alias}.${c}`);
  return pending ? `coalesce(${col('search_tsv_pending')}, ${col('search_tsv')})` : col('search_tsv');
}

/**
 * Flags the catalog's word index as behind (`search_words_pending`), in the transaction that
 * wrote pending vectors, after the write. Records where the search count index's log stood
 * (`search_words_pending_from`: its `logged`) unless the flag was already set (the window began
 * earlier) or the catalog logs no changes (no index: searches then read every row).
 */
export async function markWordsPending(trx: Knex.Transaction, catalogId: string): Promise<void> {
  await trx.raw(
    `UPDATE catalogs c SET search_words_pending = true,
       search_words_pending_from = CASE WHEN c.search_words_pending THEN c.search_words_pending_from
                                        WHEN c.search_indexed THEN (SELECT i.logged FROM catalog_search_index i WHERE i.catalog_id = c.id) END
     WHERE c.id = ?`,
    [catalogId],
  );
}

/**
 * The items whose pending words may match a search while the catalog's word index is behind
 * (docs/large-catalogs.md "Searches while the word index catches up"), or null when they cannot be
 * told apart from the others (every row must then be read).
 *
 * An item whose current vector matches the term but whose indexed `search_tsv` does not has a
 * word the index lacks for some word of the term, so some change since the index fell behind
 * added that word. Every such change is a row of the search count index's delta (the items_rev
 * trigger logs each change of `coalesce(search_tsv_pending, search_tsv)` with the words that
 * differ, `diff`, under a GIN index) as long as no fold or build consumed those rows: the index's
 * `logged` is still at or before `search_words_pending_from`, and the catalog still logs. A
 * search then matches the word index's candidates plus these items, each checked against its
 * current vector: exact, and no row outside both is read.
 * Read in the caller's snapshot (the flag, the positions and the delta together). The delta rows
 * come from the `diff` GIN index alone (the catalog's condition is written so that no index
 * answers it, as in search-count-index.ts countByPostings).
 * @param wordsTerm the term whose words the word index matches (the search term, or its part:
 *   src/services/catalog/search/common-words.ts)
 * @returns item ids (possibly empty), or null when the delta does not cover the window
 */
export async function pendingWordMatches(trx: Knex.Transaction, catalogId: string, wordsTerm: string): Promise<string[] | null> {
  const {
    rows: [r],
  } = await trx.raw(
    `SELECT c.search_indexed AND c.search_words_pending_from IS NOT NULL AND i.logged <= c.search_words_pending_from AS covered,
       (SELECT coalesce(array_agg(DISTINCT d.item_id::text), '{}') FROM catalog_search_delta d
        WHERE (d.catalog_id = c.id) IS TRUE AND d.upto > c.search_words_pending_from
          AND d.diff @@ replace(catalog_item_search_query(?)::text, ' & ', ' | ')::tsquery) AS ids
     FROM catalogs c LEFT JOIN catalog_search_index i ON i.catalog_id = c.id WHERE c.id = ?`,
    [wordsTerm.toLowerCase(), catalogId],
  );
  return r?.covered === true ? (r.ids as string[]) : null;
}

/** How a search's words are matched, read in the caller's snapshot (src/services/catalog/items/items-sql.ts `ItemFilter`). */
export interface SearchWordsState {
  /** The catalog's word index is behind (`catalogs.search_words_pending`). */
  words_pending: boolean;
  /** The part of the term the word index matches (common-words.ts `indexWordsTerm`), when not the whole term. */
  words_term?: string;
  /** With `words_pending`: the items whose pending words may match ({@link pendingWordMatches}); absent when the delta does not cover the window. */
  pending_matches?: string[];
}

/**
 * The {@link SearchWordsState} of a search of `term` on catalog `catalogId`, read in the caller's
 * snapshot (a REPEATABLE READ transaction, in which the caller then reads the rows;
 * docs/large-catalogs.md "Searches while the word index catches up").
 * @param pending whether the word index is behind, when the caller read the flag in this snapshot already ({@link wordsPending} otherwise)
 */
export async function searchWordsState(trx: Knex.Transaction, catalogId: string, term: string, pending?: boolean): Promise<SearchWordsState> {
  pending ??= await wordsPending(trx, catalogId);
  const words_term = await indexWordsTerm(trx, term);
  const pending_matches = pending ? ((await pendingWordMatches(trx, catalogId, words_term ?? term)) ?? undefined) : undefined;
  return { words_pending: pending, words_term, pending_matches };
}

/**
 * True while some row of the catalog may hold a pending word vector
 * (`catalogs.search_words_pending`), read in the caller's snapshot; false for an unknown catalog.
 */
export async function wordsPending(knex: Knex | Knex.Transaction, catalogId: string): Promise<boolean> {
  const row = await Catalog.query(knex).select('search_words_pending').findById(catalogId);
  return row?.search_words_pending === true;
}

/**
 * Locks the catalog for a catalog-wide change for the rest of the transaction (catalog-locks.ts:
 * the catalog lock exclusive, then the row); false when the catalog is gone.
 */
async function lockedCatalog(trx: Knex.Transaction, catalogId: string): Promise<boolean> {
  return lockCatalogExclusive(trx, catalogId);
}

/** Figures of one catch-up. */
export interface SearchWordsCatchUp {
  /** Rows whose pending vector moved into `search_tsv` (each a new row version with its index entries). */
  rows: number;
  /** True when the catalog's flag is clear at the end (false: the catalog was deleted during the catch-up). */
  cleared: boolean;
  ms: number;
}

/**
 * Moves every pending word vector of a catalog into `search_tsv` (the word index gets the
 * entries the restore deferred), {@link CATCH_UP_BATCH} rows per transaction in id order, then
 * clears `catalogs.search_words_pending` once no pending row is left (a restore that committed
 * meanwhile left new ones: they are caught up in another pass). Nothing to do, and no lock
 * taken, while the flag is clear (it is set in the transaction that writes pending vectors).
 * Every transaction takes the catalog lock exclusive and the catalog row first, as restores do
 * (catalog-locks.ts), so it waits for the item writers in flight and never deadlocks with them
 * (its items_rev trigger updates that row after locking the items).
 * Batches skip the row triggers (`catalog_items.search_columns_supplied`: the vector moved is
 * the row's own). Idempotent and resumable: a batch commits whole or not at all, and a rerun
 * only finds the rows still pending.
 * @param onBatch called after each committed batch with the rows moved so far (heartbeats)
 */
export async function catchUpSearchWords(knex: Knex, catalogId: string, onBatch?: (rows: number) => void): Promise<SearchWordsCatchUp> {
  const t0 = performance.now();
  let rows = 0;
  if (!(await wordsPending(knex, catalogId))) return { rows, cleared: true, ms: Math.round(performance.now() - t0) };
  for (;;) {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const moved = await knex.transaction(async (trx) => {
        if (!(await lockedCatalog(trx, catalogId))) return [];
        await trx.raw('SET LOCAL catalog_items.search_columns_supplied = on');
        const { rows: batch } = await trx.raw(
          `UPDATE catalog_items ci SET search_tsv = ci.search_tsv_pending, search_tsv_pending = NULL
           FROM (SELECT id FROM catalog_items WHERE catalog_id = ? AND id > ? AND search_tsv_pending IS NOT NULL ORDER BY id LIMIT ${CATCH_UP_BATCH}) b
           WHERE ci.id = b.id AND ci.search_tsv_pending IS NOT NULL
           RETURNING ci.id::text AS id`,
          [catalogId, after],
        );
        return batch as Array<{ id: string }>;
      });
      if (moved.length === 0) break;
      rows += moved.length;
      after = moved.reduce((max, r) => (r.id > max ? r.id : max), after);
      onBatch?.(rows);
    }
    const done = await knex.transaction(async (trx) => {
      if (!(await lockedCatalog(trx, catalogId))) return 'gone';
      const { rows: left } = await trx.raw('SELECT 1 FROM catalog_items WHERE catalog_id = ? AND search_tsv_pending IS NOT NULL LIMIT 1', [catalogId]);
      if (left.length > 0) return 'again';
      await Catalog.query(trx).where('id', catalogId).patch({ search_words_pending: false, search_words_pending_from: null });
      return 'cleared';
    });
    if (done !== 'again') return { rows, cleared: done === 'cleared', ms: Math.round(performance.now() - t0) };
  }
}
