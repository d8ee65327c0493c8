import type { Knex } from 'knex';

/**
 * The unlabelled texts of a job's own items (`texts`, a JSON array of strings) beside its
 * catalog examples: the learned text model counts title phrases over them as over the
 * examples' texts (src/enrichment/text/corpus.ts), as `npm run eval -- text` does with the
 * scored records. Stored at job creation and copied with the examples to resumed and
 * re-extracted jobs (src/services/enrichment/rows/examples.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enrichment_job_examples', (t) => {
    t.jsonb('texts').notNullable().defaultTo('[]');
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enrichment_job_examples', (t) => {
    t.dropColumn('texts');
  });
}
