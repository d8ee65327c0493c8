import type { Knex } from 'knex';

/**
 * The catalog examples of a job (`TextExample[]`: an item's text and the catalog's values for
 * the job's output fields), sampled once at job creation for `web_search: false` jobs that write
 * to a catalog, and copied to resumed / re-extracted jobs. The worker trains the text tagger on
 * them (src/services/enrichment/rows/examples.ts). Kept out of the job config, which is read per row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('enrichment_job_examples', (t) => {
    t.uuid('job_id').primary().references('enrichment_jobs.id').onDelete('CASCADE');
    t.jsonb('examples').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('enrichment_job_examples');
}
