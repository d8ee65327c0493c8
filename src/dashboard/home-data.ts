import type { Knex } from 'knex';
import type { Catalog } from '../models/catalog';
import type { Scope } from '../services/access/scope';
import { catalogCompleteness, type CatalogCompleteness } from '../services/catalog/completeness';
import { listCatalogs } from '../services/catalog/catalogs';
import { creditsUsedThisMonth } from '../services/enrichment/credits';
import { listOperations, type Operation } from '../services/operations/operations';
import { pendingReviewCounts } from '../services/review/pending-reviews';

/** Catalogs the home page lists, at most (newest first, as the catalog list service orders them). */
export const HOME_CATALOGS = 200;
/** Operations the home page lists (the newest). */
export const HOME_OPERATIONS = 10;

/** What the home page shows (issue 28 §1). */
export interface HomePageData {
  catalogs: Array<{ catalog: Catalog; completeness: CatalogCompleteness; pendingReviews: number }>;
  /** How many catalogs the organization has (more than listed when over {@link HOME_CATALOGS}). */
  catalogTotal: number;
  /** The newest operations of every kind. */
  operations: Operation[];
  operationTotal: number;
  /** Credits the organization's enrichment jobs used this month (UTC). */
  creditsThisMonth: number;
}

/**
 * Loads the home page of `scope`'s organization: its catalogs with item count, completeness
 * (src/services/catalog/completeness.ts) and pending reviews; the newest operations; the credits
 * used this month. The queries run concurrently.
 */
export async function loadHomePage(knex: Knex, scope: Scope): Promise<HomePageData> {
  const [{ rows, total_count: total }, ops, credits] = await Promise.all([
    listCatalogs(knex, scope, { limit: HOME_CATALOGS, offset: 0 }),
    listOperations(knex, scope.organizationId, { page: 1, pageSize: HOME_OPERATIONS }),
    creditsUsedThisMonth(knex, scope.organizationId),
  ]);
  const ids = rows.map((c) => c.id);
  const [completeness, pending] = await Promise.all([catalogCompleteness(knex, ids), pendingReviewCounts(knex, ids)]);
  return {
    catalogs: rows.map((catalog, i) => ({ catalog, completeness: completeness[i], pendingReviews: pending[catalog.id] ?? 0 })),
    catalogTotal: total,
    operations: ops.operations,
    operationTotal: ops.total,
    creditsThisMonth: credits,
  };
}
