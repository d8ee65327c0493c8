import type { Knex } from 'knex';

/**
 * The step a running enrichment job is at, shown in its poll as `current_step`:
 * `training_text_model` while the text model learns from the catalog's examples, else null
 * (items being enriched).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enrichment_jobs', (t) => {
    t.string('current_step', 40);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enrichment_jobs', (t) => {
    t.dropColumn('current_step');
  });
}
