/**
 * The organization's default master catalog (docs/api-reference.md "Catalogs" `POST
 * /public/catalogs`: `use_master_catalog_defaults` "inherit defaults from the org default master
 * catalog"). A catalog created with `use_master_catalog_defaults: true` and no `master_catalog_id`
 * inherits from it (./catalogs.ts `createCatalog`). Set and read with
 * `PUT` / `GET /public/organization/default-master-catalog`.
 */
import type { Knex } from 'knex';
import { Catalog } from '../../models/catalog';
import { Organization } from '../../models/organization';
import { loadOwned } from '../access/ownership';
import type { Scope } from '../access/scope';

/** The setting as the routes answer it. */
export interface DefaultMasterCatalog {
  organization_id: string;
  /** The catalog's id, or null when none is set. */
  default_master_catalog_id: string | null;
}

/**
 * The id of the scope's organization's default master catalog, or null.
 * @throws NotFoundError when the organization row is missing (cannot happen for an authenticated scope)
 */
export async function defaultMasterCatalogId(knex: Knex | Knex.Transaction, scope: Scope): Promise<string | null> {
  const org = await Organization.query(knex).findById(scope.organizationId).throwIfNotFound();
  return org.default_master_catalog_id ?? null;
}

/** The organization's default master catalog setting. */
export async function getDefaultMasterCatalog(knex: Knex, scope: Scope): Promise<DefaultMasterCatalog> {
  return { organization_id: scope.organizationId, default_master_catalog_id: await defaultMasterCatalogId(knex, scope) };
}

/**
 * Sets (a catalog id) or clears (null) the organization's default master catalog.
 * @throws NotFoundError (404) / ForbiddenError (403) for a catalog that is unknown / of another organization
 */
export async function setDefaultMasterCatalog(knex: Knex, scope: Scope, catalogId: string | null): Promise<DefaultMasterCatalog> {
  return knex.transaction(async (trx) => {
    if (catalogId !== null) await loadOwned<Catalog>(trx, Catalog, catalogId, scope, 'Catalog not found');
    await Organization.query(trx).findById(scope.organizationId).patch({ default_master_catalog_id: catalogId }).throwIfNotFound();
    return { organization_id: scope.organizationId, default_master_catalog_id: catalogId };
  });
}
