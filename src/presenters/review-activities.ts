/**
 * Review activities and staged changes → wire JSON (docs/api-review.md "Activities", "Staged
 * changes"; docs/api-review.md "Activities"). Timestamps ISO-8601 UTC (docs/api-reference.md "Identifiers and timestamps").
 */
import { iso } from '../lib/time';
import type { ReviewActivity } from '../models/review-activity';
import type { StagedChange } from '../models/staged-change';
import {
  reviewActivityUrl,
  type ReviewActivityListEntry,
  type AppendResult,
  type CreatedReviewActivity,
  type SubmittedReviewActivity,
} from '../services/review/review-activities';
import type { BulkReviewResult } from '../services/review/bulk-review';
import type { ReviewActivityDetail, StagedChangePage, StagedChangesSummary } from '../services/review/staged-changes';
import { presentApplyProgress } from './review-apply';

/**
 * One entry of an activity list (docs/api-review.md "Activities"): `{id, catalog_id, type, status, description,
 * staged_count, review_url, created_at, updated_at}`; `review_url` is absolute (`publicUrl`
 * is its base), null for an activity without a catalog.
 */
export function presentReviewActivityEntry(a: ReviewActivity, stagedCount: number, publicUrl: string): Record<string, unknown> {
  return {
    id: a.id,
    catalog_id: a.catalog_id,
    type: a.type,
    status: a.status,
    description: a.description,
    staged_count: stagedCount,
    review_url: reviewActivityUrl(publicUrl, a),
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
  };
}

/**
 * An activity (`GET /activities/{id}`, cancel): the list entry plus `metadata`, `input` (the
 * stored input data with `activity_message`: the custom transform's message, else the
 * description), `last_message`, `output`, apply's `apply_progress` / `apply_result`,
 * `draft_count` and the `restores` of its pre-apply snapshots.
 */
export function presentReviewActivity(d: ReviewActivityDetail, publicUrl: string): Record<string, unknown> {
  const a = d.activity;
  const input = a.input_data ?? {};
  return {
    ...presentReviewActivityEntry(a, d.stagedCount, publicUrl),
    metadata: a.metadata ?? {},
    input: { ...input, activity_message: input.activity_message ?? input.description ?? a.description },
    last_message: a.last_message ?? null,
    output: a.output ?? null,
    apply_progress: presentApplyProgress(a.apply_progress ?? null),
    apply_result: a.apply_result ?? null,
    draft_count: d.draftCount,
    restores: d.restores.map((r) => ({
      snapshot_id: r.snapshot_id,
      safety_snapshot_id: r.safety_snapshot_id,
      restored_at: iso(r.restored_at),
      restored_by: r.restored_by,
    })),
  };
}

/** `GET /public/catalogs/{id}/activities` (docs/api-review.md "Activities"): `{activities, total}`. */
export function presentReviewActivityList(list: { activities: ReviewActivityListEntry[]; total: number }, publicUrl: string): Record<string, unknown> {
  return { activities: list.activities.map((e) => presentReviewActivityEntry(e.activity, e.stagedCount, publicUrl)), total: list.total };
}

/** The submit answer (docs/api-review.md "Drafts"): `{activity_id, status, submitted, review_url}`. */
export function presentSubmitted(s: SubmittedReviewActivity): Record<string, unknown> {
  return { activity_id: s.activity.id, status: s.activity.status, submitted: s.submitted, review_url: s.reviewUrl };
}

/** The shell answer (docs/api-review.md "Activities"): `{activity_id, status, staged_changes_count}` (and `review_url`). */
export function presentCreatedShell(c: CreatedReviewActivity): Record<string, unknown> {
  return { activity_id: c.activity.id, status: c.activity.status, staged_changes_count: c.stagedCount, review_url: c.reviewUrl };
}

/** The custom-transform and pending-review answer (docs/api-review.md "Activities"): `{activity_id, status, staged_count, review_url}`. */
export function presentReviewable(c: CreatedReviewActivity): Record<string, unknown> {
  return { activity_id: c.activity.id, status: c.activity.status, staged_count: c.stagedCount, review_url: c.reviewUrl };
}

/** The append answer: `{activity_id, appended_count, total_staged_changes}`. */
export function presentAppend(r: AppendResult): Record<string, unknown> {
  return { activity_id: r.activity_id, appended_count: r.appended_count, total_staged_changes: r.total_staged_changes };
}

/** The bulk-review answer: `{activity_id, updated}`. */
export function presentBulkReview(r: BulkReviewResult): Record<string, unknown> {
  return { activity_id: r.activity_id, updated: r.updated };
}

/**
 * One staged change as listed (docs/api-review.md "Listing and summary"; docs/api-review.md "Staged changes"), with
 * the review-loop fields: `is_delete`, `base_version`, `accepted_fields`, `error_reason`,
 * `rejection_reason`, the `conflict` evidence and `applied_at`.
 */
export function presentStagedChange(r: StagedChange): Record<string, unknown> {
  return {
    id: r.id,
    status: r.status,
    catalog_item_id: r.catalog_item_id,
    catalog_item_entity_type: r.catalog_item_entity_type,
    before_data: r.before_data,
    after_data: r.after_data,
    source_data: r.source_data,
    is_new_item: r.is_new_item,
    is_delete: r.is_delete,
    row_index: r.row_index,
    review_info: r.review_info,
    base_version: r.base_version,
    accepted_fields: r.accepted_fields,
    error_reason: r.error_reason,
    rejection_reason: r.rejection_reason,
    conflict_data: r.conflict_data,
    conflict_version: r.conflict_version,
    applied_at: iso(r.applied_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** A page of staged changes (docs/api-review.md "Listing and summary"): `{items, total, page, page_size, total_pages}`. */
export function presentStagedChangePage(p: StagedChangePage): Record<string, unknown> {
  return { items: p.items.map(presentStagedChange), total: p.total, page: p.page, page_size: p.page_size, total_pages: p.total_pages };
}

/** The staged-changes summary (docs/api-review.md "Listing and summary"), as the service computed it. */
export function presentSummary(s: StagedChangesSummary): Record<string, unknown> {
  return { total_changes: s.total_changes, by_status: s.by_status, field_stats: s.field_stats, taxonomy_stats: s.taxonomy_stats };
}
