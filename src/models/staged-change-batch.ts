import { BaseModel } from './base';

/**
 * One appended batch of staged changes under its client-chosen `batch_key` (docs/api-review.md "Appending staged changes":
 * append is idempotent), with the row indexes it was given, so a retried batch answers the
 * same counts and stages nothing twice.
 */
export class StagedChangeBatch extends BaseModel {
  static tableName = 'staged_change_batches';
  static idColumn = ['activity_id', 'batch_key'];
  activity_id!: string;
  batch_key!: string;
  first_row_index!: number;
  count!: number;
  created_at!: Date;
}
