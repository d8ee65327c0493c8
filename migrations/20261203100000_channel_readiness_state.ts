import type { Knex } from 'knex';

/**
 * Channel readiness kept instead of scanned (docs/channels.md, "Readiness"):
 *
 * - `channel_readiness_states`: one per (catalog, channel): the key of what the verdicts were
 *   computed with (channel definition, mapping, currency, schema version, product id field),
 *   the watermark they are complete from, and the report's counts (total, ready, blocked by
 *   code, missing by attribute). Refreshed by reading only the items touched since the
 *   watermark; a new key rebuilds it.
 * - `channel_readiness_items`: each counted item's verdict under the state: its error codes and
 *   missing attributes (an item with no error codes is ready). What a refresh subtracts before
 *   it adds the item's new verdict.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('channel_readiness_states', (t) => {
    t.uuid('id').primary();
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.string('channel', 64).notNullable();
    t.string('context_key', 64).notNullable();
    t.timestamp('watermark', { useTz: true });
    t.integer('total').notNullable().defaultTo(0);
    t.integer('ready').notNullable().defaultTo(0);
    t.jsonb('blocked').notNullable().defaultTo('{}');
    t.jsonb('by_attribute').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['catalog_id', 'channel']);
  });
  await knex.schema.createTable('channel_readiness_items', (t) => {
    t.uuid('state_id').notNullable().references('channel_readiness_states.id').onDelete('CASCADE');
    t.uuid('item_id').notNullable();
    t.specificType('errors', 'text[]').notNullable();
    t.specificType('missing', 'text[]').notNullable();
    t.primary(['state_id', 'item_id']);
  });
}

/** Reverts `up`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('channel_readiness_items');
  await knex.schema.dropTableIfExists('channel_readiness_states');
}
