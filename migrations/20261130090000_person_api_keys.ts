import type { Knex } from 'knex';

/**
 * Person-scoped keys (the tool server acts as the person who signed it in).
 *
 * - `api_keys.person_id`: the person a key acts for, with the person's current role (null for the
 *   organization's keys, which act as admin). Such a key is what the tool server's login helper
 *   receives (src/dashboard/cli-login.ts); it is listed and revoked like any other key, and stops
 *   working when the person is disabled or removed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.uuid('person_id').references('people.id').onDelete('CASCADE');
    t.index(['person_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('person_id'));
}
