import type { Knex } from 'knex';

/**
 * Core tables: organizations and API keys (docs/api-reference.md "Authentication"), catalogs with their versioned
 * schemas (docs/api-reference.md "Schema versions"), review activities and enrichment jobs with one row per
 * input item (docs/api-enrichment.md "Enrichment jobs").
 * Enrichment rows are keyed by (job_id, row_index) so result writes are idempotent upserts
 * (docs/workflows.md "Rules of the craft"). One function on purpose: the whole first schema in one place.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.uuid('id').primary();
    t.string('name', 200).notNullable();
    t.string('webhook_secret', 200).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.string('key_hash', 64).notNullable().unique();
    t.string('key_prefix', 12).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
  });

  await knex.schema.createTable('catalogs', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.text('description');
    t.string('unique_id_field', 200).notNullable();
    t.string('product_id_field', 200);
    t.boolean('auto_evolve_schema').notNullable().defaultTo(false);
    t.boolean('strict_mode').notNullable().defaultTo(false);
    t.boolean('product_enabled').notNullable().defaultTo(false);
    t.integer('item_count').notNullable().defaultTo(0);
    t.string('current_schema_version', 32).notNullable();
    t.jsonb('validation_rules');
    t.text('catalog_md');
    t.integer('catalog_md_version').notNullable().defaultTo(1);
    t.text('quality_prompt');
    t.timestamp('quality_prompt_updated_at', { useTz: true });
    t.uuid('master_catalog_id');
    t.boolean('use_master_catalog_defaults').notNullable().defaultTo(false);
    t.string('created_by_user_id', 200).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true });
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('catalog_schemas', (t) => {
    t.uuid('id').primary();
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.string('version', 32).notNullable();
    t.jsonb('schema_definition').notNullable();
    t.jsonb('taxonomy');
    t.boolean('backward_compatible').notNullable().defaultTo(true);
    t.jsonb('migration_rules');
    t.string('created_by', 200).notNullable();
    t.text('change_reason').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('last_edited_by_workflow', 200);
    t.timestamp('last_edited_at', { useTz: true });
    t.jsonb('fields_workflow_info').notNullable().defaultTo('[]');
    t.unique(['catalog_id', 'version']);
  });

  await knex.schema.createTable('review_activities', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('catalog_id').references('catalogs.id').onDelete('SET NULL');
    t.string('type', 32).notNullable();
    t.string('status', 32).notNullable();
    t.text('description');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'catalog_id', 'created_at']);
  });

  await knex.schema.createTable('enrichment_jobs', (t) => {
    t.uuid('id').primary().references('review_activities.id').onDelete('CASCADE');
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('catalog_id').references('catalogs.id').onDelete('SET NULL');
    t.string('status', 16).notNullable();
    t.jsonb('config').notNullable();
    t.integer('total_rows').notNullable();
    t.integer('total_items').notNullable();
    t.integer('completed_items').notNullable().defaultTo(0);
    t.integer('successful').notNullable().defaultTo(0);
    t.integer('credits_used').notNullable().defaultTo(0);
    t.string('workflow_id', 200).notNullable();
    t.text('error');
    t.jsonb('service_usage');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['organization_id', 'status', 'created_at']);
  });

  await knex.schema.createTable('enrichment_rows', (t) => {
    t.uuid('job_id').notNullable().references('enrichment_jobs.id').onDelete('CASCADE');
    t.integer('row_index').notNullable();
    t.jsonb('input').notNullable();
    t.string('status', 16).notNullable().defaultTo('pending');
    t.jsonb('result');
    t.jsonb('evidence');
    t.jsonb('usage');
    t.text('error');
    t.timestamp('completed_at', { useTz: true });
    t.primary(['job_id', 'row_index']);
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  for (const table of ['enrichment_rows', 'enrichment_jobs', 'review_activities', 'catalog_schemas', 'catalogs', 'api_keys', 'organizations']) {
    await knex.schema.dropTableIfExists(table);
  }
}
