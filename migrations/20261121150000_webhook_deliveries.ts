import type { Knex } from 'knex';

/**
 * Webhook delivery attempts (docs/api-enrichment.md "Webhooks"): one row per HTTP attempt
 * of a job's `enrichment.job.completed` webhook, written by the `deliverWebhook` activity and
 * shown on the job poll (`webhook.attempts`).
 *
 * - `webhook_id`: the Standard-Webhooks message id (`webhook-id` header), the same for every
 *   attempt of one message; `attempt` is Temporal's activity attempt (1-based), so
 *   `(webhook_id, attempt)` is the natural key and a re-run attempt upserts instead of adding a row.
 * - `status_code` null when no response came (timeout, refused connection); `error` says why an
 *   attempt failed; `delivered_at` is set only on a 2xx answer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('job_id').notNullable().references('id').inTable('enrichment_jobs').onDelete('CASCADE');
    t.string('webhook_id', 200).notNullable();
    t.text('url').notNullable();
    t.integer('attempt').notNullable();
    t.integer('status_code').nullable();
    t.text('error').nullable();
    t.integer('duration_ms').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true }).nullable();
    t.unique(['webhook_id', 'attempt']);
    t.index(['job_id', 'id']);
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
}
