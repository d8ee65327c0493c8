/**
 * Request schemas of the review API (docs/api-review.md "Activities"; docs/api-reference.md "URLs"; docs/tool-server-design.md "Staging" for what the existing tool-server client sends). Staged changes
 * accept the fields of docs/api-review.md "Staged changes" plus `is_delete`, `base_version`,
 * `review_info` and `status`; other keys a client sends along are ignored (the tool server's
 * rows are JSON lines of a local diff).
 */
import { Static, Type } from '@sinclair/typebox';
import { CONFIDENCE_LEVELS, STAGED_STATUSES } from '../models/staged-change';
import { AnyArray, AnyObject, Nullable, POSITION_MAX, StringEnum, withDefault } from './common';

/** Activity types (docs/api-review.md "Activities"). */
export const ACTIVITY_TYPES = ['enrichment', 'custom_transform', 'smart_import'] as const;
/** Activity statuses (docs/api-review.md "Activities"). */
export const ACTIVITY_STATUSES = ['created', 'running', 'pending_review', 'completed', 'cancelled', 'failed'] as const;
/** Most staged changes in one append or create request (the tool server sends chunks of ≤ 2,000). */
export const MAX_CHANGES_PER_REQUEST = 5000;

/** Path parameters of activity-scoped routes. */
export const ReviewActivityParams = Type.Object({
  activity_id: Type.String({ description: 'Activity id (an enrichment job id is one, docs/api-enrichment.md "Enrichment jobs")' }),
});

/** Path parameters of catalog-scoped activity routes. */
export const CatalogReviewActivityParams = Type.Object({ catalog_id: Type.String({ description: 'Catalog id' }) });

/** One staged change as clients send it (docs/api-review.md "Staged changes"; docs/tool-server-design.md "Staging"). */
export const StagedChangeInput = Type.Object(
  {
    catalog_item_id: Type.Optional(Nullable(Type.String({ description: 'The item changed; null or absent for a new item' }))),
    catalog_item_entity_type: Type.Optional(Nullable(Type.String({ maxLength: 16 }))),
    before_data: Type.Optional(Nullable(AnyObject({ description: 'The item before (snapshot-row system columns `__…` are read, never stored)' }))),
    after_data: Type.Optional(Nullable(AnyObject({ description: 'The item after; empty with a catalog_item_id = a delete' }))),
    source_data: Type.Optional(Nullable(AnyObject())),
    is_new_item: Type.Optional(Nullable(Type.Boolean())),
    is_delete: Type.Optional(Nullable(Type.Boolean({ description: 'A delete of catalog_item_id' }))),
    row_index: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 0,
          maximum: 2_147_483_647,
          description: 'Kept as sent (unique within the activity, else 422); absent: numbered after the highest row index, in the order appended',
        }),
      ),
    ),
    base_version: Type.Optional(
      Nullable(Type.Integer({ minimum: 0, description: 'Item version the change was computed from (default: `__current_version`, else the current one)' })),
    ),
    review_info: Type.Optional(Type.Unknown()),
    status: Type.Optional(StringEnum(['pending', 'draft'] as const, { description: 'Initial status (default pending)' })),
  },
  { additionalProperties: true },
);
/** {@link StagedChangeInput} as validated. */
export type StagedChangeInputT = Static<typeof StagedChangeInput>;

const StagedChanges = Type.Array(StagedChangeInput, { maxItems: MAX_CHANGES_PER_REQUEST });

/**
 * `include_drafts` of the read routes (docs/review.md "Vendor drafts"): over the API drafts are
 * read like any change, so the default is true; false gives the review console's view, which
 * leaves drafts out until they are submitted. Kept for the clients that send it.
 */
const includeDrafts = Type.Optional(
  withDefault(
    Type.Boolean({
      description:
        'Vendor drafts (status "draft": staged with status "draft" or by a job with staged_status "draft", not submitted yet) are read like any change by default. ' +
        "false leaves them out (the review console's view until POST /activities/{id}/submit turns them into pending). Kept for compatibility.",
    }),
    true,
  ),
);

/** `GET /public/catalogs/{id}/activities` query (docs/api-review.md "Activities"). */
export const ReviewActivityListQuery = Type.Object({
  status: Type.Optional(StringEnum(ACTIVITY_STATUSES)),
  type: Type.Optional(StringEnum(ACTIVITY_TYPES)),
  include_drafts: includeDrafts,
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 50)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
});

