import { BaseModel } from './base';

/** Staged change statuses (decisions.md §5). */
export type StagedChangeStatus = 'draft' | 'pending' | 'approved' | 'rejected' | 'partially_accepted' | 'error';

/**
 * A reviewable change of a catalog item proposed by a review activity (decisions.md §5). An
 * enrichment job stages one per row result, unique per (activity_id, row_index), so a retried
 * write never stages twice.
 */
export class StagedChange extends BaseModel {
  static tableName = 'staged_changes';
  static jsonAttributes = ['before_data', 'after_data', 'source_data', 'review_info'];
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
  created_at!: Date;
  updated_at!: Date;
}
