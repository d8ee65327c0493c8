import { BaseModel } from './base';

/** Staged change statuses (docs/api-review.md "Conflicts"; `conflict` is the seventh, set by apply). */
export const STAGED_STATUSES = ['draft', 'pending', 'approved', 'rejected', 'partially_accepted', 'error', 'conflict'] as const;

/** Confidence levels of `review_info.confidence` (docs/api-enrichment.md "Review info"). */
export const CONFIDENCE_LEVELS = ['high', 'medium', 'low'] as const;

/** Staged change statuses (docs/api-review.md "Staged changes"). */
export type StagedChangeStatus = (typeof STAGED_STATUSES)[number];

/**
 * A reviewable change of a catalog item proposed by a review activity (docs/api-review.md "Activities"). An
 * enrichment job stages one per row result, unique per (activity_id, row_index), so a retried
 * write never stages twice.
 */
export class StagedChange extends BaseModel {
  static tableName = 'staged_changes';
  static jsonAttributes = ['before_data', 'after_data', 'source_data', 'review_info', 'conflict_data'];
  id!: string;
  activity_id!: string;
  organization_id!: string;
  catalog_id!: string | null;
  catalog_item_id!: string | null;
  catalog_item_entity_type!: string;
  before_data!: Record<string, unknown>;
  after_data!: Record<string, unknown>;
  source_data!: Record<string, unknown>;
  is_new_item!: boolean;
  row_index!: number;
  status!: StagedChangeStatus;
  review_info!: unknown;
  /** The item's `current_version` this change was computed from; null for new items (docs/api-review.md "Conflicts"). */
  base_version!: number | null;
  /** A delete of `catalog_item_id` (`is_delete: true`, or an empty `after_data` with an item id). */
  is_delete!: boolean;
  /** Fields a `partially_accepted` change applies; null applies every field of `after_data`. */
  accepted_fields!: string[] | null;
  /** Why the change is `error` (failed the catalog schema, unknown item, …). */
  error_reason!: string | null;
  rejection_reason!: string | null;
  /** The item's data and version as apply found them when it left the change as `conflict`. */
  conflict_data!: Record<string, unknown> | null;
  conflict_version!: number | null;
  applied_at!: Date | null;
  /** Who last approved or rejected it: `person:<id>`, `api_key:<id>` or `user:<sub>`. */
  decided_by!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
