import type { Knex } from 'knex';

/**
 * Completeness counters kept by the write path (docs/large-catalogs.md, "Completeness counters"):
 * `catalog_fill_counts` holds, per catalog, items counted by (top-level or not, `category_id`
 * value, the sorted set of top-level keys whose values are filled). The completeness report
 * derives every count it shows from these rows (an item is complete when its filled set holds
 * every field its node requires; a field is empty for the items whose set lacks it) instead of
 * reading every item.
 *
 * - "Filled" is the report's emptiness test negated (missing, null, blank string, `[]`, `{}` are
 *   empty): `catalog_item_filled_keys(data)`.
 * - Statement-level triggers with transition tables on INSERT, UPDATE and DELETE of
 *   `catalog_items` append one delta row per group a statement changed (+ items entering it,
 *   − items leaving it), in the writing transaction: the counts commit or roll back with the
 *   items. Deltas are appended, never updated in place, so concurrent writers never wait on a
 *   counter row; readers sum them (`SELECT … sum(n) GROUP BY`) and the service folds them
 *   (src/services/catalog/grid/completeness-counters.ts `compactFillCounts`).
 * - TRUNCATE of the items empties the counters.
 * - No foreign key: deleting a catalog deletes its items, whose trigger brings its counts to zero.
 * - Existing items are counted once here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE catalog_fill_counts (
    id bigserial PRIMARY KEY,
    catalog_id uuid NOT NULL,
    top_level boolean NOT NULL,
    category text NOT NULL,
    filled text[] NOT NULL,
    n bigint NOT NULL
  )`);
  await knex.raw('CREATE INDEX catalog_fill_counts_catalog ON catalog_fill_counts (catalog_id)');
  await knex.raw(`CREATE FUNCTION catalog_item_filled_keys(d jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(e.k ORDER BY e.k COLLATE "C"), '{}'::text[]) FROM jsonb_each(d) AS e(k, v)
    WHERE CASE jsonb_typeof(e.v) WHEN 'string' THEN btrim(e.v #>> '{}') <> '' WHEN 'number' THEN true WHEN 'boolean' THEN true
      WHEN 'array' THEN jsonb_array_length(e.v) > 0 WHEN 'object' THEN e.v <> '{}'::jsonb ELSE false END
  $$`);
  await knex.raw(`CREATE FUNCTION catalog_fill_counts_trg() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO catalog_fill_counts (catalog_id, top_level, category, filled, n)
        SELECT catalog_id, parent_id IS NULL, coalesce(data ->> 'category_id', ''), catalog_item_filled_keys(data), count(*)
        FROM new_rows GROUP BY 1, 2, 3, 4;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO catalog_fill_counts (catalog_id, top_level, category, filled, n)
        SELECT catalog_id, parent_id IS NULL, coalesce(data ->> 'category_id', ''), catalog_item_filled_keys(data), -count(*)
        FROM old_rows GROUP BY 1, 2, 3, 4;
      ELSE
        INSERT INTO catalog_fill_counts (catalog_id, top_level, category, filled, n)
        SELECT c.catalog_id, c.top_level, c.category, c.filled, sum(c.sign)
        FROM (
          SELECT x.catalog_id, x.parent_id IS NULL AS top_level, coalesce(x.data ->> 'category_id', '') AS category,
                 catalog_item_filled_keys(x.data) AS filled, x.sign
          FROM (
            SELECT o.catalog_id, o.parent_id, o.data, -1 AS sign FROM old_rows o JOIN new_rows w ON w.id = o.id
            WHERE o.data IS DISTINCT FROM w.data OR o.parent_id IS DISTINCT FROM w.parent_id OR o.catalog_id <> w.catalog_id
            UNION ALL
            SELECT w.catalog_id, w.parent_id, w.data, 1 FROM old_rows o JOIN new_rows w ON w.id = o.id
            WHERE o.data IS DISTINCT FROM w.data OR o.parent_id IS DISTINCT FROM w.parent_id OR o.catalog_id <> w.catalog_id
          ) x
        ) c
        GROUP BY 1, 2, 3, 4 HAVING sum(c.sign) <> 0;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER catalog_items_fill_counts_insert AFTER INSERT ON catalog_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_fill_counts_trg()`);
  await knex.raw(`CREATE TRIGGER catalog_items_fill_counts_update AFTER UPDATE ON catalog_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_fill_counts_trg()`);
  await knex.raw(`CREATE TRIGGER catalog_items_fill_counts_delete AFTER DELETE ON catalog_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_fill_counts_trg()`);
  await knex.raw(`CREATE FUNCTION catalog_fill_counts_truncate_trg() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN TRUNCATE catalog_fill_counts; RETURN NULL; END $$`);
  await knex.raw(`CREATE TRIGGER catalog_items_fill_counts_truncate AFTER TRUNCATE ON catalog_items
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_fill_counts_truncate_trg()`);
  await knex.raw(`INSERT INTO catalog_fill_counts (catalog_id, top_level, category, filled, n)
    SELECT catalog_id, parent_id IS NULL, coalesce(data ->> 'category_id', ''), catalog_item_filled_keys(data), count(*)
    FROM catalog_items GROUP BY 1, 2, 3, 4`);
}

/** Reverts `up`. */
export async function down(knex: Knex): Promise<void> {
  for (const op of ['insert', 'update', 'delete', 'truncate']) await knex.raw(`DROP TRIGGER IF EXISTS catalog_items_fill_counts_${op} ON catalog_items`);
  await knex.raw('DROP FUNCTION IF EXISTS catalog_fill_counts_trg()');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_fill_counts_truncate_trg()');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_item_filled_keys(jsonb)');
  await knex.raw('DROP TABLE IF EXISTS catalog_fill_counts');
}
