import type { Knex } from 'knex';

/**
 * The review loop (docs/api-review.md "Activities"): what review activities and staged changes
 * need beyond what enrichment staging wrote.
 *
 * - `review_activities`: the activity's input (`input_data`: description, schema and taxonomy
 *   changes, activity context of a custom transform), its last message and output
 *   (pending-review), and its apply: progress while `activity-apply-<id>` runs and the result
 *   `{applied, skipped_conflicts, failed, pre_apply_snapshot_id}` after.
 * - `staged_changes`: `base_version` (the item's `current_version` the change was computed
 *   from: optimistic concurrency on apply), `is_delete`, `accepted_fields` (the fields a
 *   partially accepted change applies; null = all), the reasons of `error` and `rejected`, the
 *   item as found when apply met a `conflict` (a seventh status), and `applied_at`.
 * - `staged_change_batches`: append idempotency (docs/api-review.md "Appending staged changes": a retried batch with the same
 *   `batch_key` is a no-op), remembering which row indexes the batch got.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('review_activities', (t) => {
    t.jsonb('input_data');
    t.text('last_message');
    t.jsonb('output');
    t.jsonb('apply_progress');
    t.jsonb('apply_result');
  });
  await knex.schema.alterTable('staged_changes', (t) => {
    t.integer('base_version');
    t.boolean('is_delete').notNullable().defaultTo(false);
    t.specificType('accepted_fields', 'text[]');
    t.text('error_reason');
    t.text('rejection_reason');
    t.jsonb('conflict_data');
    t.integer('conflict_version');
    t.timestamp('applied_at', { useTz: true });
  });
  await knex.raw('ALTER TABLE staged_changes DROP CONSTRAINT staged_changes_status_check');
  await knex.raw(`ALTER TABLE staged_changes ADD CONSTRAINT staged_changes_status_check
    CHECK (status IN ('draft', 'pending', 'approved', 'rejected', 'partially_accepted', 'error', 'conflict'))`);
  await knex.schema.createTable('staged_change_batches', (t) => {
    t.uuid('activity_id').notNullable().references('review_activities.id').onDelete('CASCADE');
    t.string('batch_key', 200).notNullable();
    t.integer('first_row_index').notNullable();
    t.integer('count').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['activity_id', 'batch_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('staged_change_batches');
  await knex.raw("DELETE FROM staged_changes WHERE status = 'conflict'");
  await knex.raw('ALTER TABLE staged_changes DROP CONSTRAINT staged_changes_status_check');
  await knex.raw(`ALTER TABLE staged_changes ADD CONSTRAINT staged_changes_status_check
    CHECK (status IN ('draft', 'pending', 'approved', 'rejected', 'partially_accepted', 'error'))`);
  await knex.schema.alterTable('staged_changes', (t) => {
    for (const c of ['base_version', 'is_delete', 'accepted_fields', 'error_reason', 'rejection_reason', 'conflict_data', 'conflict_version', 'applied_at'])
      t.dropColumn(c);
  });
  await knex.schema.alterTable('review_activities', (t) => {
    for (const c of ['input_data', 'last_message', 'output', 'apply_progress', 'apply_result']) t.dropColumn(c);
  });
}
