import type { Knex } from 'knex';
import { NotFoundError } from '../lib/errors';
import type { Catalog } from '../models/catalog';
import { ReviewActivity } from '../models/review-activity';
import type { StagedChange } from '../models/staged-change';
import type { Scope } from '../services/access/scope';
import { getCatalog } from '../services/catalog/catalogs';
import { getActivity, listStagedChanges, stagedChangesSummary, type StagedChangesSummary } from '../services/enrichment/staging';

/**
 * What the review dashboard's pages show (issue 17), read through the services the API uses so a
 * page and `GET /api/activities/...` never disagree; the page's queries run concurrently.
 */

/** Staged changes per dashboard page. */
export const DASHBOARD_PAGE_SIZE = 25;
/** Confidence levels a change can be filtered by (review_info.field_confidence, decisions.md §4). */
export const CONFIDENCE_LEVELS = ['high', 'medium', 'low'] as const;

/** The activity page's filters, as in its URL query; they are also the bulk-review `filter`. */
export interface ActivityFilters {
  status?: string;
  field?: string;
  confidence?: string;
  search_query?: string;
  page: number;
}

/** Everything the activity page renders. */
export interface ActivityPageData {
  catalog: Catalog;
  activity: ReviewActivity;
  stagedCount: number;
  summary: StagedChangesSummary;
  changes: StagedChange[];
  total: number;
  totalPages: number;
}

/**
 * Loads the activity page: the catalog, the activity (which must belong to that catalog), its
 * summary and one page of staged changes under `filters` (`field` and `confidence` are passed to
 * the staged-changes list with the others).
 * @throws NotFoundError (404) for an unknown catalog or activity, or an activity of another
 *   catalog; ForbiddenError (403) for another organization's
 */
export async function loadActivityPage(knex: Knex, scope: Scope, catalogId: string, activityId: string, filters: ActivityFilters): Promise<ActivityPageData> {
  const query = {
    page: filters.page,
    page_size: DASHBOARD_PAGE_SIZE,
    status: filters.status,
    field: filters.field,
    confidence: filters.confidence,
    search_query: filters.search_query,
  };
  const [{ activity, stagedCount }, { catalog }] = await Promise.all([getActivity(knex, scope, activityId), getCatalog(knex, scope, catalogId)]);
  if (activity.catalog_id !== catalogId) throw new NotFoundError('Activity not found');
  const [summary, page] = await Promise.all([stagedChangesSummary(knex, scope, activityId), listStagedChanges(knex, scope, activityId, query)]);
  return { catalog, activity, stagedCount, summary, changes: page.items, total: page.total, totalPages: page.total_pages };
}

/** One activity of the catalog page with its number of staged changes. */
export interface CatalogActivity {
  activity: ReviewActivity;
  stagedCount: number;
}

/** How many activities the catalog page lists (newest first). */
export const CATALOG_PAGE_ACTIVITIES = 200;

/**
 * Loads the catalog page: the catalog and its newest {@link CATALOG_PAGE_ACTIVITIES} activities
 * (enrichment jobs that target it included, decisions.md §4) with their staged-change counts.
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog
 */
export async function loadCatalogPage(knex: Knex, scope: Scope, catalogId: string): Promise<{ catalog: Catalog; activities: CatalogActivity[] }> {
  const { catalog } = await getCatalog(knex, scope, catalogId);
  const activities = await ReviewActivity.query(knex)
    .where({ organization_id: scope.organizationId, catalog_id: catalogId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(CATALOG_PAGE_ACTIVITIES);
  const counts = activities.length
    ? ((await knex('staged_changes')
        .whereIn(
          'activity_id',
          activities.map((a) => a.id),
        )
        .groupBy('activity_id')
        .select('activity_id')
        .count({ n: '*' })) as unknown as Array<{ activity_id: string; n: string }>)
    : [];
  const byId = new Map(counts.map((c) => [c.activity_id, Number(c.n)]));
  return { catalog, activities: activities.map((activity) => ({ activity, stagedCount: byId.get(activity.id) ?? 0 })) };
}
