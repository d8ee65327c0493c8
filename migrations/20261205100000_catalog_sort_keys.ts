import type { Knex } from 'knex';

/**
 * Sort keys of data fields in a narrow side table (docs/large-catalogs.md "Sorting by a data
 * field"): the first page of a list sorted by `data -> field` read every item of the catalog
 * (or every match of a search) to sort them, and an expression index over `data` is ruled out
 * (it makes every update of `data` non-HOT, docs/large-catalogs.md "Restores of large catalogs").
 *
 * - `catalog_sort_fields`: the (catalog, field) pairs whose keys are kept (asked for by a sorted
 *   list of a large catalog); `ready` once the existing items were copied in.
 * - `catalog_sort_keys`: one row per item and kept field, `k` = `NULLIF(data -> field, 'null')`
 *   (the list's sort key, compared as jsonb: numbers numerically, strings by the database
 *   collation, SQL NULL for missing and JSON null). A value whose JSON text is over 1,000 bytes
 *   is stored as `k` NULL with `oversize`: no B-tree entry can be too large, and a field with such
 *   a value is sorted the plain way. Two B-trees give the list's two orders exactly
 *   (`k ASC NULLS LAST, item_id ASC` and `k DESC NULLS LAST, item_id ASC`), so a page is a range
 *   of one of them.
 * - Statement-level triggers with transition tables on INSERT, UPDATE and DELETE of
 *   `catalog_items` keep the rows of registered fields in the writing transaction (an update
 *   writes only keys whose value changed). TRUNCATE of the items empties the keys; deleting a
 *   `catalog_sort_fields` row (or its catalog) deletes its keys.
 * - No foreign key to the items: a key row whose item is gone is never listed (the list joins
 *   the item and compares its current value).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE catalog_sort_fields (
    catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
    field text NOT NULL,
    ready boolean NOT NULL DEFAULT false,
    requested_at timestamptz NOT NULL DEFAULT now(),
    ready_at timestamptz,
    build_ms integer,
    PRIMARY KEY (catalog_id, field)
  )`);
  await knex.raw(`CREATE TABLE catalog_sort_keys (
    catalog_id uuid NOT NULL,
    field text NOT NULL,
    item_id uuid NOT NULL,
    k jsonb,
    oversize boolean NOT NULL DEFAULT false,
    PRIMARY KEY (catalog_id, field, item_id)
  )`);
  await knex.raw('CREATE INDEX catalog_sort_keys_asc ON catalog_sort_keys (catalog_id, field, k, item_id)');
  await knex.raw('CREATE INDEX catalog_sort_keys_desc ON catalog_sort_keys (catalog_id, field, k DESC NULLS LAST, item_id)');
  await knex.raw('CREATE INDEX catalog_sort_keys_oversize ON catalog_sort_keys (catalog_id, field) WHERE oversize');
  // The key of one value (SQL NULL for JSON null), and whether it is too large for a B-tree entry.
  await knex.raw(`CREATE FUNCTION catalog_sort_key(v jsonb, OUT k jsonb, OUT oversize boolean) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN octet_length(x::text) > 1000 THEN NULL ELSE x END, coalesce(octet_length(x::text) > 1000, false)
    FROM (SELECT NULLIF(v, 'null'::jsonb) AS x) s
  $$`);
  await knex.raw(sortKeysTriggerFunctionSql(false));
  await knex.raw(`CREATE TRIGGER catalog_items_sort_keys_insert AFTER INSERT ON catalog_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_sort_keys_trg()`);
  await knex.raw(`CREATE TRIGGER catalog_items_sort_keys_update AFTER UPDATE ON catalog_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_sort_keys_trg()`);
  await knex.raw(`CREATE TRIGGER catalog_items_sort_keys_delete AFTER DELETE ON catalog_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_sort_keys_trg()`);
  await knex.raw(`CREATE FUNCTION catalog_sort_keys_truncate_trg() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN TRUNCATE catalog_sort_keys; RETURN NULL; END $$`);
  await knex.raw(`CREATE TRIGGER catalog_items_sort_keys_truncate AFTER TRUNCATE ON catalog_items
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_sort_keys_truncate_trg()`);
  // A field no longer kept (or its catalog deleted) takes its keys with it.
  await knex.raw(`CREATE FUNCTION catalog_sort_fields_delete_trg() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN DELETE FROM catalog_sort_keys WHERE catalog_id = OLD.catalog_id AND field = OLD.field; RETURN NULL; END $$`);
  await knex.raw(`CREATE TRIGGER catalog_sort_fields_delete AFTER DELETE ON catalog_sort_fields
    FOR EACH ROW EXECUTE FUNCTION catalog_sort_fields_delete_trg()`);
}

/** Reverts `up`. */
export async function down(knex: Knex): Promise<void> {
  for (const op of ['insert', 'update', 'delete', 'truncate']) await knex.raw(`DROP TRIGGER IF EXISTS catalog_items_sort_keys_${op} ON catalog_items`);
  await knex.raw('DROP FUNCTION IF EXISTS catalog_sort_keys_trg()');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_sort_keys_truncate_trg()');
  await knex.raw('DROP TRIGGER IF EXISTS catalog_sort_fields_delete ON catalog_sort_fields');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_sort_fields_delete_trg()');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_sort_key(jsonb)');
  await knex.raw('DROP TABLE IF EXISTS catalog_sort_keys');
  await knex.raw('DROP TABLE IF EXISTS catalog_sort_fields');
}

