import type { Knex } from 'knex';

/**
 * Search index maintenance (src/services/catalog/search/index-maintenance.ts): each maintained
 * index's size per live row right after it was last rebuilt, the yardstick of its bloat.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('search_index_baselines', (t) => {
    t.string('index_name', 63).primary();
    t.double('bytes_per_row').notNullable();
    t.timestamp('measured_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('search_index_baselines');
}
