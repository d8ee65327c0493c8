import type { Knex } from 'knex';

/**
 * Versions of a catalog's markdown context (docs/api-reference.md "Versioning"; docs/api-reference.md "Catalog context and quality prompt"): one row per version, so `GET …/catalog-md?version=N` can read any older one. The
 * current text and number stay on `catalogs` (`catalog_md`, `catalog_md_version`); rows go
 * with their catalog.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalog_md_versions', (t) => {
    t.uuid('catalog_id').notNullable().references('catalogs.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.text('catalog_md');
    t.string('created_by', 200).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['catalog_id', 'version']);
  });
}

/** Reverts `up`, restoring the schema of the previous migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('catalog_md_versions');
}
