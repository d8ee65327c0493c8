import type { Knex } from 'knex';

/**
 * Spreadsheet imports into catalogs: one row per import with its counters, one row
 * per data line of the file with its item (converted by the schema) and, once written, its
 * status and errors (Akeneo-style per-line report). Lines are staged by the API and written by
 * the import workflow in batches.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalog_imports', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('catalog_id').notNullable().references('id').inTable('catalogs').onDelete('CASCADE');
    t.string('status', 20).notNullable();
    t.text('file_name').notNullable();
    t.jsonb('mapping').notNullable();
    t.integer('total_lines').notNullable();
    t.integer('created').notNullable().defaultTo(0);
    t.integer('updated').notNullable().defaultTo(0);
    t.integer('failed').notNullable().defaultTo(0);
    t.text('actor_kind').notNullable();
    t.text('actor_id').notNullable();
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['catalog_id', 'created_at']);
  });
  await knex.schema.createTable('catalog_import_lines', (t) => {
    t.uuid('import_id').notNullable().references('id').inTable('catalog_imports').onDelete('CASCADE');
    t.integer('line').notNullable();
    t.jsonb('data').notNullable();
    t.string('status', 10).notNullable();
    t.jsonb('errors');
    t.uuid('item_id');
    t.primary(['import_id', 'line']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('catalog_import_lines');
  await knex.schema.dropTableIfExists('catalog_imports');
}
