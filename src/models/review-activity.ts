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
  static jsonAttributes = ['metadata'];
  id!: string;
  organization_id!: string;
  catalog_id!: string | null;
  type!: ReviewActivityType;
  status!: ReviewActivityStatus;
  description!: string | null;
  metadata!: Record<string, unknown>;
  created_at!: Date;
  updated_at!: Date;
}
