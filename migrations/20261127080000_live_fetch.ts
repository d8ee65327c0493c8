import type { Knex } from 'knex';

/**
 * The live fetcher's shared state (issue 27 §4–§6; docs/research.md, "The live web"), in
 * PostgreSQL so that every worker sees the same:
 * - `fetch_hosts`: per host the earliest start of its next request and when its last answer
 *   arrived (politeness spacing), its robots.txt `Crawl-delay` and whether its pages needed rendering;
 * - `fetch_host_slots`: leased request slots, `FETCH_PER_HOST_CONCURRENCY` per host at most
 *   (a lease expires, so a crashed worker never holds one for good);
 * - `fetch_robots`: each origin's robots.txt (RFC 9309), reused up to 24 h;
 * - `fetch_cache`: the last stored response of a URL with its HTTP cache policy
 *   (http-cache-semantics), reused or revalidated;
 * - `page_renders`: rendered DOMs of pages that build their product data with JavaScript.
 * (Each row's evidence WARC is a `source_artifacts` file like any captured source.)
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fetch_hosts', (t) => {
    t.text('host').primary();
    t.timestamp('next_start_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_answer_at', { useTz: true });
    t.integer('crawl_delay_ms');
    t.boolean('render_needed');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('fetch_host_slots', (t) => {
    t.text('host').notNullable();
    t.integer('slot').notNullable();
    t.text('holder').notNullable();
    t.timestamp('lease_until', { useTz: true }).notNullable();
    t.primary(['host', 'slot']);
  });
  await knex.schema.createTable('fetch_robots', (t) => {
    t.text('origin').primary();
    t.string('outcome', 16).notNullable();
    t.integer('http_status');
    t.text('body').notNullable().defaultTo('');
    t.timestamp('fetched_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('fetch_cache', (t) => {
    t.text('url').primary();
    t.text('final_url').notNullable();
    t.integer('status').notNullable();
    t.text('content_type').notNullable();
    t.jsonb('response_headers').notNullable();
    t.binary('body').notNullable();
    t.jsonb('policy').notNullable();
    t.timestamp('fetched_at', { useTz: true }).notNullable();
    t.timestamp('validated_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('page_renders', (t) => {
    t.text('url').primary();
    t.string('status', 16).notNullable();
    t.text('html');
    t.binary('screenshot');
    t.text('error');
    t.uuid('job_id');
    t.integer('row_index');
    t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('rendered_at', { useTz: true });
    t.index(['job_id', 'row_index']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['page_renders', 'fetch_cache', 'fetch_robots', 'fetch_host_slots', 'fetch_hosts']) await knex.schema.dropTableIfExists(table);
}
