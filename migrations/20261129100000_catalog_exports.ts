import type { Knex } from 'knex';

/**
 * Catalog exports as operations (the jobs page lists every export). An export still
 * streams in the request that asks for it; this row records it: `running` when the stream starts,
 * then `completed` with the rows written, `failed` with the error, or `cancelled` when the client
 * went away before the end.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalog_exports', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.string('format', 8).notNullable();
    /** Whether a selection (the console grid's filter and columns) narrowed the export. */
    t.boolean('filtered').notNullable().defaultTo(false);
    t.integer('columns').notNullable();
    t.string('file_name', 200).notNullable();
    t.string('status', 16).notNullable().defaultTo('running');
    t.integer('rows');
    t.text('error');
    t.string('requested_by_kind', 16).notNullable();
    t.string('requested_by_id', 200).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['organization_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('catalog_exports');
}
