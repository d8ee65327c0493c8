import type { Knex } from 'knex';

/**
 * The organization's default master catalog (docs/api-reference.md "Catalogs" `POST
 * /public/catalogs`: `use_master_catalog_defaults` "inherit defaults from the org default master
 * catalog"): a catalog of the organization, set with `PUT /public/organization/default-master-catalog`.
 * Deleting the catalog clears it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.uuid('default_master_catalog_id').nullable().references('catalogs.id').onDelete('SET NULL');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('default_master_catalog_id');
  });
}
