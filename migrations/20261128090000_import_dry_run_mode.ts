import type { Knex } from 'knex';

/**
 * Spreadsheet imports (the import page): a `dry_run` import reports per line what
 * the import would do and writes nothing (each batch's write is rolled back); `mode` says which
 * lines may be written: `upsert` (default: create or update), `create` (a line whose item exists
 * fails), `update` (a line whose item does not exist fails).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('catalog_imports', (t) => {
    t.boolean('dry_run').notNullable().defaultTo(false);
    t.string('mode', 10).notNullable().defaultTo('upsert');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('catalog_imports', (t) => {
    t.dropColumn('dry_run');
    t.dropColumn('mode');
  });
}
