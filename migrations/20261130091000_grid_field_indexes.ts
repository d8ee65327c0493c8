import type { Knex } from 'knex';

/**
 * Grid field indexes (every grid page ≤ 300 ms at 1,000,000 items): the per-catalog
 * expression indexes the item grid builds on demand for a data-field sort or filter of a large
 * catalog (src/services/catalog/grid/grid-indexes.ts), one row per index:
 *
 * - `index_name`: the PostgreSQL index, derived from catalog id, kind and field (idempotent);
 * - `catalog_id` (no foreign key on purpose: the row must outlive its catalog until the index is
 *   dropped), `organization_id` (deleting the organization deletes the rows; the hourly sweep then
 *   drops the indexes no row lists), `field`, `kind` (`key`: the JSON sort key and id; `text`: the
 *   value as text);
 * - `state`: `building` (asked for; CREATE INDEX CONCURRENTLY runs or will), `ready`, `failed`
 *   (with `error`), `dropping` (field removed or catalog deleted: DROP INDEX CONCURRENTLY pending);
 * - `requested_at`, `ready_at`, `build_ms`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalog_field_indexes', (t) => {
    t.string('index_name', 63).primary();
    t.uuid('catalog_id').notNullable();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('field').notNullable();
    t.string('kind', 8).notNullable();
    t.string('state', 16).notNullable();
    t.text('error');
    t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('ready_at', { useTz: true });
    t.integer('build_ms');
    t.unique(['catalog_id', 'kind', 'field']);
    t.index(['state']);
  });
  await knex.raw(`ALTER TABLE catalog_field_indexes ADD CONSTRAINT catalog_field_indexes_kind_check CHECK (kind IN ('key', 'text'))`);
  await knex.raw(
    `ALTER TABLE catalog_field_indexes ADD CONSTRAINT catalog_field_indexes_state_check CHECK (state IN ('building', 'ready', 'failed', 'dropping'))`,
  );
}

/** Drops the table and every grid field index it lists. */
export async function down(knex: Knex): Promise<void> {
  const { rows } = await knex.raw('SELECT index_name FROM catalog_field_indexes');
  for (const r of rows as Array<{ index_name: string }>) await knex.raw('DROP INDEX IF EXISTS ??', [r.index_name]);
  await knex.schema.dropTable('catalog_field_indexes');
}
