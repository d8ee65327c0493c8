import type { Knex } from 'knex';

/**
 * Idempotency keys: the first successful answer of a POST sent with an
 * `Idempotency-Key` header, per organization and key, so a retried request within 24 h gets the
 * same answer and charges once. `response` is null while the first request still runs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('idempotency_key', 255).notNullable();
    t.string('request_hash', 64).notNullable();
    t.integer('status');
    t.jsonb('response');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organization_id', 'idempotency_key']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
