import type { Knex } from 'knex';

/**
 * Flows (docs/api-review.md "Flows", docs/api-review.md "Save as workflow").
 *
 * - `flows`: a stored flow of an organization: an ordered list of nodes `{id, type, config}`
 *   (`input`, `custom_code`, `enrich`, `stage`), the catalog its `stage` node stages into, the
 *   activity it was saved from and the attachments given at save time.
 * - `flow_runs`: one execution (`flow-run-<id>` in Temporal): the nodes as they were when it
 *   started (a later edit of the flow never changes a run), status, progress, the step it is on,
 *   the `print` output of its code (`updates`), the failed node and error, and the review
 *   activity its `stage` node left.
 * - `flow_run_nodes`: each node of a run: status, pages of input done and rows written (so a
 *   retried node resumes at the next page and never writes a page twice), how many times it
 *   started, the enrichment job of an `enrich` node and the activity of a `stage` node.
 * - `flow_run_rows`: every node's output rows, keyed by (run, node, row index): node outputs
 *   live here, never in workflow history, and are read page by page.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flows', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('catalog_id').references('catalogs.id').onDelete('SET NULL');
    t.string('name', 200).notNullable();
    t.text('description');
    t.jsonb('nodes').notNullable();
    t.jsonb('attachments').notNullable().defaultTo('[]');
    t.uuid('source_activity_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'created_at']);
  });
  await knex.schema.createTable('flow_runs', (t) => {
    t.uuid('id').primary();
    t.uuid('flow_id').notNullable().references('flows.id').onDelete('CASCADE');
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('catalog_id');
    t.string('status', 16).notNullable().defaultTo('running');
    t.jsonb('nodes').notNullable();
    t.integer('input_count').notNullable();
    t.double('progress').notNullable().defaultTo(0);
    t.text('current_step');
    t.text('message');
    t.jsonb('updates').notNullable().defaultTo('[]');
    t.string('failed_node_id', 100);
    t.text('error');
    t.uuid('activity_id');
    t.string('workflow_id', 200).notNullable();
    t.integer('attempts').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['flow_id', 'status']);
    t.index(['organization_id', 'status', 'updated_at']);
  });
  await knex.raw(`ALTER TABLE flow_runs ADD CONSTRAINT flow_runs_status_check CHECK (status IN ('running', 'completed', 'failed', 'cancelled'))`);
  await knex.schema.createTable('flow_run_nodes', (t) => {
    t.uuid('run_id').notNullable().references('flow_runs.id').onDelete('CASCADE');
    t.string('node_id', 100).notNullable();
    t.integer('position').notNullable();
    t.string('node_type', 32).notNullable();
    t.string('status', 16).notNullable().defaultTo('pending');
    t.integer('pages_done').notNullable().defaultTo(0);
    t.integer('output_count').notNullable().defaultTo(0);
    t.integer('executions').notNullable().defaultTo(0);
    t.uuid('job_id');
    t.uuid('activity_id');
    t.text('error');
    t.timestamp('started_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.primary(['run_id', 'node_id']);
  });
  await knex.raw(`ALTER TABLE flow_run_nodes ADD CONSTRAINT flow_run_nodes_status_check CHECK (status IN ('pending', 'running', 'completed', 'failed'))`);
  await knex.schema.createTable('flow_run_rows', (t) => {
    t.uuid('run_id').notNullable().references('flow_runs.id').onDelete('CASCADE');
    t.string('node_id', 100).notNullable();
    t.integer('row_index').notNullable();
    t.jsonb('data').notNullable();
    t.primary(['run_id', 'node_id', 'row_index']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('flow_run_rows');
  await knex.schema.dropTableIfExists('flow_run_nodes');
  await knex.schema.dropTableIfExists('flow_runs');
  await knex.schema.dropTableIfExists('flows');
}
