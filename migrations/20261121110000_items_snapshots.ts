import type { Knex } from 'knex';

/**
 * Catalog items and snapshots (docs/api-reference.md "Snapshots").
 *
 * - `catalog_items`: one table for products and variants (`entity_type`, `parent_id`).
 *   `business_key` is the value of the catalog's `unique_id_field` in `data` (item identity),
 *   unique per catalog when present. Ordering indexes: `(catalog_id, created_at, id)` for the
 *   item list and `(catalog_id, id)` for raw-item pulls (a unique key, so offset pages never
 *   overlap).
 * - Search (`search`/`search_query`, case-insensitive substring over text values): a plain
 *   column `search_text` holding the lower-cased string and number values of `data`. The item
 *   service computes it in Node with each write (measured: the SQL jsonpath function costs
 *   ~55 µs per row, a third of a bulk insert); a trigger fills it for any other writer (on
 *   insert when not supplied, on update when `data` changed but `search_text` did not), with a
 *   pg_trgm GIN index so `LIKE '%term%'` is an index lookup on 1,000,000 items. The index
 *   takes a 64 MB pending list (measured: per-row GIN inserts cost ~120 µs, a third of a bulk
 *   write; batched pending-list merges made 1000-item bulk upserts ~15% and a 12%-changed
 *   100k restore 2.5× faster), and the table asks autovacuum to run after 10,000 + 1% inserted
 *   rows, so the pending list (which every search scans) is merged soon after large writes.
 *   Not a generated
 *   column: snapshot restore and catalog duplication copy the stored text instead of
 *   recomputing it row by row.
 * - `source_info`: the provenance object of the item's last write (`source_info`).
 * - `catalog_snapshots` + `catalog_snapshot_items`: a snapshot's catalog state (schema version,
 *   taxonomy, catalog_md, quality prompt) and a row copy of every item, written set-based.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await knex.raw(`
    CREATE FUNCTION catalog_item_search_text(d jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT lower(coalesce(string_agg(v #>> '{}', ' '), ''))
      FROM jsonb_path_query(d, 'strict $.** \\? (@.type() == "string" || @.type() == "number")') AS v
    $$`);
  await knex.raw(`
    CREATE FUNCTION catalog_items_search_text_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        IF NEW.search_text IS NULL THEN NEW.search_text := catalog_item_search_text(NEW.data); END IF;
      ELSIF NEW.data IS DISTINCT FROM OLD.data AND NEW.search_text IS NOT DISTINCT FROM OLD.search_text THEN
        NEW.search_text := catalog_item_search_text(NEW.data);
      END IF;
      RETURN NEW;
    END $$`);

  await knex.schema.createTable('catalog_items', (t) => {
    t.uuid('id').primary();
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.string('entity_type', 16).notNullable().defaultTo('product');
    t.uuid('parent_id').references('catalog_items.id').onDelete('CASCADE');
    t.text('business_key');
    t.jsonb('data').notNullable();
    t.text('search_text');
    t.jsonb('source_info');
    t.integer('current_version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['catalog_id', 'created_at', 'id']);
    t.index(['catalog_id', 'id']);
    t.index(['parent_id']);
  });
  await knex.raw("ALTER TABLE catalog_items ADD CONSTRAINT catalog_items_entity_type_check CHECK (entity_type IN ('product', 'variant'))");
  await knex.raw('CREATE UNIQUE INDEX catalog_items_business_key_unique ON catalog_items (catalog_id, business_key) WHERE business_key IS NOT NULL');
  await knex.raw('CREATE INDEX catalog_items_search_trgm ON catalog_items USING gin (search_text gin_trgm_ops) WITH (gin_pending_list_limit = 65536)');
  await knex.raw('ALTER TABLE catalog_items SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 10000)');
  await knex.raw(`CREATE TRIGGER catalog_items_search_text BEFORE INSERT OR UPDATE ON catalog_items
    FOR EACH ROW EXECUTE FUNCTION catalog_items_search_text_trg()`);

  await knex.schema.createTable('catalog_snapshots', (t) => {
    t.uuid('id').primary();
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.string('snapshot_type', 16).notNullable();
    t.text('reason');
    t.integer('item_count').notNullable();
    t.string('schema_version', 32).notNullable();
    t.jsonb('taxonomy');
    t.text('catalog_md');
    t.integer('catalog_md_version');
    t.text('quality_prompt');
    t.timestamp('quality_prompt_updated_at', { useTz: true });
    t.string('created_by', 200).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['catalog_id', 'created_at']);
  });
  await knex.raw("ALTER TABLE catalog_snapshots ADD CONSTRAINT catalog_snapshots_type_check CHECK (snapshot_type IN ('manual', 'safety', 'pre_apply'))");

  await knex.schema.createTable('catalog_snapshot_items', (t) => {
    t.uuid('snapshot_id').notNullable().references('catalog_snapshots.id').onDelete('CASCADE');
    t.uuid('id').notNullable();
    t.string('entity_type', 16).notNullable();
    t.uuid('parent_id');
    t.text('business_key');
    t.jsonb('data').notNullable();
    t.text('search_text');
    t.jsonb('source_info');
    t.integer('current_version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['snapshot_id', 'id']);
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('catalog_snapshot_items');
  await knex.schema.dropTableIfExists('catalog_snapshots');
  await knex.schema.dropTableIfExists('catalog_items');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_items_search_text_trg()');
  await knex.raw('DROP FUNCTION IF EXISTS catalog_item_search_text(jsonb)');
}
