import type { Knex } from 'knex';

/**
 * The readable text of a job's knowledge-base files (PDF text, HTML, CSV rows), converted once
 * at job creation and read by the worker, so rows never re-parse the uploads and the per-row
 * job config stays small (docs/api-enrichment.md "Extra request fields" knowledge base).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('enrichment_job_documents', (t) => {
    t.uuid('job_id').primary().references('enrichment_jobs.id').onDelete('CASCADE');
    t.jsonb('documents').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('enrichment_job_documents');
}
