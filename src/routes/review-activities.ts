import type { ResolvedAppDeps } from '../deps';
import {
  presentReviewActivity,
  presentReviewActivityList,
  presentAppend,
  presentBulkReview,
  presentCreatedShell,
  presentReviewable,
  presentStagedChangePage,
  presentSubmitted,
  presentSummary,
} from '../presenters/review-activities';
import {
  ReviewActivityListQuery,
  ReviewActivityListResponse,
  ReviewActivityParams,
  ReviewActivityResponse,
  AppendBody,
  AppendResponse,
  BulkReviewBody,
  BulkReviewResponse,
  CreatedShellResponse,
  ReviewableResponse,
  StagedChangePageResponse,
  SummaryResponse,
  CatalogReviewActivityParams,
  CreateReviewActivityBody,
  CustomTransformBody,
  IncludeDraftsQuery,
  PendingReviewBody,
  StagedChangesQuery,
  SubmitBody,
  SubmitResponse,
} from '../schemas/review-activities';
import {
  appendStagedChanges,
  cancelReviewActivity,
  createReviewActivity,
  createCustomTransform,
  listReviewActivities,
  markPendingReview,
  submitDrafts,
} from '../services/review/review-activities';
import { bulkReview } from '../services/review/bulk-review';
import { getReviewActivity, listStagedChanges, stagedChangesSummary } from '../services/review/staged-changes';
import { defineRoute, RouteDef } from './registry';

/** The two mounts of every activity-scoped route (docs/api-reference.md "URLs": existing clients call them without `/public`). */
const PREFIXES = ['/public', ''] as const;

/**
 * Review activities (docs/api-review.md "Activities"; docs/api-reference.md "URLs"):
 * catalog-scoped list, shell and custom transform under `/public/catalogs/{id}/activities`, and
 * every activity-scoped route under both `/public/activities/{id}/…` and `/activities/{id}/…`
 * (same handler). Apply is src/routes/ of the apply module.
 * Long on purpose: a route table, one entry per route (and per prefix).
 */
export function reviewActivityRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['activities'];
  const catalogScoped: RouteDef[] = [
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/activities',
      tags,
      summary: "A catalog's activities (enrichment jobs targeting it included), newest first; vendor drafts count unless include_drafts=false",
      params: CatalogReviewActivityParams,
      query: ReviewActivityListQuery,
      response: ReviewActivityListResponse,
      handler: async ({ scope, params, query }) =>
        presentReviewActivityList(await listReviewActivities(deps.knex, scope, params.catalog_id, query), deps.config.publicUrl),
    }),
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/activities',
      tags,
      summary: 'Create an activity shell (status pending_review when changes are given, else created)',
      params: CatalogReviewActivityParams,
      body: CreateReviewActivityBody,
      response: CreatedShellResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) => presentCreatedShell(await createReviewActivity({ ...deps, knex: db }, scope, params.catalog_id, body)),
    }),
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/activities/custom-transform',
      tags,
      summary: 'Stage a custom transform (script, diff, validation report, changes) for review',
      params: CatalogReviewActivityParams,
      body: CustomTransformBody,
      response: ReviewableResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) => presentReviewable(await createCustomTransform({ ...deps, knex: db }, scope, params.catalog_id, body)),
    }),
  ];
  // Long on purpose: the route table of one review activity, repeated under each prefix.
  const activityScoped = PREFIXES.flatMap((prefix): RouteDef[] => [
    defineRoute({
      method: 'get',
      path: `${prefix}/activities/:activity_id`,
      tags,
      summary: 'An activity: status, input, last message, staged count, review_url, apply progress and result, restores of its pre-apply snapshots',
      params: ReviewActivityParams,
      query: IncludeDraftsQuery,
      response: ReviewActivityResponse,
      handler: async ({ scope, params, query }) =>
        presentReviewActivity(await getReviewActivity(deps.knex, scope, params.activity_id, query.include_drafts), deps.config.publicUrl),
    }),
    defineRoute({
      method: 'get',
      path: `${prefix}/activities/:activity_id/staged-changes`,
      tags,
      summary: 'Staged changes of an activity (paginated; filters status, field, confidence, search_query; vendor drafts listed unless include_drafts=false)',
      params: ReviewActivityParams,
      query: StagedChangesQuery,
      response: StagedChangePageResponse,
      handler: async ({ scope, params, query }) => presentStagedChangePage(await listStagedChanges(deps.knex, scope, params.activity_id, query)),
    }),
    defineRoute({
      method: 'get',
      path: `${prefix}/activities/:activity_id/staged-changes/summary`,
      tags,
      summary: 'Counts by status and per-field completion of an activity (vendor drafts counted unless include_drafts=false)',
      params: ReviewActivityParams,
      query: IncludeDraftsQuery,
      response: SummaryResponse,
      handler: async ({ scope, params, query }) => presentSummary(await stagedChangesSummary(deps.knex, scope, params.activity_id, query.include_drafts)),
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/activities/:activity_id/staged-changes/append`,
      tags,
      summary: 'Append a chunk of staged changes (idempotent with batch_key)',
      params: ReviewActivityParams,
      body: AppendBody,
      response: AppendResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) =>
        presentAppend(await appendStagedChanges({ ...deps, knex: db }, scope, params.activity_id, body.staged_changes, body.batch_key)),
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/activities/:activity_id/pending-review`,
      tags,
      summary: 'Submit an activity for review',
      params: ReviewActivityParams,
      body: PendingReviewBody,
      response: ReviewableResponse,
      handler: async ({ scope, params, body }) => presentReviewable(await markPendingReview(deps, scope, params.activity_id, body)),
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/activities/:activity_id/submit`,
      tags,
      summary: "Submit an activity's vendor drafts: every draft change becomes pending, the activity pending_review",
      params: ReviewActivityParams,
      body: SubmitBody,
      response: SubmitResponse,
      handler: async ({ scope, params, body }) => presentSubmitted(await submitDrafts(deps, scope, params.activity_id, body.message)),
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/activities/:activity_id/staged-changes/bulk-review`,
      tags,
      summary: 'Approve or reject changes, fields of changes, or every undecided change matching a filter; never a vendor draft (409 naming it)',
      params: ReviewActivityParams,
      body: BulkReviewBody,
      response: BulkReviewResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) => presentBulkReview(await bulkReview(db, scope, params.activity_id, body)),
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/activities/:activity_id/cancel`,
      tags,
      summary: 'Cancel an activity (staged changes kept; a running enrichment job is cancelled)',
      params: ReviewActivityParams,
      response: ReviewActivityResponse,
      handler: async ({ scope, params }) => presentReviewActivity(await cancelReviewActivity(deps, scope, params.activity_id), deps.config.publicUrl),
    }),
  ]);
  return [...catalogScoped, ...activityScoped];
}