/** `POST /public/catalogs/{id}/activities`: an activity shell (docs/api-review.md "Activities"; docs/tool-server-design.md "Staging"). */
export const CreateReviewActivityBody = Type.Object(
  {
    type: StringEnum(['custom_transform', 'smart_import'] as const, { description: 'Enrichment activities are created by POST /public/enrich' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
    input_data: Type.Optional(Nullable(AnyObject())),
    staged_changes: Type.Optional(StagedChanges),
    metadata: Type.Optional(Nullable(AnyObject())),
    status: Type.Optional(StringEnum(['created', 'pending_review'] as const, { description: 'Default: pending_review when changes are given, else created' })),
  },
  { additionalProperties: false },
);
/** {@link CreateReviewActivityBody} as validated. */
export type CreateReviewActivityInput = Static<typeof CreateReviewActivityBody>;

/** `POST /public/catalogs/{id}/activities/custom-transform` (docs/api-review.md "Activities": only `activity_message` is required). */
export const CustomTransformBody = Type.Object(
  {
    activity_message: Type.String({ minLength: 1, maxLength: 10000 }),
    script: Type.Optional(Nullable(AnyObject())),
    diff_summary: Type.Optional(Nullable(AnyObject())),
    validation_report: Type.Optional(Nullable(AnyObject())),
    staged_changes: Type.Optional(StagedChanges),
    schema_changes: Type.Optional(Nullable(AnyObject())),
    taxonomy_changes: Type.Optional(Nullable(AnyObject())),
    attachments: Type.Optional(Nullable(AnyArray({ items: { type: 'object' } }))),
    activity_context: Type.Optional(Nullable(AnyObject())),
    session_context: Type.Optional(Nullable(AnyObject())),
    base_snapshot_id: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: false },
);
/** {@link CustomTransformBody} as validated. */
export type CustomTransformInput = Static<typeof CustomTransformBody>;

/** `POST /public/activities/{id}/staged-changes/append` (docs/api-review.md "Activities"; docs/api-review.md "Appending staged changes"). */
export const AppendBody = Type.Object(
  {
    staged_changes: StagedChanges,
    batch_key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'A retried batch with the same key is a no-op' }))),
  },
  { additionalProperties: false },
);

/** `POST /public/activities/{id}/pending-review` (docs/api-review.md "Activities"). */
export const PendingReviewBody = Type.Object(
  {
    message: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
    output: Type.Optional(Nullable(AnyObject())),
  },
  { additionalProperties: false },
);

/** `GET /activities/{id}` and `…/staged-changes/summary` query: whether drafts count (they do unless false). */
export const IncludeDraftsQuery = Type.Object({ include_drafts: includeDrafts });

/** The staged-change filter of the list and of bulk review (dashboard filters), without `include_drafts` (each says its own). */
const filterProps = {
  status: Type.Optional(
    StringEnum(STAGED_STATUSES, {
      description:
        'Only this status ("pending" leaves drafts out, "draft" gives only drafts). Bulk actions without it act only on undecided (pending) changes; a bulk filter with "draft" answers 409',
    }),
  ),
  field: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'after_data has this field with a value different from before_data' })),
  confidence: Type.Optional(StringEnum(CONFIDENCE_LEVELS, { description: 'review_info.confidence' })),
  search_query: Type.Optional(Type.String({ maxLength: 500, description: 'Case-insensitive substring of the before/after data' })),
};

/** `GET /activities/{id}/staged-changes` query (plus `field` and `confidence`). */
export const StagedChangesQuery = Type.Object({
  page: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: POSITION_MAX }), 1)),
  page_size: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 50)),
  ...filterProps,
  include_drafts: includeDrafts,
});

/**
 * The filter of `approve_all` / `reject_all`: the list's, but bulk actions never touch a vendor
 * draft (docs/review.md "Vendor drafts"), so `include_drafts` has no default and `true` is a 409.
 */
export const StagedChangeFilterSchema = Type.Object(
  {
    ...filterProps,
    include_drafts: Type.Optional(
      Type.Boolean({
        description: 'Bulk actions never touch vendor drafts: true answers 409 (submit the drafts first); false or absent acts on pending changes only',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `POST /public/activities/{id}/submit` (docs/api-review.md "Drafts"): no body needed; `message` is kept as the activity's last message. */
export const SubmitBody = Type.Object({ message: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))) }, { additionalProperties: false });

/** `POST /activities/{id}/staged-changes/bulk-review` (docs/api-review.md "Bulk review"). */
export const BulkReviewBody = Type.Object(
  {
    action: StringEnum(['approve', 'reject', 'approve_all', 'reject_all'] as const),
    change_ids: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 10000,
        description: 'Changes of approve / reject. Naming a vendor draft answers 409 with the draft ids, and nothing is changed (submit drafts first)',
      }),
    ),
    field_names: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'approve / reject only these fields of the changes' })),
    filter: Type.Optional(StagedChangeFilterSchema),
    rejection_reason: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
/** {@link BulkReviewBody} as validated. */
export type BulkReviewInput = Static<typeof BulkReviewBody>;

// Response shapes (documentation only: the presenters in src/presenters/review-activities.ts build them).

