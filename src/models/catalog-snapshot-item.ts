import { BaseModel } from './base';
import type { ItemEntityType } from './catalog-item';

/**
 * The copy of one item in a snapshot (table `catalog_snapshot_items`, primary key
 * (snapshot_id, id)): the item's columns as they were, its id included, so a restore brings
 * back the same ids (docs/api-reference.md "Snapshots"). Written and read only set-based (`INSERT … SELECT`,
 * `MERGE`, src/services/catalog/snapshots/snapshots.ts); the model names the table and its relations.
 */
export class CatalogSnapshotItem extends BaseModel {
  static tableName = 'catalog_snapshot_items';
  static idColumn = ['snapshot_id', 'id'];
  static jsonAttributes = ['data', 'source_info'];
  snapshot_id!: string;
  id!: string;
  entity_type!: ItemEntityType;
  parent_id!: string | null;
  business_key!: string | null;
  data!: Record<string, unknown>;
  search_text!: string | null;
  source_info!: Record<string, unknown> | null;
  current_version!: number;
  created_at!: Date;
  updated_at!: Date;
}
