import type { Knex } from 'knex';

/**
 * Rate-limit counters shared by every API process, in the layout the
 * rate-limiter-flexible package's PostgreSQL store uses (its `RateLimiterPostgres`): one row per
 * limited key with the points consumed and when the window expires (ms since the epoch).
 * Created here, not by the library at run time, so the API never issues DDL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rate_limits');
}
