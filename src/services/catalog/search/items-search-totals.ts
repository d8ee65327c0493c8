/**
 * Exact totals of item searches (docs/api-reference.md "Items": `total` is exact), cached per app in
 * {@link CatalogCaches.searchTotals}.
 *
 * Cache entries are keyed by (catalog, grouped view, lower-cased term), each stored with the
 * catalog's `items_rev` it was counted at. `items_rev` is bumped by statement triggers in the
 * same statement as every INSERT/UPDATE/DELETE of the catalog's items (migration
 * 20261121170000), and the counter and the count are read in one snapshot, so an entry whose
 * counter equals the current one is the exact total of that snapshot; any write makes every
 * entry of the catalog miss. Least recently used entries are evicted.
 */
import type { Knex } from 'knex';
import type { Catalog } from '../../../models/catalog';
import type { CatalogCaches } from '../catalog-caches';
import { COMPACT_AFTER_ROWS, compactFillCounts } from '../grid/completeness-counters';
import { isWordsOnlyTerm } from '../items/items-sql';
import { countWithSearchIndex, SEARCH_INDEX_FOLD_AT, SEARCH_INDEX_MIN_ITEMS } from './search-count-index';
import { requestSearchIndexBuild, SearchIndexBuilds } from './search-index-requests';

/** Empties the search count cache of one app (tests, benchmarks measuring cold requests). */
export function clearSearchTotals(caches: CatalogCaches): void {
  caches.searchTotals.clear();
}

/** What a search total needs besides the transaction: the app's caches and the job runner. */
export interface SearchTotalDeps {
  caches: CatalogCaches;
  jobRunner: SearchIndexBuilds;
}

/**
 * The exact number of items matching a search filter, from the count cache when still valid,
 * else counted and cached. A words-only term in a catalog that is not product-grouped is
 * counted by the search count index when the catalog has one (src/services/catalog/search/search-count-index.ts:
 * postings for frequent words corrected by the delta of the writes since the build, the GIN
 * index for rare ones, without reading the heap per match; past `SEARCH_INDEX_FOLD_AT` delta
 * rows the build workflow is asked to fold them); otherwise, or when the index is missing or too many items changed since it was built,
 * by a GIN bitmap count, which reads every matching heap page, and a large catalog's index is
 * (re)built by a Temporal workflow that this asks for without waiting
 * ({@link requestSearchIndexBuild}; if Temporal is unreachable the total is still the GIN
 * count). Call inside a REPEATABLE READ transaction: the counter read (`rev`, the catalog's
 * `items_rev` read in it) and the count then share the snapshot of the page read that follows.
 * @param rev the catalog's `items_rev` as text, undefined when unknown (nothing is cached then)
 * @param where the search's `WHERE` clause (src/services/catalog/items/items-sql.ts `filterSql`)
 */
export async function searchTotal(
  deps: SearchTotalDeps,
  trx: Knex.Transaction,
  catalog: Catalog,
  rev: string | undefined,
  grouped: boolean,
  search: string,
  where: { sql: string; bindings: Knex.RawBinding[] },
): Promise<number> {
  const { searchTotals, searchTotalStats } = deps.caches;
  const key = `${catalog.id}\u0000${grouped ? 'g' : 'f'}\u0000${search.toLowerCase()}`;
  const hit = searchTotals.get(key);
  if (rev !== undefined && hit && hit.rev === rev) {
    searchTotalStats.hits++;
    return hit.total;
  }
  searchTotalStats.misses++;
  let total = grouped || !isWordsOnlyTerm(search.toLowerCase()) ? null : await countBySearchIndex(deps, trx, catalog, search.toLowerCase());
  if (total === null) {
    total = (await trx.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows[0].n as number;
    deps.caches.searchCountStats.gin++;
  }
  if (rev !== undefined) {
    searchTotals.set(key, { rev, total });
  }
  return total;
}

/**
 * The exact number of items of a list without search (all items of the catalog, or its
 * top-level items in a grouped catalog), from the count cache when the catalog's `items_rev` is
 * the one it was counted at (cached under the empty term, which no search has), else summed from
 * the completeness counters (`catalog_fill_counts`: per-group deltas the write path appends in
 * the writing transaction, so exact in every snapshot; docs/large-catalogs.md "Completeness
 * counters") instead of counting every item (an index scan of the catalog: 1.7–2.8 s at
 * 1,000,000 items right after a write, docs/benchmarks.md "sorted-first-page"). The counter and
 * the sum are read in one REPEATABLE READ snapshot. Past {@link COMPACT_AFTER_ROWS} delta rows
 * they are folded (compactFillCounts), as the completeness report does.
 */
export async function listTotal(caches: CatalogCaches, knex: Knex, catalogId: string, grouped: boolean): Promise<number> {
  const key = `${catalogId}\u0000${grouped ? 'g' : 'f'}\u0000`;
  const counted = await knex.transaction(
    async (trx): Promise<number | { total: number; deltas: number }> => {
      const rev = (await trx.raw('SELECT items_rev::text AS rev FROM catalogs WHERE id = ?', [catalogId])).rows[0]?.rev as string | undefined;
      const hit = caches.searchTotals.get(key);
      if (rev !== undefined && hit && hit.rev === rev) {
        caches.searchTotalStats.hits++;
        return hit.total;
      }
      caches.searchTotalStats.misses++;
      const {
        rows: [sum],
      } = await trx.raw(
        `SELECT coalesce(sum(n), 0)::bigint AS n, count(*)::int AS deltas FROM catalog_fill_counts WHERE catalog_id = ? ${grouped ? 'AND top_level' : ''}`,
        [catalogId],
      );
      const total = Number(sum.n);
      if (rev !== undefined) caches.searchTotals.set(key, { rev, total });
      return { total, deltas: sum.deltas as number };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  if (typeof counted === 'number') return counted;
  if (counted.deltas > COMPACT_AFTER_ROWS) await compactFillCounts(knex, catalogId);
  return counted.total;
}

/**
 * The total of a words-only term from the catalog's search count index, or null when the index
 * cannot answer; then a large catalog's index build is asked for (and a catalog whose word
 * index is behind a restore is caught up first by the same workflow, search-words.ts). Used by
 * {@link searchTotal} and the console grid's count (item-grid.ts).
 * @param trx a REPEATABLE READ transaction (the index and the changes since its build read in one snapshot)
 * @param term lower-cased, words only (isWordsOnlyTerm)
 */
export async function countBySearchIndex(deps: SearchTotalDeps, trx: Knex.Transaction, catalog: Catalog, term: string): Promise<number | null> {
  const counted = await countWithSearchIndex(trx, catalog.id, term);
  if ('total' in counted) {
    deps.caches.searchCountStats[counted.path]++;
    // Exact already; the build workflow folds the delta so later counts stay cheap.
    if (counted.pending > SEARCH_INDEX_FOLD_AT) requestSearchIndexBuild(deps.jobRunner, deps.caches, catalog);
    return counted.total;
  }
  if (counted.fallback === 'words_pending' || (counted.fallback !== 'no_words' && catalog.item_count >= SEARCH_INDEX_MIN_ITEMS)) {
    requestSearchIndexBuild(deps.jobRunner, deps.caches, catalog, { wordsPending: counted.fallback === 'words_pending' });
  }
  return null;
}
