import type { Knex } from 'knex';

/**
 * Channel feeds (docs/feeds.md): a feed publishes a catalog to a channel in one format; each run
 * of it writes one file to the blob store.
 *
 * - `feeds`: the feed's settings, its mapping (channel attribute → catalog field, template or
 *   fixed value), its optional cron schedule and the 32-byte random token of its public URL.
 *   Deleting a feed is a soft delete (`deleted`), so its public URL stops at once while the runs'
 *   rows stay readable to the workflow that may still be finishing.
 * - `feed_runs`: one run (`feed-run-<id>`); counters are sums of its pages.
 * - `feed_run_pages`: one row per page the run wrote (its part blob and counters). The key
 *   (run_id, page_index) and `ON CONFLICT DO NOTHING` make a retried page count once.
 * - `feed_run_issues`: what the channel's rules found, unique per (run, item, attribute, code),
 *   written with `ON CONFLICT DO NOTHING`, so a retried page never lists an issue twice.
 * - `feed_run_items`: the items a run exported with a hash of their row, what the next delta
 *   run compares against (changed: new or other hash; removed: absent now).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('feeds', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.string('channel', 64).notNullable();
    t.string('format', 16).notNullable();
    t.string('target_country', 2).notNullable();
    t.string('language', 16).notNullable();
    t.string('currency', 3);
    t.jsonb('mapping').notNullable();
    t.boolean('mapping_suggested').notNullable().defaultTo(false);
    t.jsonb('filter').notNullable().defaultTo('{}');
    t.text('schedule');
    t.string('public_token', 64).notNullable().unique();
    t.boolean('deleted').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['catalog_id', 'created_at']);
  });
  await knex.schema.createTable('feed_runs', (t) => {
    t.uuid('id').primary();
    t.uuid('feed_id').notNullable().references('feeds.id').onDelete('CASCADE');
    t.uuid('organization_id').notNullable();
    t.string('status', 16).notNullable().defaultTo('queued');
    t.boolean('delta').notNullable().defaultTo(false);
    /** The completed run a delta run compares against (null: a full run, or no earlier run). */
    t.uuid('base_run_id');
    /** The Temporal workflow id of a scheduled start (idempotent creation of its run). */
    t.string('schedule_key', 300).unique();
    t.integer('items_read').notNullable().defaultTo(0);
    t.integer('total').notNullable().defaultTo(0);
    t.integer('items').notNullable().defaultTo(0);
    t.integer('exported').notNullable().defaultTo(0);
    t.integer('excluded').notNullable().defaultTo(0);
    t.integer('warnings').notNullable().defaultTo(0);
    t.text('file_key');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.index(['feed_id', 'created_at']);
  });
  await knex.raw("ALTER TABLE feed_runs ADD CONSTRAINT feed_runs_status_check CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled'))");
  await knex.schema.createTable('feed_run_pages', (t) => {
    t.uuid('run_id').notNullable().references('feed_runs.id').onDelete('CASCADE');
    t.integer('page_index').notNullable();
    t.uuid('after_id');
    t.uuid('last_id');
    t.text('part_key');
    t.integer('items_read').notNullable();
    t.integer('items').notNullable();
    t.integer('exported').notNullable();
    t.integer('excluded').notNullable();
    t.integer('warnings').notNullable();
    t.primary(['run_id', 'page_index']);
  });
  await knex.schema.createTable('feed_run_issues', (t) => {
    t.bigIncrements('id');
    t.uuid('run_id').notNullable().references('feed_runs.id').onDelete('CASCADE');
    t.uuid('item_id').notNullable();
    t.text('sku');
    t.string('attribute', 100).notNullable();
    t.string('severity', 8).notNullable();
    t.string('code', 64).notNullable();
    t.text('message').notNullable();
    t.text('value');
    t.unique(['run_id', 'item_id', 'attribute', 'code']);
    t.index(['run_id', 'severity', 'code']);
  });
  await knex.schema.createTable('feed_run_items', (t) => {
    t.uuid('run_id').notNullable().references('feed_runs.id').onDelete('CASCADE');
    t.uuid('item_id').notNullable();
    /** The row's `id` attribute (the channel's offer id), what a delta's `removed` names. */
    t.text('offer_id');
    t.string('row_hash', 64).notNullable();
    t.primary(['run_id', 'item_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('feed_run_items');
  await knex.schema.dropTableIfExists('feed_run_issues');
  await knex.schema.dropTableIfExists('feed_run_pages');
  await knex.schema.dropTableIfExists('feed_runs');
  await knex.schema.dropTableIfExists('feeds');
}
