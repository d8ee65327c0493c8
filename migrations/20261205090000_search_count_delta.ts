import type { Knex } from 'knex';

/**
 * Search count index delta: exact and fast words-only totals right after a large write
 * (docs/large-catalogs.md "Search right after churn"; src/services/catalog/search/search-count-index.ts
 * reads it, search-count-fold.ts folds it).
 *
 * Before: the items_rev statement trigger logged only the ids of the items each write touched
 * (`catalog_search_changes`), and a count re-read each of them from `catalog_items` (one heap
 * visit per changed item), so past 5,000 changes totals fell back to a GIN bitmap count (every
 * matching heap page) until a full rebuild.
 *
 * Now the trigger logs, per changed item, its word vector before and after the statement
 * (`catalog_search_delta`: `old_tsv` and `tsv`, each `coalesce(search_tsv_pending, search_tsv)`;
 * NULL before an insert and after a delete) with the statement's log position (`upto`), in the
 * writing statement, so the delta commits and rolls back with the write. An UPDATE logs only the
 * items whose vector changed (the UPDATE trigger now also reads the statement's old rows; the
 * completeness trigger captures them already, and PostgreSQL keeps one capture per statement).
 * Writers of one item are serialized by its row lock, so an item's logged rows form a chain (each
 * row's `old_tsv` is the previous row's `tsv`, the first one's the vector the index holds): a
 * count's correction is the delta rows whose `tsv` matches minus those whose `old_tsv` matches,
 * without reading an item or a slot. Only rows whose change touches one of the term's words can
 * differ, so each row also holds `diff`, the lexemes in one vector and not the other (the whole
 * vector for an insert or a delete; a few words for a typical update), under a GIN index
 * (`fastupdate = off`: no pending list for every count to read): a count reads the delta rows
 * whose change touches its words, not the whole delta. `catalogs.search_logged` grows by
 * the rows logged; a statement's rows all carry `upto` = the counter before it + 1, which the
 * counter reaches when the statement commits, so a snapshot holds exactly the delta rows with
 * `upto <= search_logged`.
 *
 * - `catalog_search_delta`: append-only (no writer updates a row, so a fold deleting folded rows
 *   never conflicts with a writer); the latest row per item (highest `upto`) is its state.
 * - `catalog_search_index.next_slot`: the first slot a fold may give a new item (slots are dense
 *   from 0 at a build; only builds and folds, serialized by the catalog's advisory lock, write it).
 *
 * The old log holds item ids only (no vectors before the writes), so the indexes of catalogs with
 * logged writes are dropped (`search_indexed` cleared: counts go through GIN and the next search
 * asks for a rebuild, docs/large-catalogs.md "Search totals"); the others carry on.
 * No index on `catalog_items` is added (updates stay HOT).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE catalog_search_delta (
    catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
    item_id uuid NOT NULL,
    upto bigint NOT NULL,
    old_tsv tsvector,
    tsv tsvector,
    diff tsvector NOT NULL,
    PRIMARY KEY (catalog_id, item_id, upto))`);
  await knex.raw('CREATE INDEX catalog_search_delta_diff ON catalog_search_delta USING gin (diff) WITH (fastupdate = off)');
  await knex.raw('ALTER TABLE catalog_search_index ADD COLUMN next_slot integer');
  await knex.raw('UPDATE catalog_search_index i SET next_slot = i.item_count');
  await knex.raw('ALTER TABLE catalog_search_index ALTER COLUMN next_slot SET NOT NULL');
  await knex.raw(`UPDATE catalogs c SET search_indexed = false
    FROM catalog_search_index i WHERE i.catalog_id = c.id AND c.search_indexed AND c.search_logged > i.logged`);
  await knex.raw('DROP TABLE catalog_search_changes');

  await knex.raw(`
    CREATE OR REPLACE FUNCTION catalog_items_rev_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
      c record;
      n bigint;
      upto bigint;
    BEGIN
      FOR c IN UPDATE catalogs SET items_rev = items_rev + 1 WHERE id IN (SELECT DISTINCT catalog_id FROM changed)
               RETURNING id, search_indexed, search_logged
      LOOP
        CONTINUE WHEN NOT c.search_indexed;
        upto := c.search_logged + 1;
        IF TG_OP = 'INSERT' THEN
          INSERT INTO catalog_search_delta (catalog_id, item_id, upto, old_tsv, tsv, diff)
          SELECT c.id, w.id, upto, NULL, coalesce(w.search_tsv_pending, w.search_tsv), coalesce(w.search_tsv_pending, w.search_tsv, ''::tsvector)
          FROM changed w WHERE w.catalog_id = c.id;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO catalog_search_delta (catalog_id, item_id, upto, old_tsv, tsv, diff)
          SELECT c.id, o.id, upto, coalesce(o.search_tsv_pending, o.search_tsv), NULL, coalesce(o.search_tsv_pending, o.search_tsv, ''::tsvector)
          FROM changed o WHERE o.catalog_id = c.id;
        ELSE
          INSERT INTO catalog_search_delta (catalog_id, item_id, upto, old_tsv, tsv, diff)
          SELECT c.id, x.id, upto, x.o, x.w,
                 ts_delete(coalesce(x.w, ''::tsvector), tsvector_to_array(coalesce(x.o, ''::tsvector)))
                 || ts_delete(coalesce(x.o, ''::tsvector), tsvector_to_array(coalesce(x.w, ''::tsvector)))
          FROM (SELECT w.id, coalesce(o.search_tsv_pending, o.search_tsv) AS o, coalesce(w.search_tsv_pending, w.search_tsv) AS w
                FROM changed w JOIN old_rows o ON o.id = w.id WHERE w.catalog_id = c.id) x
          WHERE x.w IS DISTINCT FROM x.o;
        END IF;
        GET DIAGNOSTICS n = ROW_COUNT;
        CONTINUE WHEN n = 0;
        UPDATE catalogs SET search_logged = search_logged + n WHERE id = c.id RETURNING search_logged INTO upto;
        IF upto - coalesce((SELECT logged FROM catalog_search_index WHERE catalog_id = c.id), 0) > 1000000 THEN
          UPDATE catalogs SET search_indexed = false WHERE id = c.id;
          DELETE FROM catalog_search_delta WHERE catalog_id = c.id;
        END IF;
      END LOOP;
      RETURN NULL;
    END $$`);
  await knex.raw('DROP TRIGGER catalog_items_rev_update ON catalog_items');
  await knex.raw(`CREATE TRIGGER catalog_items_rev_update AFTER UPDATE ON catalog_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_rev_trg()`);
}

/** Reverts `up`, restoring the schema of the previous migration (the delta's items become logged ids). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER catalog_items_rev_update ON catalog_items');
  await knex.raw(`CREATE TRIGGER catalog_items_rev_update AFTER UPDATE ON catalog_items
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_rev_trg()`);
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
  await knex.raw(`CREATE TABLE catalog_search_changes (
    catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
    upto bigint NOT NULL,
    ids uuid[] NOT NULL,
    PRIMARY KEY (catalog_id, upto))`);
  await knex.raw(`INSERT INTO catalog_search_changes (catalog_id, upto, ids)
    SELECT catalog_id, upto, array_agg(item_id) FROM catalog_search_delta GROUP BY 1, 2`);
  await knex.raw('DROP TABLE catalog_search_delta');
  await knex.raw('ALTER TABLE catalog_search_index DROP COLUMN next_slot');
}
