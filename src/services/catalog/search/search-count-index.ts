import type { Knex } from 'knex';
import type { SearchIndexBuild } from '../../../contracts/workflows';
import { Catalog } from '../../../models/catalog';
import { pendingWordMatches, wordsColumn } from './search-words';

/**
 * Search count index (migration 20261121190500): exact totals of word searches on large
 * catalogs without reading the heap (docs/api-reference.md "Items": `total` is exact).
 *
 * An exact `count(*)` through the word GIN index reads every matching heap page (PostgreSQL
 * no longer skips all-visible pages in bitmap heap scans), so a word in 250,000 of 1,000,000
 * items costs ~0.6–1.4 s. This index keeps, per catalog, the items of each frequent word as
 * sorted slot arrays in blocks of {@link SEARCH_INDEX_BLOCK} slots; a count is then a few
 * array intersections. Words and prefixes in fewer than `min_df` items are not kept: a search
 * that contains one is counted through the GIN index restricted to those rare parts, which
 * reads at most ~`min_df` rows.
 *
 * The index is built from one snapshot ({@link buildSearchIndex}) by a durable Temporal
 * workflow (searchIndexBuildWorkflow, workflows/search-index-build.ts; docs/architecture.md "The shape":
 * everything long and retryable runs in Temporal), never in the API process. Every write after
 * that snapshot is logged by a trigger in the writing statement: each changed item's word vector
 * before and after the write (`catalog_search_delta`, migration 20261205090000), and a count
 * corrects the index's answer from those rows alone, without visiting the items or their slots
 * ({@link countWithSearchIndex}), so totals are exact and stay fast at any age. The delta is
 * folded into the postings of the words it touches by `foldSearchDelta` (search-count-fold.ts),
 * in the settle step that ends a large write (`settleAfterLargeWrite`) and in the build
 * workflow when the index only needs catching up.
 * Past {@link SEARCH_INDEX_MAX_PENDING} logged rows (or while there is no index), counts fall
 * back to the GIN count and the search asks for a rebuild (search-index-requests.ts
 * `requestSearchIndexBuild`); past {@link SEARCH_INDEX_FOLD_AT} they still use the index and ask
 * for a fold.
 */

/** Slots per postings row: 16 rows per word for 1,000,000 items. */
const SEARCH_INDEX_BLOCK = 65536;

/** Catalogs with fewer items are not indexed automatically (their GIN counts read ≤ this many rows). */
export const SEARCH_INDEX_MIN_ITEMS = 50000;

/**
 * Most delta rows (items changed since the build or the last fold) a count corrects the index
 * with. A count reads only the rows whose change touches its words (GIN on their `diff`), each
 * ~1–1.5 µs on a loaded 2-core machine (docs/large-catalogs.md "Figures after churn"), so
 * 250,000 rows all touching a term would cost ~0.3 s, below the GIN count they replace; more is
 * rebuilt.
 */
export const SEARCH_INDEX_MAX_PENDING = 250000;

/** Delta rows from which a count asks for a fold (the count itself still uses the index). */
export const SEARCH_INDEX_FOLD_AT = 5000;

/**
 * The frequency threshold of a catalog: words and prefixes in at least this many items get
 * postings. 0.2% of the items, at least 500: a rare part then costs at most ~2,000 row reads
 * on 1,000,000 items (~10 ms), and the index holds ~1,000 words of a typical product catalog.
 */
function defaultMinDf(itemCount: number): number {
  return Math.max(500, Math.ceil(itemCount / 500));
}

/**
 * Builds (or rebuilds) the search count index of one catalog.
 *
 * First sets `catalogs.search_indexed` in its own transaction (the UPDATE waits for writers
 * holding the catalog row, so every write not in the build's snapshot is logged); then, in one
 * REPEATABLE READ transaction: the catalog's vocabulary with item counts, the frequent words
 * (`w:` tokens, count ≥ `minDf`) and prefixes (`p:` tokens, occurrences of the words under
 * them ≥ `minDf`), slots by item id, the postings of frequent words, and for each prefix the
 * postings of its rare words; the log entries the snapshot already contains are deleted.
 * Reads the catalog's items four times (~2 min on 1,000,000 items on a loaded 2-core machine).
 * @param opts.minDf frequency threshold (default {@link defaultMinDf} of the item count)
 * @returns the build's figures, or null when another build of the catalog holds its lock or
 *   the catalog is gone
 */
