import type { Knex } from 'knex';

/**
 * People, not keys: reviewers sign in as themselves.
 *
 * - `people`: one row per person and organization: `email` (lower-cased, unique per
 *   organization), `name`, `password_hash` (scrypt, `scrypt$N$r$p$salt$hash`; null = no password
 *   sign-in), the OpenID Connect `oidc_issuer` + `oidc_subject` they signed in with (unique per
 *   issuer), `role` (viewer, editor, reviewer, admin) and `disabled`.
 * - `dashboard_sessions.person_id`: the person a session was opened for (null for API-key and
 *   user-token sessions, which act as admin as before).
 * - `staged_changes.decided_by` and `review_activities.applied_by`: who approved or rejected a
 *   change and who asked for the apply, as `person:<id>`, `api_key:<id>` or `user:<sub>`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('people', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.string('email', 320).notNullable();
    t.string('name', 200).notNullable().defaultTo('');
    t.text('password_hash');
    t.string('oidc_issuer', 500);
    t.string('oidc_subject', 255);
    t.string('role', 16).notNullable();
    t.boolean('disabled').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['organization_id', 'email']);
    t.unique(['organization_id', 'oidc_issuer', 'oidc_subject']);
    t.index(['email']);
  });
  await knex.raw(`ALTER TABLE people ADD CONSTRAINT people_role_check CHECK (role IN ('viewer', 'editor', 'reviewer', 'admin'))`);
  await knex.schema.alterTable('dashboard_sessions', (t) => {
    t.uuid('person_id').references('people.id').onDelete('CASCADE');
  });
  await knex.schema.alterTable('staged_changes', (t) => {
    t.string('decided_by', 200);
  });
  await knex.schema.alterTable('review_activities', (t) => {
    t.string('applied_by', 200);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('review_activities', (t) => t.dropColumn('applied_by'));
  await knex.schema.alterTable('staged_changes', (t) => t.dropColumn('decided_by'));
  await knex.schema.alterTable('dashboard_sessions', (t) => t.dropColumn('person_id'));
  await knex.schema.dropTableIfExists('people');
}
