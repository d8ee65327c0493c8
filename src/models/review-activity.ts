import { BaseModel } from './base';

/** Activity types (docs/api-review.md "Activities"). */
export type ReviewActivityType = 'enrichment' | 'custom_transform' | 'smart_import';
/** Activity statuses (docs/api-review.md "Activities"). */
export type ReviewActivityStatus = 'created' | 'running' | 'pending_review' | 'completed' | 'cancelled' | 'failed';

/** A change an apply could not apply: now `error` with this reason (docs/api-review.md "Apply"). */
export interface ApplyFailure {
  change_id: string;
  row_index: number;
  reason: string;
}

/** Result of an apply, stored in `review_activities.apply_result` (docs/api-review.md "Apply"). */
export interface ApplyResult {
  /** Changes applied (creates, updates, deletes). */
  applied: number;
  /** Changes left as `conflict` (the item changed since the change was computed). */
  skipped_conflicts: number;
  /** Changes that could not be applied (item gone, a value of the wrong type, invalid create, …), now `error` with a reason. */
  failed: number;
  /** The first 100 (src/services/review/apply.ts MAX_ERRORS_IN_RESULT) of the `failed` changes with their reasons (all of them: list the activity's changes in status `error`). */
  errors: ApplyFailure[];
  pre_apply_snapshot_id: string | null;
  /** The schema version the activity's schema/taxonomy changes created, when any. */
  new_schema_version?: string;
}

/**
 * Phases of `review_activities.apply_progress.phase`: `queued` (requested), `applying` (the
 * pre-apply snapshot is taken, the apply transaction runs), `completed`, `failed` (for good).
 */
export type ApplyPhase = 'queued' | 'applying' | 'completed' | 'failed';

/**
 * `review_activities.apply_progress`: the phase, the pre-apply snapshot and the workflow run that
 * took it, the result once completed, the error once failed.
 */
export interface ApplyProgress {
  phase: ApplyPhase;
  force?: boolean;
  pre_apply_snapshot_id?: string | null;
  /** Workflow run id that took `pre_apply_snapshot_id` (retries of that run reuse it). */
  snapshot_run_id?: string;
  error?: string;
  applied?: number;
  skipped_conflicts?: number;
  failed?: number;
}

/**
 * A reviewable activity (the API's "activity"; named so it is never confused with a Temporal
 * activity, docs/workflows.md "Temporal: workflows, ids, search attributes"). Every enrichment job is one, of type `enrichment`.
 */
export class ReviewActivity extends BaseModel {
  static tableName = 'review_activities';
  static jsonAttributes = ['metadata', 'input_data', 'output', 'apply_progress', 'apply_result'];
  id!: string;
  organization_id!: string;
  catalog_id!: string | null;
  type!: ReviewActivityType;
  status!: ReviewActivityStatus;
  description!: string | null;
  metadata!: Record<string, unknown>;
  /** What the activity was created with (custom transform: description, schema/taxonomy changes, context). */
  input_data!: Record<string, unknown> | null;
  /** The message of the last pending-review (or the activity message). */
  last_message!: string | null;
  /** The `output` of the last pending-review (e.g. a diff summary). */
  output!: Record<string, unknown> | null;
  /** Progress of an apply (`activity-apply-<id>`). */
  apply_progress!: ApplyProgress | null;
  /** Result of the apply, once completed. */
  apply_result!: ApplyResult | null;
  /** Who last asked for the apply: `person:<id>`, `api_key:<id>` or `user:<sub>`. */
  applied_by!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
