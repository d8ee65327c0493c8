/**
 * Folding the search count index's delta into its postings (docs/large-catalogs.md "Search
 * right after churn"; the index and its delta: search-count-index.ts, migration 20261205090000).
 *
 * Every write to an indexed catalog logs each changed item's current word vector in
 * `catalog_search_delta`, in the writing statement; counts correct the index's postings with it.
 * A fold moves the delta into the postings of the words it touches, so counts stay cheap after
 * any amount of churn without a full rebuild (a rebuild reads the whole catalog four times:
 * 215 s at 200,000 items under load; a fold reads only the changed items' logged vectors).
 *
 * One REPEATABLE READ transaction under the catalog's build lock (the advisory lock
 * `catalog-search-index:<catalog_id>` of buildSearchIndex), so a fold and a build never
 * interleave, and a crash loses nothing: the fold commits whole or not at all, and the delta
 * it folds is deleted in the same transaction. Writers never wait for it: the delta is
 * append-only, and a write that commits after the fold's snapshot keeps its rows (log position
 * above the folded one) for the next fold.
 * Set-based SQL by design (docs/architecture.md "3. Which data-access style when"): derived index data.
 */
import type { Knex } from 'knex';

/** What {@link foldSearchDelta} did. */
export interface SearchDeltaFold {
  catalog_id: string;
  /** Delta rows folded (items logged, counted once per write statement). */
  rows: number;
  /** Distinct items folded; of them `added` got a slot (new items), `removed` lost theirs (deleted). */
  items: number;
  added: number;
  removed: number;
  /** Postings rows (token × block) written or deleted. */
  postings_written: number;
  /** Items in the index afterwards (slots held), its frequency threshold and tokens. */
  index_items: number;
  min_df: number;
  tokens: number;
  ms: number;
}

/** Options of {@link foldSearchDelta}. */
export interface FoldOptions {
  /**
   * Fold only when the delta holds at most this share of the index's items (default: any).
   * The build activity passes 0.5: a larger delta is cheaper to rebuild than to fold, and a
   * rebuild also gives tokens to words that became frequent since.
   */
  maxShare?: number;
}

/**
 * Folds the catalog's delta into its search count index (see the module comment): for every
 * item logged since the build or the last fold, its latest logged vector replaces what the
 * postings held (the item's slot taken out of every postings row of its block, then put into
 * the rows of the words it holds now: `w:` tokens of frequent words, `p:` tokens of prefixes of
 * its rare words, as a build does); new items get slots after the last one, deleted items lose
 * theirs; the `df` of the touched words is recounted; the folded delta rows are deleted and the
 * index's log position advanced to the fold's snapshot. Words that became frequent since the
 * build get no token (their counts stay exact through the rare-part GIN look-up) until a rebuild.
 * Idempotent (a second fold finds nothing); nothing to do while the catalog has no index.
 * @returns the figures, or null when there is no index, another build or fold holds the
 *   catalog's lock, the delta is over `maxShare`, or a build committed meanwhile (try again)
 * @throws the database's error (the calling activity retries)
 */
export async function foldSearchDelta(knex: Knex, catalogId: string, options: FoldOptions = {}): Promise<SearchDeltaFold | null> {
  const t0 = performance.now();
  try {
    return await knex.transaction((trx) => foldIn(trx, catalogId, options, t0), { isolationLevel: 'repeatable read' });
  } catch (err) {
    // A build or fold committed between this snapshot and the lock (serialization failure on the index row).
    if ((err as { code?: string }).code === '40001') return null;
    throw err;
  }
}

