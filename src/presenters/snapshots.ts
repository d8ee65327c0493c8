import { iso } from '../lib/time';
import type { CatalogSnapshot } from '../models/catalog-snapshot';
import type { SnapshotRestore } from '../models/snapshot-restore';
import type { RestoreResult } from '../services/catalog/snapshots/snapshots';
import { snapshotRestoreWorkflowId } from '../contracts/workflows';

/**
 * A snapshot record (docs/api-reference.md "Snapshots"): `{id, catalog_id, snapshot_type, reason,
 * item_count, schema_version, created_at, created_by}`.
 */
export function presentSnapshot(row: CatalogSnapshot): Record<string, unknown> {
  return {
    id: row.id,
    catalog_id: row.catalog_id,
    snapshot_type: row.snapshot_type,
    reason: row.reason,
    item_count: row.item_count,
    schema_version: row.schema_version,
    created_at: iso(row.created_at),
    created_by: row.created_by,
  };
}

/** The response of a restore (docs/api-reference.md "Snapshots"): `{message, snapshot_id, safety_snapshot_id, items_restored, schema_version}`. */
export function presentRestore(r: RestoreResult): Record<string, unknown> {
  return {
    message: 'Snapshot restored successfully',
    snapshot_id: r.snapshot_id,
    safety_snapshot_id: r.safety_snapshot_id,
    items_restored: r.items_restored,
    schema_version: r.schema_version,
  };
}

/** A restore's status (`GET …/snapshot-restores/{restore_id}`): its row, with the result once completed. */
export function presentRestoreStatus(r: SnapshotRestore): Record<string, unknown> {
  return {
    restore_id: r.id,
    catalog_id: r.catalog_id,
    snapshot_id: r.snapshot_id,
    status: r.status,
    workflow_id: snapshotRestoreWorkflowId(r.id),
    result: r.result ? presentRestore(r.result) : null,
    error: r.error,
    created_at: iso(r.created_at),
    started_at: r.started_at ? iso(r.started_at) : null,
    finished_at: r.finished_at ? iso(r.finished_at) : null,
  };
}
