import type { Knex } from 'knex';

/**
 * The catalog console's item grid and completeness pages: saved grid views
 * (named columns + query, per catalog and owner, shared or private) and readiness profiles (a
 * named set of required fields and rules per catalog). Both go with their catalog. An
 * expression index on `(catalog_id, data ->> 'category_id')` serves the grid's taxonomy node
 * filter and the per-node counts of the taxonomy tree.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('item_grid_views', (t) => {
    t.uuid('id').primary();
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    /** `api_key:<id>` or `user:<sub>`: the principal that saved it. */
    t.text('owner').notNullable();
    t.text('name').notNullable();
    t.boolean('shared').notNullable().defaultTo(false);
    t.jsonb('columns').notNullable();
    t.jsonb('query').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['catalog_id', 'owner', 'name']);
  });
  await knex.schema.createTable('readiness_profiles', (t) => {
    t.uuid('id').primary();
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description').nullable();
    t.jsonb('required_fields').notNullable();
    t.jsonb('rules').notNullable();
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['catalog_id', 'name']);
  });
  await knex.raw("CREATE INDEX catalog_items_category_id ON catalog_items (catalog_id, (data ->> 'category_id'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS catalog_items_category_id');
  await knex.schema.dropTable('readiness_profiles');
  await knex.schema.dropTable('item_grid_views');
}
