import type { Knex } from 'knex';

/**
 * Review dashboard sessions: signing in with an API key or a user
 * token creates one row; the browser holds only a random session token in an httpOnly cookie,
 * and the row keeps its SHA-256, the organization the session is scoped to, who signed in, the
 * CSRF token state-changing requests must echo, and when it expires. A server-side row (rather
 * than a signed cookie) makes sign-out and key revocation take effect at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.uuid('id').primary();
    t.string('token_hash', 64).notNullable().unique();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('principal_kind', 16).notNullable();
    t.string('principal_id', 200).notNullable();
    t.uuid('api_key_id').references('api_keys.id').onDelete('CASCADE');
    t.string('csrf_token', 64).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dashboard_sessions');
}
