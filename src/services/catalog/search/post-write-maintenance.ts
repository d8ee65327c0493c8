/**
 * What the service does right after a large write to the items table (a restore, an import, an
 * apply, a word-index catch-up that rewrote a large share of a catalog; docs/large-catalogs.md,
 * "Search right after churn"). PostgreSQL's autovacuum gets to a table only after a share of it
 * changed (by default 10 % for statistics, 20 % for a vacuum) and then works throttled, and it may
 * be off; meanwhile searches right after the write ran on:
 *
 * - stale statistics: the planner still sees the catalog as it was (a restored snapshot's rows
 *   estimated at 1 instead of 100,000), picks nested loops and wrong index orders → `ANALYZE`;
 * - a grown GIN pending list: rows written since the last merge sit unsorted in the index's
 *   pending list, which every search reads in full → `gin_clean_pending_list` on the word
 *   index;
 * - a visibility map with the rewritten pages not all-visible, and their dead row versions: index
 *   scans and counts go to the heap for every match → `VACUUM`.
 *
 * Also folds the catalog's search count index delta first (search-count-fold.ts: the words the
 * write touched, not a rebuild; the folded rows vacuumed) and its completeness counter deltas
 * (completeness-counters.ts).
 * Set-based SQL by design (architecture.md, data access): maintenance statements.
 */
import type { Knex } from 'knex';
import { compactFillCounts } from '../grid/completeness-counters';
import { foldSearchDelta, type SearchDeltaFold } from './search-count-fold';

/** The GIN indexes of `catalog_items`: the word index every search reads (migration 20261121130000). */
export const SEARCH_GIN_INDEXES = ['catalog_items_search_words'] as const;

/** Options of {@link settleAfterLargeWrite}. */
export interface SettleOptions {
  /** Also VACUUM the table (sets the visibility map, removes dead row versions); default true. */
  vacuum?: boolean;
}

/** What {@link settleAfterLargeWrite} did, with timings (ms). */
export interface SettleReport {
  analyze_ms: number;
  /** Index → pending-list pages merged into the index proper. */
  pending_pages_merged: Record<string, number>;
  pending_ms: number;
  /** 'done', 'skipped' (another session held the table's maintenance lock: SKIP_LOCKED), or 'off'. */
  vacuum: 'done' | 'skipped' | 'off';
  vacuum_ms: number;
  /** Completeness counter rows of the catalog before and after folding. */
  fill_counts: { before: number; after: number };
  /** The search count index delta folded (null: no index, or a build held it; the build takes the delta in). */
  search_delta: SearchDeltaFold | null;
}

/**
 * Brings the items table's planner statistics, GIN pending lists and visibility map up to date
 * after a large write to catalog `catalogId` (see the module comment), and folds its completeness
 * counters and its search count index delta. Idempotent; outside any transaction (VACUUM cannot run in one). ANALYZE waits for a
 * concurrent maintenance statement on the table (an index build, another ANALYZE); VACUUM skips
 * the table then (`vacuum: 'skipped'`; the maintenance pass that follows vacuums it).
 * @throws the database's error (the calling activity retries)
 */
export async function settleAfterLargeWrite(knex: Knex, catalogId: string, options: SettleOptions = {}): Promise<SettleReport> {
  // First, as every words-only count of the catalog reads the delta until it is folded; then the
  // folded rows' dead versions (and their GIN entries) are vacuumed away.
  const searchDelta = await foldSearchDelta(knex, catalogId);
  if (searchDelta && searchDelta.rows > 0) await knex.raw('VACUUM (SKIP_LOCKED) catalog_search_delta');
  let t = performance.now();
  await knex.raw('ANALYZE catalog_items');
  const analyzeMs = Math.round(performance.now() - t);
  t = performance.now();
  const merged: Record<string, number> = {};
  for (const index of SEARCH_GIN_INDEXES) {
    // The index names are the constants above, never input.
    const { rows } = await knex.raw('SELECT gin_clean_pending_list(?::regclass)::bigint AS pages', [index]);
    merged[index] = Number(rows[0].pages);
  }
  const pendingMs = Math.round(performance.now() - t);
  let vacuum: SettleReport['vacuum'] = 'off';
  t = performance.now();
  if (options.vacuum ?? true) vacuum = (await vacuumItems(knex)) ? 'done' : 'skipped';
  const vacuumMs = Math.round(performance.now() - t);
  const fill = await compactFillCounts(knex, catalogId);
  return {
    analyze_ms: analyzeMs,
    pending_pages_merged: merged,
    pending_ms: pendingMs,
    vacuum,
    vacuum_ms: vacuumMs,
    fill_counts: fill,
    search_delta: searchDelta,
  };
}

/**
 * `VACUUM (SKIP_LOCKED) catalog_items`.
 * @returns false when the table was skipped (its lock held by another maintenance statement),
 *   read from the vacuum count in the table's statistics
 */
async function vacuumItems(knex: Knex): Promise<boolean> {
  const count = async () => {
    const { rows } = await knex.raw(
      "SELECT pg_stat_clear_snapshot(), vacuum_count + autovacuum_count AS n FROM pg_stat_user_tables WHERE relid = 'catalog_items'::regclass",
    );
    return Number(rows[0].n);
  };
  const before = await count();
  await knex.raw('VACUUM (SKIP_LOCKED) catalog_items');
  return (await count()) > before;
}
