/**
 * Maintenance of the item search indexes (search stays within target after restores,
 * bulk updates and deletes). The GIN indexes over item words and trigrams only grow under churn:
 * every non-HOT update and delete leaves entries VACUUM cannot compact, so after heavy churn an
 * identifier search read 437 index pages instead of 18 (docs/benchmarks.md, search-list). This
 * rebuilds an index (`REINDEX INDEX CONCURRENTLY`: reads and writes go on meanwhile) when its
 * size per live row has grown past `maxBloat` × its size per row right after its last rebuild
 * (`search_index_baselines`), and flushes the GIN index's pending list otherwise. Run hourly by the
 * Temporal schedule `search-index-maintenance` (workflows/search-index-maintenance.ts), and right
 * after a restore, import or apply that rewrote a large share of a catalog
 * ({@link churnWarrantsMaintenance}, workflows/churn-maintenance.ts).
 * Set-based SQL by design (docs/architecture.md "3. Which data-access style when"): catalog statistics and DDL.
 */
import type { Knex } from 'knex';

/**
 * The maintained indexes of `catalog_items`: the GIN word index every search reads (migration
 * 20261121130000) and the B-tree that list pages walk in order (migration 20261121110000).
 */
export const MAINTAINED_INDEXES = [
  { name: 'catalog_items_search_words', gin: true },
  { name: 'catalog_items_catalog_id_created_at_id_index', gin: false },
] as const;

/** Options of {@link maintainSearchIndexes}. */
export interface MaintenanceOptions {
  /** Rebuild when the size per row exceeds this multiple of the baseline (default 1.5). */
  maxBloat?: number;
  /** Tables with fewer live rows are left alone: their indexes are small whatever they hold (default 10,000). */
  minRows?: number;
  /** A rewrite of at least this many items always warrants a pass (churnWarrantsMaintenance; default 50,000). */
  churnRows?: number;
  /** A rewrite of at least this share of the catalog's items warrants a pass (default 0.1) … */
  churnShare?: number;
  /** … when it rewrote at least this many items (default 1,000, as the workflows' CHURN_MIN_ROWS: tiny catalogs never do). */
  churnMinRows?: number;
}

/**
 * Whether a restore, import or apply that rewrote `rows` items of a catalog warrants a search
 * index maintenance pass right away ("fast right after churn";
 * workflows/churn-maintenance.ts): at least `churnRows` (50,000) items, or at least
 * `churnShare` (10 %) of the catalog's items (its `item_count` now, or `rows` when larger) and at
 * least `churnMinRows` (1,000). A gone catalog warrants nothing.
 */
export async function churnWarrantsMaintenance(knex: Knex, catalogId: string, rows: number, options: MaintenanceOptions = {}): Promise<boolean> {
  const churnRows = options.churnRows ?? 50_000;
  const churnShare = options.churnShare ?? 0.1;
  const churnMinRows = options.churnMinRows ?? 1_000;
  const catalog = (await knex('catalogs').where('id', catalogId).first('item_count')) as { item_count: number | string } | undefined;
  if (!catalog) return false;
  if (rows >= churnRows) return true;
  const items = Math.max(Number(catalog.item_count), rows, 1);
  return rows >= churnMinRows && rows / items >= churnShare;
}

/** What maintenance found and did for one index. */
export interface IndexMaintenance {
  index: string;
  rows: number;
  bytes: number;
  bytes_per_row: number;
  /** The size per row after the last rebuild; null before the first one. */
  baseline: number | null;
  /** `rebuilt` (bloated, or no baseline yet), `checked` (within bounds; a GIN pending list merged), or `skipped` (too few rows). */
  action: 'rebuilt' | 'checked' | 'skipped';
  /** Time of the rebuild (ms), when there was one. */
  rebuild_ms?: number;
  /** Size after the rebuild (bytes), when there was one. */
  bytes_after?: number;
}

/**
 * Checks each maintained index and rebuilds the bloated ones (see the module comment).
 * Idempotent and safe to run concurrently with the service: a rebuild of an index already
 * rebuilt is only slower; `REINDEX … CONCURRENTLY` takes no lock that blocks reads or writes.
 * @returns one report per maintained index
 */
export async function maintainSearchIndexes(knex: Knex, options: MaintenanceOptions = {}): Promise<IndexMaintenance[]> {
  const maxBloat = options.maxBloat ?? 1.5;
  const minRows = options.minRows ?? 10_000;
  const {
    rows: [{ n: rows }],
  } = await knex.raw('SELECT count(*)::bigint AS n FROM catalog_items');
  const liveRows = Math.max(1, Number(rows));
  const reports: IndexMaintenance[] = [];
  for (const { name: index, gin } of MAINTAINED_INDEXES) {
    const bytes = await indexBytes(knex, index);
    const base = await knex('search_index_baselines').where({ index_name: index }).first('bytes_per_row');
    const report: IndexMaintenance = {
      index,
      rows: liveRows,
      bytes,
      bytes_per_row: bytes / liveRows,
      baseline: base ? Number(base.bytes_per_row) : null,
      action: 'skipped',
    };
    if (liveRows >= minRows && (report.baseline === null || report.bytes_per_row > report.baseline * maxBloat)) {
      const started = Date.now();
      // The index name is one of the constants above, never input.
      await knex.raw(`REINDEX INDEX CONCURRENTLY ${index}`);
      report.rebuild_ms = Date.now() - started;
      report.bytes_after = await indexBytes(knex, index);
      report.action = 'rebuilt';
      await knex('search_index_baselines')
        .insert({ index_name: index, bytes_per_row: report.bytes_after / liveRows, measured_at: knex.fn.now() })
        .onConflict('index_name')
        .merge();
    } else if (liveRows >= minRows) {
      if (gin) await knex.raw('SELECT gin_clean_pending_list(?::regclass)', [index]);
      report.action = 'checked';
    }
    reports.push(report);
  }
  return reports;
}

async function indexBytes(knex: Knex, index: string): Promise<number> {
  const {
    rows: [{ bytes }],
  } = await knex.raw('SELECT pg_relation_size(?::regclass)::bigint AS bytes', [index]);
  return Number(bytes);
}
