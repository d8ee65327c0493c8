import type { Knex } from 'knex';

/**
 * Search count index: exact search totals of large catalogs without visiting the heap
 * (docs/api-reference.md "Items"; src/services/catalog/search/search-count-index.ts builds and reads it).
 *
 * Why: PostgreSQL's current minor releases no longer let a bitmap heap scan skip all-visible
 * heap pages (the skip-fetch shortcut was unsafe against a concurrent VACUUM, pgsql-hackers
 * 2024-12, "bitmap heap scan … visibility map"; measured on 15.20: a `count(*)` through the word
 * GIN index reads every matching heap page even right after VACUUM). An exact count of a
 * 250,000-match word on 1,000,000 items therefore reads ~166,000 pages (~0.6–1.4 s). This index
 * holds, per catalog, the items of every frequent word as sorted slot arrays, so such a count is
 * a few array intersections (~10 ms).
 *
 * Built in the background (never by a writer), from one snapshot; writes after that snapshot
 * are logged here and applied at read time, so counts stay exact while it ages:
 *
 * - `catalog_search_index`: one row per indexed catalog: the value of
 *   `catalogs.search_logged` the build's snapshot saw (`logged`), the frequency threshold
 *   (`min_df`), the slot block size, and build figures.
 * - `catalog_search_slots`: item id → slot (0-based, dense, by id) at build time.
 * - `catalog_search_tokens`: `w:<word>` for each word in at least `min_df` items (`df` = its
 *   item count); `p:<prefix>` for each prefix whose words have at least `min_df` occurrences in
 *   all (`df` = that sum). Words and prefixes not listed are rare: an index lookup through the
 *   word GIN index reads at most about `min_df` rows plus the logged changes.
 * - `catalog_search_postings`: per token and block of slots, the sorted slots (int4[]; intarray
 *   operators and the two aggregates below intersect and merge them). For `w:` tokens the items
 *   containing the word; for `p:` tokens the items containing a RARE word with that prefix
 *   (the frequent words under the prefix have their own `w:` postings).
 * - `catalogs.search_indexed`: set (in its own transaction, before the build's snapshot) when a
 *   catalog gets an index. From then on the items_rev statement trigger also appends the ids of
 *   the items every INSERT, UPDATE or DELETE touched to `catalog_search_changes`, keyed by
 *   `catalogs.search_logged` after adding their number. The counter is serialized by the catalog
 *   row lock that trigger's UPDATE holds, so the build's snapshot contains exactly the changes
 *   with `upto <= logged`.
 * - Unsearched catalogs cannot grow the log without bound: once more than 1,000,000 ids are
 *   pending, the trigger clears the flag and the log; the next build starts over.
 *
 * Writers of catalogs without an index pay nothing more: the flag comes back from the UPDATE
 * the items_rev trigger already runs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS intarray');
  // Merge aggregates over sorted slot arrays (intarray's linear merges; strict transitions
  // without an initial state, so the first array is the start): intersection and union of all.
  await knex.raw('CREATE AGGREGATE catalog_search_inter_agg(int4[]) (SFUNC = _int_inter, STYPE = int4[])');
  await knex.raw('CREATE AGGREGATE catalog_search_union_agg(int4[]) (SFUNC = _int_union, STYPE = int4[])');

  await knex.raw('ALTER TABLE catalogs ADD COLUMN search_indexed boolean NOT NULL DEFAULT false');
  await knex.raw('ALTER TABLE catalogs ADD COLUMN search_logged bigint NOT NULL DEFAULT 0');

  await knex.raw(`CREATE TABLE catalog_search_index (
    catalog_id uuid PRIMARY KEY REFERENCES catalogs(id) ON DELETE CASCADE,
    logged bigint NOT NULL,
    min_df integer NOT NULL,
    block_size integer NOT NULL,
    item_count integer NOT NULL,
    token_count integer NOT NULL,
    build_ms integer NOT NULL,
    built_at timestamptz NOT NULL DEFAULT now())`);
  await knex.raw(`CREATE TABLE catalog_search_slots (
    catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
    item_id uuid NOT NULL,
    slot integer NOT NULL,
    PRIMARY KEY (catalog_id, item_id))`);
  await knex.raw(`CREATE TABLE catalog_search_tokens (
    catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
    token text COLLATE "C" NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (catalog_id, token))`);
  await knex.raw(`CREATE TABLE catalog_search_postings (
    catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
    token text COLLATE "C" NOT NULL,
    blk integer NOT NULL,
    slots int4[] NOT NULL,
    PRIMARY KEY (catalog_id, token, blk))`);
  await knex.raw(`CREATE TABLE catalog_search_changes (
    catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
    upto bigint NOT NULL,
    ids uuid[] NOT NULL,
    PRIMARY KEY (catalog_id, upto))`);

  // The items_rev statement trigger (migration 20261121170000) already updates the catalog row
  // of every INSERT, UPDATE and DELETE; its UPDATE … RETURNING now also yields the flag. An
  // UPDATE returns the latest committed version of the row (it waits for and then re-reads a
  // concurrent update), so a writer either finished before the flag was set (the flag's UPDATE
  // waited for its row lock, and the build's snapshot starts after that) or sees the flag and
  // logs. Catalogs without an index cost nothing more than before: no second scan of the
  // statement's transition table.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION catalog_items_rev_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
      c record;
      upto bigint;
    BEGIN
      FOR c IN UPDATE catalogs SET items_rev = items_rev + 1 WHERE id IN (SELECT DISTINCT catalog_id FROM changed)
               RETURNING id, search_indexed
      LOOP
        CONTINUE WHEN NOT c.search_indexed;
        UPDATE catalogs SET search_logged = search_logged + (SELECT count(*) FROM changed WHERE catalog_id = c.id)
        WHERE id = c.id RETURNING search_logged INTO upto;
        IF upto - coalesce((SELECT logged FROM catalog_search_index WHERE catalog_id = c.id), 0) > 1000000 THEN
          UPDATE catalogs SET search_indexed = false WHERE id = c.id;
          DELETE FROM catalog_search_changes WHERE catalog_id = c.id;
        ELSE
          INSERT INTO catalog_search_changes (catalog_id, upto, ids)
          SELECT c.id, upto, array_agg(id) FROM changed WHERE catalog_id = c.id;
        END IF;
      END LOOP;
      RETURN NULL;
    END $$`);
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION catalog_items_rev_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE catalogs SET items_rev = items_rev + 1 WHERE id IN (SELECT DISTINCT catalog_id FROM changed);
      RETURN NULL;
    END $$`);
  for (const t of ['catalog_search_changes', 'catalog_search_postings', 'catalog_search_tokens', 'catalog_search_slots', 'catalog_search_index']) {
    await knex.raw(`DROP TABLE IF EXISTS ${t}`);
  }
  await knex.raw('ALTER TABLE catalogs DROP COLUMN IF EXISTS search_logged');
  await knex.raw('ALTER TABLE catalogs DROP COLUMN IF EXISTS search_indexed');
  await knex.raw('DROP AGGREGATE IF EXISTS catalog_search_union_agg(int4[])');
  await knex.raw('DROP AGGREGATE IF EXISTS catalog_search_inter_agg(int4[])');
  // intarray stays: other objects may use it, and dropping an extension is not this migration's call.
}