async function foldIn(trx: Knex.Transaction, catalogId: string, options: FoldOptions, t0: number): Promise<SearchDeltaFold | null> {
  const lock = await trx.raw('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS ok', [`catalog-search-index:${catalogId}`]);
  if (!lock.rows[0].ok) return null;
  // FOR UPDATE: a build or fold that committed after this transaction's snapshot (taken just
  // before the lock) updated this row; locking it then fails with a serialization error.
  const {
    rows: [st],
  } = await trx.raw(
    `SELECT c.search_indexed, c.search_logged::text AS upto, i.logged::text AS logged, (c.search_logged - i.logged)::bigint AS pending,
            i.block_size, i.next_slot, i.item_count, i.min_df, i.token_count
     FROM catalogs c JOIN catalog_search_index i ON i.catalog_id = c.id WHERE c.id = ? FOR UPDATE OF i`,
    [catalogId],
  );
  if (!st?.search_indexed) return null;
  const figures = (rows: number, items: number, added: number, removed: number, written: number, indexItems: number): SearchDeltaFold => ({
    catalog_id: catalogId,
    rows,
    items,
    added,
    removed,
    postings_written: written,
    index_items: indexItems,
    min_df: st.min_df,
    tokens: st.token_count,
    ms: Math.round(performance.now() - t0),
  });
  const pending = Number(st.pending);
  if (pending <= 0) return figures(0, 0, 0, 0, 0, st.item_count);
  if (options.maxShare !== undefined && pending > options.maxShare * Math.max(1, st.item_count)) return null;
  await trx.raw("SET LOCAL work_mem = '256MB'; SET LOCAL jit = off");
  const bs = Number(st.block_size);
  // The folded items: latest logged vector (NULL: deleted), slot in the index (NULL: new), and
  // the slot they hold after the fold (new items numbered after next_slot in id order).
  await trx.raw(
    `CREATE TEMP TABLE fold_items ON COMMIT DROP AS
     SELECT x.item_id, x.tsv, x.old_slot,
            CASE WHEN x.tsv IS NULL THEN NULL WHEN x.old_slot IS NOT NULL THEN x.old_slot
                 ELSE ?::int + (count(*) FILTER (WHERE x.old_slot IS NULL AND x.tsv IS NOT NULL) OVER (ORDER BY x.item_id))::int - 1 END AS slot
     FROM (SELECT d.item_id, d.tsv, s.slot AS old_slot
           FROM (SELECT DISTINCT ON (item_id) item_id, tsv FROM catalog_search_delta
                 WHERE catalog_id = ? AND upto > ? AND upto <= ? ORDER BY item_id DESC, upto DESC) d
           LEFT JOIN catalog_search_slots s ON s.catalog_id = ? AND s.item_id = d.item_id) x`,
    [st.next_slot, catalogId, st.logged, st.upto, catalogId],
  );
  const {
    rows: [counts],
  } = await trx.raw(
    `SELECT count(*)::int AS items, count(*) FILTER (WHERE old_slot IS NULL AND tsv IS NOT NULL)::int AS added,
            count(*) FILTER (WHERE old_slot IS NOT NULL AND tsv IS NULL)::int AS removed,
            (SELECT count(*) FROM catalog_search_delta WHERE catalog_id = ? AND upto > ? AND upto <= ?)::int AS rows
     FROM fold_items`,
    [catalogId, st.logged, st.upto],
  );
  await trx.raw(
    `INSERT INTO catalog_search_slots (catalog_id, item_id, slot) SELECT ?::uuid, item_id, slot FROM fold_items WHERE old_slot IS NULL AND slot IS NOT NULL`,
    [catalogId],
  );
  await trx.raw(
    `DELETE FROM catalog_search_slots s USING fold_items f WHERE s.catalog_id = ? AND s.item_id = f.item_id AND f.tsv IS NULL AND f.old_slot IS NOT NULL`,
    [catalogId],
  );
  // What the folded items hold now, by token and block (the build's rules: `w:` for frequent
  // words, `p:` for the prefixes of the other words), and, per block, the slots to take out of
  // every postings row first (the items' slots before the fold).
  await trx.raw('CREATE TEMP TABLE fold_tokens ON COMMIT DROP AS SELECT token FROM catalog_search_tokens WHERE catalog_id = ?', [catalogId]);
  await trx.raw('ANALYZE fold_tokens');
  await trx.raw(
    `CREATE TEMP TABLE fold_words ON COMMIT DROP AS
     SELECT f.slot, x.w, t.token IS NOT NULL AS frequent
     FROM fold_items f CROSS JOIN LATERAL unnest(tsvector_to_array(f.tsv)) AS x(w) LEFT JOIN fold_tokens t ON t.token = 'w:' || x.w
     WHERE f.tsv IS NOT NULL`,
  );
  await trx.raw(
    `CREATE TEMP TABLE fold_add ON COMMIT DROP AS
     SELECT 'w:' || w AS token, slot / ${bs} AS blk, sort(array_agg(slot)) AS slots FROM fold_words WHERE frequent GROUP BY 1, 2
     UNION ALL
     SELECT 'p:' || left(w, k), slot / ${bs}, uniq(sort(array_agg(slot)))
     FROM fold_words CROSS JOIN LATERAL generate_series(1, length(w)) AS k
     WHERE NOT frequent AND 'p:' || left(w, k) IN (SELECT token FROM fold_tokens)
     GROUP BY 1, 2`,
  );
  await trx.raw(
    `CREATE TEMP TABLE fold_out ON COMMIT DROP AS
     SELECT old_slot / ${bs} AS blk, sort(array_agg(old_slot)) AS slots FROM fold_items WHERE old_slot IS NOT NULL GROUP BY 1`,
  );
  await trx.raw('ANALYZE fold_add; ANALYZE fold_out');
  await trx.raw(
    `CREATE TEMP TABLE fold_new ON COMMIT DROP AS
     SELECT coalesce(p.token, a.token) AS token, coalesce(p.blk, a.blk) AS blk, p.slots AS old,
            (coalesce(p.slots, '{}'::int4[]) - coalesce(o.slots, '{}'::int4[])) | coalesce(a.slots, '{}'::int4[]) AS slots
     FROM (SELECT token, blk, slots FROM catalog_search_postings
           WHERE catalog_id = ? AND (blk IN (SELECT blk FROM fold_out) OR (token, blk) IN (SELECT token, blk FROM fold_add))) p
     FULL JOIN fold_add a ON a.token = p.token AND a.blk = p.blk
     LEFT JOIN fold_out o ON o.blk = coalesce(p.blk, a.blk)`,
    [catalogId],
  );
  const deleted = (
    await trx.raw(
      `DELETE FROM catalog_search_postings p USING fold_new n
       WHERE p.catalog_id = ? AND p.token = n.token AND p.blk = n.blk AND cardinality(n.slots) = 0`,
      [catalogId],
    )
  ).rowCount as number;
  const written = (
    await trx.raw(
      `INSERT INTO catalog_search_postings (catalog_id, token, blk, slots)
       SELECT ?::uuid, token, blk, slots FROM fold_new WHERE cardinality(slots) > 0 AND slots IS DISTINCT FROM old
       ON CONFLICT (catalog_id, token, blk) DO UPDATE SET slots = EXCLUDED.slots`,
      [catalogId],
    )
  ).rowCount as number;
  // Item counts of the touched frequent words (prefix tokens keep theirs: an occurrence count
  // the postings cannot give back, used only as a plan estimate).
  await trx.raw(
    `UPDATE catalog_search_tokens t
     SET df = coalesce((SELECT sum(icount(p.slots)) FROM catalog_search_postings p WHERE p.catalog_id = t.catalog_id AND p.token = t.token), 0)
     WHERE t.catalog_id = ? AND t.token IN (SELECT DISTINCT token FROM fold_new WHERE token LIKE 'w:%' AND slots IS DISTINCT FROM old)`,
    [catalogId],
  );
  await trx.raw('DELETE FROM catalog_search_delta WHERE catalog_id = ? AND upto <= ?', [catalogId, st.upto]);
  const indexItems = st.item_count + counts.added - counts.removed;
  await trx.raw('UPDATE catalog_search_index SET logged = ?, next_slot = ?, item_count = ? WHERE catalog_id = ?', [
    st.upto,
    st.next_slot + counts.added,
    indexItems,
    catalogId,
  ]);
  return figures(counts.rows, counts.items, counts.added, counts.removed, written + deleted, indexItems);
}
