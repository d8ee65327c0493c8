import type { Knex } from 'knex';

/**
 * Sort-key triggers skip statements of catalogs that keep no sort field (docs/large-catalogs.md
 * "Sorting by a data field", "Restores of large catalogs").
 *
 * Before: the triggers of migration 20261205100000 returned early only when no catalog at all
 * kept a sort field. Once one did, every write of every catalog ran the key statements: an
 * UPDATE joined its old and new transition rows (a hash of every row the statement wrote, with
 * their `data`) only to find no kept field of the written catalog, which was most of what the
 * triggers cost a restore of 100,000 items that all changed.
 *
 * Now the function first collects the catalogs the statement wrote (the distinct `catalog_id`s
 * of its transition rows: one pass over narrow values, no join) and returns unless one of them
 * keeps a field; the key statements themselves are unchanged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(functionSql(true));
}

/** Reverts `up` (the function of migration 20261205100000). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(functionSql(false));
}

/** `CREATE OR REPLACE` of `catalog_sort_keys_trg()`, with or without the per-catalog early return. */
function functionSql(perCatalog: boolean): string {
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
