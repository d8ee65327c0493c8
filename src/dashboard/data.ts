import type { Knex } from 'knex';
import { actorNames } from '../services/access/people';
import { NotFoundError } from '../lib/errors';
import type { Catalog } from '../models/catalog';
import type { ReviewActivity } from '../models/review-activity';
import type { StagedChange } from '../models/staged-change';
import type { Scope } from '../services/access/scope';
import { getCatalog } from '../services/catalog/catalogs';
import { listReviewActivities, type ReviewActivityListEntry } from '../services/review/review-activities';
import { countBulkTargets } from '../services/review/bulk-review';
import { categoryPaths } from '../services/review/category-paths';
import { countByStatus, getReviewActivity, listStagedChanges, type ReviewActivityRestore } from '../services/review/staged-changes';

/**
 * What the review dashboard's pages show, read through the services the API uses so a
 * page and `GET /api/activities/...` never disagree; the page's queries run concurrently. The
 * per-field completion (the summary service aggregates every field of every change: 0.8–1.4 s
 * on 100,000 changes, bench/dashboard-page.ts) is not part of the server render: the page script
 * loads it from `GET /api/activities/{id}/staged-changes/summary` after the page is shown, so
 * the first page stays within 300 ms; the counts by status are one index-only aggregate.
 */

/** Staged changes per dashboard page. */
export const DASHBOARD_PAGE_SIZE = 25;

/** The activity page's filters, as in its URL query; they are also the bulk-review `filter`. */
export interface ReviewActivityFilters {
  status?: string;
  /**
   * Show vendor drafts (`?drafts=1`, the "Include drafts" toggle): the console leaves them out
   * until they are submitted (docs/review.md "Vendor drafts"), unlike the API's default.
   */
  include_drafts?: boolean;
  field?: string;
  confidence?: string;
  search_query?: string;
  page: number;
}

/** Everything the activity page renders. */
export interface ReviewActivityPageData {
  catalog: Catalog;
  activity: ReviewActivity;
  stagedCount: number;
  /** Vendor drafts of the activity (shown only with `include_drafts`, counted always). */
  draftCount: number;
  /** Restores of the activity's pre-apply snapshots, newest first. */
  restores: ReviewActivityRestore[];
  /** Staged changes per status (statuses without changes absent; drafts only with `include_drafts`). */
  byStatus: Record<string, number>;
  /** Approved or partially accepted changes not applied yet: what Apply writes. */
  toApply: number;
  /** How many changes "approve all" / "reject all" over the page's filters would change now (undecided ones). */
  bulkCounts: { approve_all: number; reject_all: number };
  /** Fields the field filter offers: the catalog schema's, then any other field of the page's changes. */
  fields: string[];
  changes: StagedChange[];
  total: number;
  totalPages: number;
  /** Taxonomy node id → its path, for the `category_id` values of the page's changes (src/services/review/category-paths.ts). */
  categoryPaths: Record<string, string>;
  /** Display names of who decided the page's changes and who applied: actor id (`person:<id>`, …) → name. */
  actors: Record<string, string>;
}

/**
 * Loads the activity page: the catalog, the activity (which must belong to that catalog), its
 * counts by status, the fields to filter by, one page of staged changes under `filters` (the
 * staged-changes list's own filter, src/services/review/staged-changes.ts), and how many of
 * them "approve all" / "reject all" would change (the undecided ones: the bulk-review service's
 * own count, src/services/review/bulk-review.ts, so the buttons say what the action touches).
 * Vendor drafts count and are listed only when `filters.include_drafts` (the console's toggle);
 * the services' own default (the API's) would show them.
 * @throws NotFoundError (404) for an unknown catalog or activity, or an activity of another
 *   catalog; ForbiddenError (403) for another organization's
 */
export async function loadReviewActivityPage(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  activityId: string,
  filters: ReviewActivityFilters,
): Promise<ReviewActivityPageData> {
  const drafts = filters.include_drafts === true;
  const query = {
    page: filters.page,
    page_size: DASHBOARD_PAGE_SIZE,
    status: filters.status,
    field: filters.field,
    confidence: filters.confidence,
    search_query: filters.search_query,
    include_drafts: drafts,
  };
  const [detail, { catalog, schema }] = await Promise.all([getReviewActivity(knex, scope, activityId, drafts), getCatalog(knex, scope, catalogId)]);
  if (detail.activity.catalog_id !== catalogId) throw new NotFoundError('Activity not found');
  const [byStatus, page, toApply, bulkCounts] = await Promise.all([
    countByStatus(knex, activityId, drafts),
    listStagedChanges(knex, scope, activityId, query),
    countToApply(knex, activityId),
    countBulkTargets(knex, activityId, query),
  ]);
  const fields = Object.keys(schema.schema_definition.properties ?? {});
  for (const c of page.items) for (const k of Object.keys(c.after_data ?? {})) if (!fields.includes(k)) fields.push(k);
  const categories = await categoryPaths(knex, activityId, schema.taxonomy, page.items);
  const actors = await actorNames(knex, scope.organizationId, [
    detail.activity.applied_by,
    ...page.items.map((c) => c.decided_by),
    ...detail.restores.map((r) => r.restored_by),
  ]);
  return {
    ...detail,
    catalog,
    byStatus,
    toApply,
    bulkCounts,
    fields,
    changes: page.items,
    total: page.total,
    totalPages: page.total_pages,
    categoryPaths: categories,
    actors: Object.fromEntries(actors),
  };
}

/** Approved or partially accepted changes of an activity not applied yet. */
async function countToApply(knex: Knex, activityId: string): Promise<number> {
  const [{ n }] = (await knex('staged_changes')
    .where('activity_id', activityId)
    .whereIn('status', ['approved', 'partially_accepted'])
    .whereNull('applied_at')
    .count({ n: '*' })) as Array<{ n: string }>;
  return Number(n);
}

/** How many activities the catalog page lists (newest first). */
export const CATALOG_PAGE_ACTIVITIES = 200;

/**
 * Loads the catalog page: the catalog and its newest {@link CATALOG_PAGE_ACTIVITIES} activities
 * (enrichment jobs that target it included: a job is also an activity, docs/review.md) with their staged-change and draft
 * counts, from the activity list service (`GET /public/catalogs/{id}/activities`). Unless
 * `includeDrafts` (the page's "Include drafts" toggle), vendor drafts are left out: an activity
 * whose changes are all drafts is not listed and staged counts leave drafts out
 * (docs/review.md "Vendor drafts").
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog
 */
export async function loadCatalogPage(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  includeDrafts: boolean,
): Promise<{ catalog: Catalog; activities: ReviewActivityListEntry[]; total: number }> {
  const [{ catalog }, { activities, total }] = await Promise.all([
    getCatalog(knex, scope, catalogId),
    listReviewActivities(knex, scope, catalogId, { limit: CATALOG_PAGE_ACTIVITIES, offset: 0, include_drafts: includeDrafts }),
  ]);
  return { catalog, activities, total };
}
