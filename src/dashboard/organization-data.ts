import type { Knex } from 'knex';
import type { ApiKey } from '../models/api-key';
import type { Catalog } from '../models/catalog';
import type { Scope } from '../services/access/scope';
import { listApiKeys } from '../services/access/api-keys';
import { listPeople, type PersonSummary } from '../services/access/people';
import { listCatalogs } from '../services/catalog/catalogs';
import { getDefaultMasterCatalog } from '../services/catalog/default-master-catalog';

/** Catalogs offered as the default master catalog on the organization page, at most. */
const ORGANIZATION_PAGE_CATALOGS = 200;

/** What the organization page shows. The webhook secret is not in it: the page fetches it on request. */
export interface OrganizationPageData {
  /** The organization's API keys, revoked ones included (prefixes only; service order). */
  keys: ApiKey[];
  /** The catalogs a default master catalog can be chosen from (the first {@link ORGANIZATION_PAGE_CATALOGS}). */
  catalogs: Catalog[];
  /** The current default master catalog's id, or null. */
  defaultMasterCatalogId: string | null;
  /** The organization's people, by email. */
  people: PersonSummary[];
}

/** Loads the organization page of `scope`'s organization. */
export async function loadOrganizationPage(knex: Knex, scope: Scope): Promise<OrganizationPageData> {
  const [keys, catalogs, master, people] = await Promise.all([
    listApiKeys(knex, scope),
    listCatalogs(knex, scope, { limit: ORGANIZATION_PAGE_CATALOGS, offset: 0 }),
    getDefaultMasterCatalog(knex, scope),
    listPeople(knex, scope),
  ]);
  return { keys, catalogs: catalogs.rows, defaultMasterCatalogId: master.default_master_catalog_id, people };
}
