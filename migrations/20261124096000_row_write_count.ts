import type { Knex } from 'knex';

/**
 * `enrichment_rows.write_count`: how many times a row's result was written. A row is
 * written once by design (the write moves it out of `pending`); the count lets durability tests
 * prove that independently of the job's counters, which finalizeJob derives from the rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enrichment_rows', (t) => {
    t.integer('write_count').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enrichment_rows', (t) => {
    t.dropColumn('write_count');
  });
}
