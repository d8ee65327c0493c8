import type { Knex } from 'knex';

/**
 * Spreadsheet imports count the lines equal to their item (such a line writes
 * nothing, so no version bump and no false conflicts); their line status is `unchanged`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('catalog_imports', (t) => {
    t.integer('unchanged').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('catalog_imports', (t) => {
    t.dropColumn('unchanged');
  });
}
