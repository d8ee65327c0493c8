import type { Knex } from 'knex';

/**
 * The claim of a running idempotent request is a lease (`lease_until`), renewed
 * while its handler runs, so a repeat can take over the key of a request whose process died
 * (before, such a key answered 409 for 24 hours).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.timestamp('lease_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('lease_until');
  });
}
