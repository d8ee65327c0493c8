import { BaseModel } from './base';

/** Where a restore is: queued → restoring → completed | failed. */
export type SnapshotRestoreStatus = 'queued' | 'restoring' | 'completed' | 'failed';

/**
 * One restore of a catalog snapshot run by the workflow `snapshot-restore-<id>` (table
 * `snapshot_restores`; docs/api-reference.md "Snapshots"). `result` is the restore answer
 * without its message, plus `words_pending` (the restore left the word index behind).
 */
export class SnapshotRestore extends BaseModel {
  static tableName = 'snapshot_restores';
  static jsonAttributes = ['result'];
  id!: string;
  organization_id!: string;
  catalog_id!: string;
  snapshot_id!: string;
  status!: SnapshotRestoreStatus;
  result!: { snapshot_id: string; safety_snapshot_id: string; items_restored: number; schema_version: string; words_pending?: boolean } | null;
  error!: string | null;
  /** Why it failed: `not_applicable` (catalog, snapshot or its schema version gone: 409) or `error` (every attempt failed). */
  failure!: 'not_applicable' | 'error' | null;
  requested_by_kind!: 'api_key' | 'user';
  requested_by_id!: string;
  /** Attempts of the restore activity that began the restore's transaction. */
  attempts!: number;
  created_at!: Date;
  started_at!: Date | null;
  finished_at!: Date | null;
}