/**
 * `CREATE OR REPLACE` of `catalog_sort_keys_trg()`, the function of the key triggers above.
 * `perCatalog` adds the early return of migration 20261206090000: a statement none of whose
 * catalogs keeps a field writes no key (without it, only a server where no catalog keeps a field
 * returns early).
 */
export function sortKeysTriggerFunctionSql(perCatalog: boolean): string {
  const written = perCatalog
    ? `IF TG_OP = 'INSERT' THEN
        SELECT array_agg(DISTINCT catalog_id) INTO cats FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(DISTINCT catalog_id) INTO cats FROM old_rows;
      ELSE
        SELECT array_agg(DISTINCT catalog_id) INTO cats FROM (SELECT catalog_id FROM new_rows UNION ALL SELECT catalog_id FROM old_rows) w;
      END IF;
      IF NOT EXISTS (SELECT 1 FROM catalog_sort_fields WHERE catalog_id = ANY (cats)) THEN RETURN NULL; END IF;`
    : '';
  return `CREATE OR REPLACE FUNCTION catalog_sort_keys_trg() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      cats uuid[];
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM catalog_sort_fields) THEN RETURN NULL; END IF;
      ${written}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO catalog_sort_keys (catalog_id, field, item_id, k, oversize)
        SELECT w.catalog_id, f.field, w.id, (catalog_sort_key(w.data -> f.field)).*
        FROM new_rows w JOIN catalog_sort_fields f ON f.catalog_id = w.catalog_id
        ON CONFLICT (catalog_id, field, item_id) DO UPDATE SET k = EXCLUDED.k, oversize = EXCLUDED.oversize;
      ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM catalog_sort_keys s USING old_rows o JOIN catalog_sort_fields f ON f.catalog_id = o.catalog_id
        WHERE s.catalog_id = o.catalog_id AND s.field = f.field AND s.item_id = o.id;
      ELSE
        DELETE FROM catalog_sort_keys s USING old_rows o JOIN new_rows w ON w.id = o.id JOIN catalog_sort_fields f ON f.catalog_id = o.catalog_id
        WHERE o.catalog_id <> w.catalog_id AND s.catalog_id = o.catalog_id AND s.field = f.field AND s.item_id = o.id;
        INSERT INTO catalog_sort_keys (catalog_id, field, item_id, k, oversize)
        SELECT w.catalog_id, f.field, w.id, (catalog_sort_key(w.data -> f.field)).*
        FROM new_rows w JOIN old_rows o ON o.id = w.id JOIN catalog_sort_fields f ON f.catalog_id = w.catalog_id
        WHERE o.catalog_id <> w.catalog_id OR (o.data -> f.field) IS DISTINCT FROM (w.data -> f.field)
        ON CONFLICT (catalog_id, field, item_id) DO UPDATE SET k = EXCLUDED.k, oversize = EXCLUDED.oversize;
      END IF;
      RETURN NULL;
    END $$`;
}
