import { iso } from '../lib/time';
import type { SnapshotRow } from '../services/catalog/snapshots';

/**
 * A snapshot record (decisions.md §3, G11): `{id, catalog_id, snapshot_type, reason,
 * item_count, schema_version, created_at, created_by}`.
 */
export function presentSnapshot(row: SnapshotRow): Record<string, unknown> {
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
