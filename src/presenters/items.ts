import { iso } from '../lib/time';
import type { CatalogItem } from '../models/catalog-item';
import type { ListedItem } from '../services/catalog/items/items-read';
import type { WriteResult } from '../services/catalog/items/items-write';

/** An item as the items API returns it (docs/api-reference.md "Items"). */
export interface PresentedItem {
  id: string;
  data: Record<string, unknown>;
  metadata: { created_at: string | null; updated_at: string | null; version: number };
}

/**
 * The list shape of one item (docs/api-reference.md "Items"): `{id, data, metadata: {created_at, updated_at, version}}`.
 * Products of a product-grouped catalog carry `data.variants` (their variants' data) when the
 * caller loaded them.
 */
export function presentItem(row: Pick<ListedItem, 'id' | 'data' | 'created_at' | 'updated_at' | 'current_version' | 'variants'>): PresentedItem {
  return {
    id: row.id,
    data: row.variants ? { ...row.data, variants: row.variants } : row.data,
    metadata: { created_at: iso(row.created_at), updated_at: iso(row.updated_at), version: row.current_version },
  };
}

/** One raw row (docs/api-reference.md "Raw items"): `{id, entity_type, parent_id, current_version, data}`. */
export function presentRawItem(row: CatalogItem): Record<string, unknown> {
  return { id: row.id, entity_type: row.entity_type, parent_id: row.parent_id, current_version: row.current_version, data: row.data };
}

/**
 * A batch write's response (docs/api-reference.md "Bulk writes", and with its extra fields): `success` is true when no item
 * failed; the internal ids and error kinds stay inside.
 */
export function presentBulkResult(r: WriteResult): Record<string, unknown> {
  const { ids: _ids, errors, ...counters } = r;
  return { success: r.items_failed === 0, ...counters, errors: errors.map((e) => ({ index: e.index, detail: e.detail })) };
}
