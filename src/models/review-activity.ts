import { BaseModel } from './base';

/** Activity types (decisions.md §5). */
export type ReviewActivityType = 'enrichment' | 'custom_transform' | 'smart_import';
/** Activity statuses (decisions.md §5). */
export type ReviewActivityStatus = 'created' | 'running' | 'pending_review' | 'completed' | 'cancelled' | 'failed';

/**
 * A reviewable activity (the spec's "activity"; named so it is never confused with a Temporal
 * activity, architecture.md Names). Every enrichment job is one, of type `enrichment`.
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
  /** Progress of a running apply (`activity-apply-<id>`): `{phase, applied, total}`. */
  apply_progress!: Record<string, unknown> | null;
  /** Result of the apply: `{applied, skipped_conflicts, failed, pre_apply_snapshot_id}`. */
  apply_result!: Record<string, unknown> | null;
  /** Who last asked for the apply (issue 28 §12): `person:<id>`, `api_key:<id>` or `user:<sub>`. */
  applied_by!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
