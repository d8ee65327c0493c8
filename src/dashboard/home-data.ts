import type { Knex } from 'knex';
import type { Catalog } from '../models/catalog';
import type { Scope } from '../services/access/scope';
import type { CatalogDeps } from '../services/catalog/catalog-caches';
import { completenessReport } from '../services/catalog/grid/completeness-report';
import { listCatalogs } from '../services/catalog/catalogs';
import { creditsUsedThisMonth } from '../services/enrichment/jobs/credits';
import { listOperations, type Operation } from '../services/operations/operations';
import { pendingReviewCounts } from '../services/review/pending-reviews';

/** Catalogs the home page lists, at most (newest first, as the catalog list service orders them). */
export const HOME_CATALOGS = 200;
/** Operations the home page lists (the newest). */
export const HOME_OPERATIONS = 10;

/** What the home page shows. */
export interface HomePageData {
  catalogs: Array<{ catalog: Catalog; pendingReviews: number }>;
  /** How many catalogs the organization has (more than listed when over {@link HOME_CATALOGS}). */
  catalogTotal: number;
  /** The newest operations of every kind. */
  operations: Operation[];
  operationTotal: number;
  /** Credits the organization's enrichment jobs used this month (UTC). */
  creditsThisMonth: number;
}

/**
 * Loads the home page of `scope`'s organization: its catalogs with item count and pending
 * reviews; the newest operations; the credits used this month. The queries run concurrently.
 * Completeness is not part of the server render (it scans every item: about 0.4 s per 100,000,
 * bench/console-home.ts): the page script loads it from {@link loadHomeCompleteness}.
 */
export async function loadHomePage(knex: Knex, scope: Scope): Promise<HomePageData> {
  const [{ rows, total_count: total }, ops, credits] = await Promise.all([
    listCatalogs(knex, scope, { limit: HOME_CATALOGS, offset: 0 }),
    listOperations(knex, scope.organizationId, { page: 1, pageSize: HOME_OPERATIONS }),
    creditsUsedThisMonth(knex, scope.organizationId),
  ]);
  const ids = rows.map((c) => c.id);
  const pending = await pendingReviewCounts(knex, ids);
  return {
    catalogs: rows.map((catalog) => ({ catalog, pendingReviews: pending[catalog.id] ?? 0 })),
    catalogTotal: total,
    operations: ops.operations,
    operationTotal: ops.total,
    creditsThisMonth: credits,
  };
}

/** Catalogs whose completeness one request of the home page script asks for, at most. */
export const HOME_COMPLETENESS_CATALOGS = HOME_CATALOGS;

/**
 * A catalog's completeness on the home page: the catalog completeness report's figures
 * (src/services/catalog/grid/completeness-report.ts, the completeness page's and the grid's
 * definition: an item is complete when every field it requires — the schema's `required` and
 * its taxonomy node's required attributes — is filled).
 */
export interface HomeCompleteness {
  catalog_id: string;
  /** The current schema's `required` fields (taxonomy nodes may require more). */
  required_fields: string[];
  /** Items counted (top-level ones in a product-grouped catalog, as the grid lists them). */
  items: number;
  /** Items with every required field filled. */
  complete: number;
  /** complete ÷ items, 0..1; null for an empty catalog. */
  share: number | null;
}

/**
 * Completeness of those of `catalogIds` that belong to `scope`'s organization (others are left
 * out, not errors), for the home page script (`GET /dashboard/completeness.json`). Each is the
 * catalog's completeness report (cached while its items, schema and profiles are unchanged;
 * counted concurrently otherwise).
 */
export async function loadHomeCompleteness(deps: CatalogDeps, scope: Scope, catalogIds: string[]): Promise<HomeCompleteness[]> {
  const wanted = [...new Set(catalogIds.filter((id) => /^[0-9a-f-]{36}$/i.test(id)))].slice(0, HOME_COMPLETENESS_CATALOGS);
  if (!wanted.length) return [];
  const owned: Array<{ id: string }> = await deps.knex('catalogs').where('organization_id', scope.organizationId).whereIn('id', wanted).select('id');
  return Promise.all(
    owned.map(async ({ id }) => {
      const r = await completenessReport(deps, scope, id);
      return {
        catalog_id: id,
        required_fields: r.grid.rules.schemaRequired,
        items: r.total,
        complete: r.complete,
        share: r.total ? r.complete / r.total : null,
      };
    }),
  );
}
