import type { Knex } from 'knex';

/**
 * Enrichment request features (docs/api-enrichment.md "Enrichment jobs"):
 *
 * - `staged_changes`: the reviewable changes of an activity (docs/api-review.md "Activities"). An enrichment job
 *   writing to a catalog stages one change per processed row, idempotently: unique
 *   `(activity_id, row_index)`, written in the same transaction as the row result.
 * - `enrichment_templates`: organization-scoped request defaults + safety controls (docs/api-enrichment.md "Judging").
 * - `source_artifacts`: the exact bytes of every source a job consulted (`capture_source_artifacts`),
 *   stored on disk under their SHA-256; one row per (job, row, url, sha256).
 * - `hosted_media`: media copied into service storage (`host_media`), content-addressed.
 * - `enrichment_rows.carried_from_job_id`: a row whose result was copied from an earlier job
 *   (resume / re-extract) — shown in results, never charged again.
 * - `enrichment_jobs.carried_items`: how many rows were carried at creation (pricing estimates).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('staged_changes', (t) => {
    t.uuid('id').primary();
    t.uuid('activity_id').notNullable().references('review_activities.id').onDelete('CASCADE');
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('catalog_id').references('catalogs.id').onDelete('SET NULL');
    t.uuid('catalog_item_id');
    t.string('catalog_item_entity_type', 16).notNullable().defaultTo('product');
    t.jsonb('before_data').notNullable().defaultTo('{}');
    t.jsonb('after_data').notNullable().defaultTo('{}');
    t.jsonb('source_data').notNullable().defaultTo('{}');
    t.boolean('is_new_item').notNullable().defaultTo(false);
    t.integer('row_index').notNullable();
    t.string('status', 24).notNullable().defaultTo('pending');
    t.jsonb('review_info');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['activity_id', 'row_index']);
    t.index(['activity_id', 'status']);
  });
  await knex.raw(`ALTER TABLE staged_changes ADD CONSTRAINT staged_changes_status_check
    CHECK (status IN ('draft', 'pending', 'approved', 'rejected', 'partially_accepted', 'error'))`);

  await knex.schema.createTable('enrichment_templates', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.text('description');
    t.jsonb('defaults').notNullable().defaultTo('{}');
    t.jsonb('safety').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('source_artifacts', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('job_id').notNullable().references('enrichment_jobs.id').onDelete('CASCADE');
    t.integer('row_index').notNullable();
    t.string('sha256', 64).notNullable();
    t.text('url').notNullable();
    t.text('final_url').notNullable();
    t.integer('http_status').notNullable();
    t.string('content_type', 200).notNullable();
    t.bigInteger('byte_size').notNullable();
    t.timestamp('fetched_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['job_id', 'row_index', 'url', 'sha256']);
    t.index(['organization_id', 'sha256']);
  });

  await knex.schema.createTable('hosted_media', (t) => {
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('sha256', 64).notNullable();
    t.string('ext', 8).notNullable();
    t.string('content_type', 200).notNullable();
    t.text('source_url').notNullable();
    t.bigInteger('byte_size').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organization_id', 'sha256']);
    t.index(['sha256']);
  });

  await knex.schema.alterTable('enrichment_rows', (t) => {
    t.uuid('carried_from_job_id');
  });
  await knex.schema.alterTable('enrichment_jobs', (t) => {
    t.integer('carried_items').notNullable().defaultTo(0);
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enrichment_jobs', (t) => t.dropColumn('carried_items'));
  await knex.schema.alterTable('enrichment_rows', (t) => t.dropColumn('carried_from_job_id'));
  for (const table of ['hosted_media', 'source_artifacts', 'enrichment_templates', 'staged_changes']) {
    await knex.schema.dropTableIfExists(table);
  }
}