const DateTime = Type.String({ format: 'date-time' });
/** `review_url` of answers about an activity (docs/api-review.md "Activities"), absolute; null without a catalog (no review page). */
const ReviewUrl = Nullable(Type.String({ description: 'Absolute: {PUBLIC_URL}/dashboard/catalogs/{catalog_id}/activities/{activity_id}' }));
const activityEntryProps = {
  id: Type.String(),
  catalog_id: Nullable(Type.String()),
  type: StringEnum(ACTIVITY_TYPES),
  status: StringEnum(ACTIVITY_STATUSES),
  description: Nullable(Type.String()),
  staged_count: Type.Integer({ description: 'Staged changes, vendor drafts included (left out with include_drafts=false)' }),
  review_url: ReviewUrl,
  created_at: DateTime,
  updated_at: DateTime,
};

/** One entry of the activity list (docs/api-review.md "Activities"). */
export const ReviewActivityEntryResponse = Type.Object(activityEntryProps);

/** `GET /public/catalogs/{id}/activities` (docs/api-review.md "Activities"). */
export const ReviewActivityListResponse = Type.Object({ activities: Type.Array(ReviewActivityEntryResponse), total: Type.Integer() });

/** An activity (get, cancel): the list entry plus input, messages and apply state. */
export const ReviewActivityResponse = Type.Object({
  ...activityEntryProps,
  metadata: AnyObject(),
  input: AnyObject({ description: 'The stored input data, with `activity_message`' }),
  last_message: Nullable(Type.String()),
  output: Nullable(AnyObject()),
  apply_progress: Nullable(AnyObject({ description: 'While `activity-apply-<id>` runs' })),
  apply_result: Nullable(
    AnyObject({ description: 'The last apply: `{applied, skipped_conflicts, failed, errors: [{change_id, row_index, reason}], pre_apply_snapshot_id}`' }),
  ),
  draft_count: Type.Integer({ description: 'Vendor drafts among its changes (whatever include_drafts says), waiting for POST /activities/{id}/submit' }),
  restores: Type.Array(
    Type.Object({
      snapshot_id: Type.String({ description: "The activity's pre_apply snapshot that was restored" }),
      safety_snapshot_id: Type.String({ description: 'The safety snapshot the restore took first (restore it to redo the apply)' }),
      restored_at: DateTime,
      restored_by: Type.String(),
    }),
    { description: "Restores of this activity's pre_apply snapshots, newest first" },
  ),
});

/** The submit answer (docs/api-review.md "Drafts"): the drafts it turned into `pending`. */
export const SubmitResponse = Type.Object({
  activity_id: Type.String(),
  status: StringEnum(ACTIVITY_STATUSES),
  submitted: Type.Integer({ description: 'Drafts turned into pending' }),
  review_url: Type.String(),
});

/** The shell answer (docs/api-review.md "Activities"). */
export const CreatedShellResponse = Type.Object({
  activity_id: Type.String(),
  status: StringEnum(ACTIVITY_STATUSES),
  staged_changes_count: Type.Integer(),
  review_url: Type.String(),
});

/** The custom-transform and pending-review answer (docs/api-review.md "Activities"). */
export const ReviewableResponse = Type.Object({
  activity_id: Type.String(),
  status: StringEnum(ACTIVITY_STATUSES),
  staged_count: Type.Integer(),
  review_url: Type.String({ description: '{PUBLIC_URL}/dashboard/catalogs/{catalog_id}/activities/{activity_id}' }),
});

/** The append answer. */
export const AppendResponse = Type.Object({ activity_id: Type.String(), appended_count: Type.Integer(), total_staged_changes: Type.Integer() });

/** The bulk-review answer. */
export const BulkReviewResponse = Type.Object({ activity_id: Type.String(), updated: Type.Integer() });

/** A staged change as listed (plus the review-loop fields). */
export const StagedChangeResponse = Type.Object({
  id: Type.String(),
  status: StringEnum(STAGED_STATUSES),
  catalog_item_id: Nullable(Type.String()),
  catalog_item_entity_type: Type.String(),
  before_data: AnyObject(),
  after_data: AnyObject(),
  source_data: AnyObject(),
  is_new_item: Type.Boolean(),
  is_delete: Type.Boolean(),
  row_index: Type.Integer(),
  review_info: Type.Unknown(),
  base_version: Nullable(Type.Integer()),
  accepted_fields: Nullable(Type.Array(Type.String())),
  error_reason: Nullable(Type.String()),
  rejection_reason: Nullable(Type.String()),
  conflict_data: Nullable(AnyObject()),
  conflict_version: Nullable(Type.Integer()),
  applied_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
});

/** A page of staged changes (docs/api-review.md "Listing and summary"). */
export const StagedChangePageResponse = Type.Object({
  items: Type.Array(StagedChangeResponse),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_pages: Type.Integer(),
});

/** The staged-changes summary (docs/api-review.md "Listing and summary"). */
export const SummaryResponse = Type.Object({
  total_changes: Type.Integer(),
  by_status: AnyObject({ additionalProperties: { type: 'integer' } }),
  field_stats: AnyObject({ description: 'field → {completed, total, completion_rate, changed}' }),
  taxonomy_stats: AnyObject({ description: '{with_category, categories: {category_id: count}}' }),
});
