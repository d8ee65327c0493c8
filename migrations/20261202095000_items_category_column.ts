import type { Knex } from 'knex';

/**
 * The item's taxonomy node as a stored generated column, `catalog_items.category_id =
 * data ->> 'category_id'`, indexed as `(catalog_id, category_id)` instead of the expression
 * index over `data` it replaces (same name, same queries served: the grid's taxonomy node filter
 * and the per-node counts of the tree).
 *
 * Why: PostgreSQL allows a heap-only (HOT) update only when no indexed column changes, and an
 * expression index makes every column it reads "indexed": with the index on
 * `(data ->> 'category_id')`, every update of `data` wrote a new entry in every index of the
 * table (word GIN included), so a snapshot restore that rewrites the data of 100,000 items
 * (docs/benchmarks.md, "Restore regression") took ~1.7× as long. A generated column is compared
 * by value: an update that leaves the category as it was changes no indexed column and stays HOT.
 *
 * Adding the column rewrites the table once (ACCESS EXCLUSIVE for the duration).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS catalog_items_category_id');
  await knex.raw("ALTER TABLE catalog_items ADD COLUMN category_id text GENERATED ALWAYS AS (data ->> 'category_id') STORED");
  await knex.raw('CREATE INDEX catalog_items_category_id ON catalog_items (catalog_id, category_id)');
}

/** Back to the expression index over `data`. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS catalog_items_category_id');
  await knex.raw('ALTER TABLE catalog_items DROP COLUMN category_id');
  await knex.raw("CREATE INDEX catalog_items_category_id ON catalog_items (catalog_id, (data ->> 'category_id'))");
}