export async function buildSearchIndex(knex: Knex, catalogId: string, opts: { minDf?: number } = {}): Promise<SearchIndexBuild | null> {
  const t0 = performance.now();
  // Turning the index on again: changes made while it was off were not logged, so a window of
  // pending words begun before cannot rely on the delta (search-words.ts pendingWordMatches).
  await Catalog.query(knex).where('id', catalogId).where('search_indexed', false).patch({ search_indexed: true, search_words_pending_from: null });
  return knex.transaction(
    async (trx) => {
      const lock = await trx.raw('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS ok', [`catalog-search-index:${catalogId}`]);
      if (!lock.rows[0].ok) return null;
      const {
        rows: [cat],
      } = await trx.raw('SELECT search_indexed, search_logged::text AS logged FROM catalogs WHERE id = ?', [catalogId]);
      if (!cat?.search_indexed) return null;
      // The vocabulary aggregate and the postings' array_agg are large hash aggregates; JIT would
      // compile them for tens of ms per statement for nothing. Every join here is between whole
      // sets: a nested loop (which stale statistics of catalog_items can make look cheap) would
      // rescan the slot table per item.
      await trx.raw("SET LOCAL work_mem = '256MB'; SET LOCAL jit = off; SET LOCAL enable_nestloop = off");
      for (const table of ['catalog_search_postings', 'catalog_search_tokens', 'catalog_search_slots']) {
        await trx.raw(`DELETE FROM ${table} WHERE catalog_id = ?`, [catalogId]);
      }
      await trx.raw(
        `CREATE TEMP TABLE search_slot ON COMMIT DROP AS
       SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS slot FROM catalog_items WHERE catalog_id = ?`,
        [catalogId],
      );
      const items = (await trx.raw('SELECT count(*)::int AS n FROM search_slot')).rows[0].n as number;
      const minDf = opts.minDf ?? defaultMinDf(items);
      await trx.raw(
        `CREATE TEMP TABLE search_vocab ON COMMIT DROP AS
       SELECT w, count(*)::int AS df FROM catalog_items, unnest(tsvector_to_array(${wordsColumn(true)})) AS w WHERE catalog_id = ? GROUP BY w`,
        [catalogId],
      );
      await trx.raw('CREATE TEMP TABLE search_frequent ON COMMIT DROP AS SELECT w, df FROM search_vocab WHERE df >= ?', [minDf]);
      await trx.raw(
        `CREATE TEMP TABLE search_prefix ON COMMIT DROP AS
       SELECT left(w, k) AS p, sum(df) AS df FROM search_vocab, generate_series(1, length(w)) AS k GROUP BY 1 HAVING sum(df) >= ?`,
        [minDf],
      );
      await trx.raw('ANALYZE search_slot; ANALYZE search_frequent; ANALYZE search_prefix');
      await trx.raw('INSERT INTO catalog_search_slots (catalog_id, item_id, slot) SELECT ?::uuid, id, slot FROM search_slot', [catalogId]);
      const tokens = (
        await trx.raw(
          `INSERT INTO catalog_search_tokens (catalog_id, token, df)
       SELECT ?::uuid, 'w:' || w, df FROM search_frequent UNION ALL SELECT ?::uuid, 'p:' || p, least(df, 2147483647)::int FROM search_prefix`,
          [catalogId, catalogId],
        )
      ).rowCount as number;
      await trx.raw(
        `INSERT INTO catalog_search_postings (catalog_id, token, blk, slots)
       SELECT ?::uuid, 'w:' || x.w, s.slot / ${SEARCH_INDEX_BLOCK}, sort(array_agg(s.slot))
       FROM catalog_items ci JOIN search_slot s ON s.id = ci.id CROSS JOIN LATERAL unnest(tsvector_to_array(${wordsColumn(true, 'ci')})) AS x(w)
       WHERE ci.catalog_id = ? AND x.w IN (SELECT w FROM search_frequent)
       GROUP BY x.w, s.slot / ${SEARCH_INDEX_BLOCK}`,
        [catalogId, catalogId],
      );
      await trx.raw(
        `INSERT INTO catalog_search_postings (catalog_id, token, blk, slots)
       SELECT ?::uuid, 'p:' || left(x.w, k), s.slot / ${SEARCH_INDEX_BLOCK}, uniq(sort(array_agg(s.slot)))
       FROM catalog_items ci JOIN search_slot s ON s.id = ci.id CROSS JOIN LATERAL unnest(tsvector_to_array(${wordsColumn(true, 'ci')})) AS x(w)
         CROSS JOIN LATERAL generate_series(1, length(x.w)) AS k
       WHERE ci.catalog_id = ? AND x.w NOT IN (SELECT w FROM search_frequent) AND left(x.w, k) IN (SELECT p FROM search_prefix)
       GROUP BY left(x.w, k), s.slot / ${SEARCH_INDEX_BLOCK}`,
        [catalogId, catalogId],
      );
      await trx.raw('DELETE FROM catalog_search_delta WHERE catalog_id = ? AND upto <= ?', [catalogId, cat.logged]);
      // Fresh statistics for the readers' plans (autovacuum may lag behind a large build).
      await trx.raw('ANALYZE catalog_search_postings, catalog_search_tokens, catalog_search_slots');
      const buildMs = Math.round(performance.now() - t0);
      await trx.raw(
        `INSERT INTO catalog_search_index (catalog_id, logged, min_df, block_size, item_count, next_slot, token_count, build_ms, built_at)
       VALUES (?, ?, ?, ${SEARCH_INDEX_BLOCK}, ?, ?, ?, ?, now())
       ON CONFLICT (catalog_id) DO UPDATE SET logged = EXCLUDED.logged, min_df = EXCLUDED.min_df, block_size = EXCLUDED.block_size,
         item_count = EXCLUDED.item_count, next_slot = EXCLUDED.next_slot, token_count = EXCLUDED.token_count, build_ms = EXCLUDED.build_ms,
         built_at = EXCLUDED.built_at`,
        [catalogId, cat.logged, minDf, items, items, tokens, buildMs],
      );
      return { catalog_id: catalogId, items, tokens, min_df: minDf, build_ms: buildMs };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/**
 * Outcome of {@link countWithSearchIndex}: the exact total, how it was counted (`index`:
 * postings corrected by the delta; `rare`: GIN look-up of the term's rare parts, each candidate
 * re-checked) and the delta rows pending a fold (`pending`), or why the caller must count
 * another way.
 */
export type SearchIndexCount = { total: number; path: 'index' | 'rare'; pending: number } | { fallback: 'missing' | 'stale' | 'no_words' | 'words_pending' };

/** A word as a tsquery lexeme literal (`'word'`); words are runs of letters and digits. */
function lexeme(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * The exact number of the catalog's items matching a words-only search term (every word but
 * the last a whole word of the item's text values, the last a word prefix; the same split as
 * SQL `catalog_item_search_query`), read in the caller's transaction (REPEATABLE READ, so the
 * index, its delta and the items are one snapshot).
 *
 * - Every whole word frequent and the last word a frequent prefix: per block, the intersection
 *   of the whole words' slots, intersected with the union of the prefix's frequent words and
 *   its rare-word postings; then corrected by the delta, the items changed since the build or
 *   the last fold (minus those whose vector before the changes matched, plus those whose
 *   vector after them matches).
 * - Else the term has a rare part: a GIN look-up of the rare parts only (≤ ~`min_df` + changes
 *   rows), each candidate re-checked against the whole term (the GIN index is current: no
 *   delta needed).
 * @param term the search term, lower-cased; must hold only letters, digits and white space
 *   (terms with other characters also need a literal match, which the index cannot answer)
 * @returns the total, or a fallback reason: no index (or disabled), more than
 *   {@link SEARCH_INDEX_MAX_PENDING} changes since the build, no word in the term, or a rare part
 *   while the word index is behind a large restore or apply (`words_pending`: its GIN look-up
 *   would miss rows, src/services/catalog/search/search-words.ts; the postings count is exact
 *   then too, since they and the delta hold current vectors)
 */
export async function countWithSearchIndex(trx: Knex.Transaction, catalogId: string, term: string): Promise<SearchIndexCount> {
  const {
    rows: [st],
  } = await trx.raw(
    `SELECT c.search_indexed, c.search_words_pending, (c.search_logged - i.logged)::int AS pending, i.logged::text AS logged, i.block_size, i.item_count
     FROM catalogs c LEFT JOIN catalog_search_index i ON i.catalog_id = c.id WHERE c.id = ?`,
    [catalogId],
  );
  if (!st?.search_indexed || st.logged === null) return { fallback: 'missing' };
  if (st.pending > SEARCH_INDEX_MAX_PENDING) return { fallback: 'stale' };
  const words: string[] = (
    await trx.raw(
      `SELECT coalesce(array_agg(w ORDER BY n), '{}') AS words
     FROM regexp_split_to_table(lower(?), '[^[:alnum:]]+') WITH ORDINALITY AS t(w, n) WHERE w <> '' AND octet_length(w) < 2047`,
      [term],
    )
  ).rows[0].words;
  if (words.length === 0) return { fallback: 'no_words' };
  const prefix = words[words.length - 1];
  const whole = [...new Set(words.slice(0, -1))];
  /** Token → df (`w:` items with the word; `p:` occurrences of all words under the prefix). */
  const known = new Map<string, number>(
    (
      await trx.raw('SELECT token, df FROM catalog_search_tokens WHERE catalog_id = ? AND (token = ANY(?::text[]) OR token LIKE ?)', [
        catalogId,
        [...whole.map((w) => `w:${w}`), `p:${prefix}`],
        `w:${prefix}%`,
      ])
    ).rows.map((r: { token: string; df: number }) => [r.token, r.df]),
  );

  const rare = whole.filter((w) => !known.has(`w:${w}`)).map(lexeme);
  if (!known.has(`p:${prefix}`)) rare.push(`${lexeme(prefix)}:*`);
  if (rare.length > 0) {
    // The rare parts are looked up in the word index, which misses pending words: add the items
    // whose pending words may match (search-words.ts pendingWordMatches), when the delta knows them.
    const pendingIds = st.search_words_pending ? await pendingWordMatches(trx, catalogId, term) : null;
    if (st.search_words_pending && pendingIds === null) return { fallback: 'words_pending' };
    return { total: await countRare(trx, catalogId, rare, term, pendingIds), path: 'rare', pending: st.pending };
  }
  // The postings hold each item's current vector at the build (pending or not) and the delta every change since: exact either way.
  return { total: await countByPostings(trx, catalogId, st, term, whole, prefix, known), path: 'index', pending: st.pending };
}

/**
 * The rare-part count of {@link countWithSearchIndex}: the GIN look-up of the term's rare parts
 * (`rare`: tsquery lexemes, the last possibly a prefix), each candidate re-checked against the
 * whole term. The planner must look up only the rare parts in the GIN index (OFFSET 0 keeps the
 * full condition out of the index scan, whose frequent parts would read large posting lists).
 * `pendingIds` (while the word index is behind): the items whose pending words may match join the
 * candidates, and each is checked against its current vector; null when the index is current.
 */
async function countRare(trx: Knex.Transaction, catalogId: string, rare: string[], term: string, pendingIds: string[] | null): Promise<number> {
  const pending = pendingIds !== null;
  const candidates = pending ? '(search_tsv @@ ?::tsquery OR id = ANY(?::uuid[]))' : 'search_tsv @@ ?::tsquery';
  const { rows } = await trx.raw(
    `SELECT count(*)::int AS n FROM (
       SELECT search_tsv, search_tsv_pending FROM catalog_items WHERE catalog_id = ? AND ${candidates} OFFSET 0) AS candidates
     WHERE ${wordsColumn(pending)} @@ catalog_item_search_query(?)`,
    [catalogId, rare.join(' & '), ...(pending ? [pendingIds] : []), term],
  );
  return rows[0].n;
}

/** The index's state read by {@link countWithSearchIndex}: delta rows logged since the build or last fold, its log position, block size and slot count. */
interface IndexState {
  pending: number;
  logged: string;
  block_size: number;
  item_count: number;
}

/**
 * The postings count of {@link countWithSearchIndex} (every part of the term frequent): per
 * block, the whole words' slots intersected with the prefix group's union, corrected by the
 * delta: the items changed since the build or the last fold (those whose vector before the
 * changes matched are taken off, those whose vector after them matches added). A whole word in
 * every indexed item narrows nothing and is left out of the intersection.
 * @param known token → df of the term's tokens in the index
 */
async function countByPostings(
  trx: Knex.Transaction,
  catalogId: string,
  st: IndexState,
  term: string,
  whole: string[],
  prefix: string,
  known: Map<string, number>,
): Promise<number> {
  // A whole word every indexed item holds (its `df`, recounted by each fold, equals the index's
  // item count) leaves the intersection as it is: its postings (every slot, up to 4 MB at
  // 1,000,000 items) are not read. The delta below still checks the whole term.
  const wholeTokens = whole.map((w) => `w:${w}`).filter((t) => known.get(t) !== st.item_count);
  const group = [...known.keys()].filter((t) => t === `p:${prefix}` || t.startsWith(`w:${prefix}`));
  // m: per block, the slots matching the term in the index's snapshot. The prefix group's
  // postings are read by token first (MATERIALIZED: the planner must not scan every token of a
  // block) and merged per block in two levels (unions of parts of 8, then of those), so a
  // prefix with a hundred frequent words (`1`) copies the growing union ~15 times, not 100.
  // With whole words, either each group member is intersected with the whole words' slots
  // before the union (cheap when they are few), or the group's union is built first and
  // intersected once (cheap when the group is large and the whole words common): whichever
  // merges fewer slots by the token counts (independent words assumed).
  const n = Math.max(1, st.item_count as number);
  const parts = Math.ceil(group.length / 8);
  const wholeEstimate = wholeTokens.reduce((acc, t) => (acc * (known.get(t) as number)) / n, n);
  const unionEstimate = Math.min(n, known.get(`p:${prefix}`) as number);
  const intersectFirst = group.length * wholeEstimate < (parts + 1) * unionEstimate;
  const g = `g AS MATERIALIZED (SELECT blk, slots, row_number() OVER (PARTITION BY blk) / 8 AS part
                                FROM catalog_search_postings WHERE catalog_id = ? AND token = ANY(?::text[]))`;
  const u = `u AS (SELECT blk, catalog_search_union_agg(s) AS s
                   FROM (SELECT blk, catalog_search_union_agg(slots) AS s FROM g GROUP BY blk, part) AS parts GROUP BY blk)`;
  const i = `i AS (SELECT blk, catalog_search_inter_agg(slots) AS s FROM catalog_search_postings
                   WHERE catalog_id = ? AND token = ANY(?::text[]) GROUP BY blk HAVING count(*) = ?)`;
  const matched =
    wholeTokens.length === 0
      ? { sql: `${g}, ${u}, m AS (SELECT blk, s FROM u)`, bindings: [catalogId, group] }
      : {
          sql: intersectFirst
            ? `${i}, ${g}, m AS (SELECT blk, catalog_search_union_agg(s) AS s
                               FROM (SELECT i.blk, catalog_search_union_agg(i.s & g.slots) AS s FROM i JOIN g ON g.blk = i.blk GROUP BY i.blk, g.part) AS parts
                               GROUP BY blk)`
            : `${i}, ${g}, ${u}, m AS (SELECT i.blk, i.s & u.s AS s FROM i JOIN u ON u.blk = i.blk)`,
          bindings: [catalogId, wholeTokens, wholeTokens.length, catalogId, group],
        };
  // The delta (only when rows are logged): an item's logged rows chain (each row's old vector is
  // the previous row's new one, the first one's what the postings hold; migration
  // 20261205090000), so the rows whose new vector matches minus those whose old vector matches
  // is the change of the count since the postings. A row whose change (`diff`) holds none of the
  // term's words, nor a word under its prefix, matches before and after alike: only the rows the
  // GIN index on `diff` finds for the term are read. No item is read.
  // The catalog's condition is written `(catalog_id = ?) IS TRUE`, which no index answers, so the
  // rows come from the `diff` GIN index alone: right after a large write the planner may still see
  // the delta table as the settle left it (empty) and walk the primary key over every row of the
  // catalog instead (100,000 rows, 80–130 ms per count at 1,000,000 items; docs/large-catalogs.md
  // "Search right after churn").
  const touches = [...new Set(whole)]
    .map(lexeme)
    .concat(`${lexeme(prefix)}:*`)
    .join(' | ');
  const delta =
    st.pending > 0
      ? {
          select: `(SELECT count(*) FILTER (WHERE tsv @@ q) - count(*) FILTER (WHERE old_tsv @@ q)
                    FROM catalog_search_delta, catalog_item_search_query(?) AS q
                    WHERE (catalog_id = ?) IS TRUE AND upto > ? AND diff @@ ?::tsquery)::int AS delta`,
          bindings: [term, catalogId, st.logged, touches],
        }
      : { select: '0 AS delta', bindings: [] };
  const {
    rows: [base],
  } = await trx.raw(`WITH ${matched.sql} SELECT (SELECT coalesce(sum(icount(s)), 0) FROM m)::int AS total, ${delta.select}`, [
    ...matched.bindings,
    ...delta.bindings,
  ]);
  return (base.total as number) + (base.delta as number);
}
