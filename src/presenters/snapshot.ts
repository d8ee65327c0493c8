import { iso } from '../lib/time';
import type { CatalogSnapshot } from '../models/catalog-snapshot';
import type { RestoreResult } from '../services/catalog/snapshots';

/**
 * A snapshot record (decisions.md §3, G11): `{id, catalog_id, snapshot_type, reason,
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

/** The response of a restore (G11): `{message, snapshot_id, safety_snapshot_id, items_restored, schema_version}`. */
export function presentRestore(r: RestoreResult): Record<string, unknown> {
  return {
    message: 'Snapshot restored successfully',
    snapshot_id: r.snapshot_id,
    safety_snapshot_id: r.safety_snapshot_id,
    items_restored: r.items_restored,
    schema_version: r.schema_version,
  };
}
