import { BaseModel } from './base';
import type { StoredTaxonomy } from './catalog-schema';

/** Snapshot kinds (docs/api-reference.md "Snapshots"): taken by a user, before a restore, or before applying staged changes. */
export type SnapshotType = 'manual' | 'safety' | 'pre_apply';

/**
 * A snapshot of a catalog (table `catalog_snapshots`; docs/api-reference.md "Snapshots"): its schema version
 * string with that version's taxonomy, its catalog_md and quality prompt; the item copies live
 * in `catalog_snapshot_items`.
 */
export class CatalogSnapshot extends BaseModel {
  static tableName = 'catalog_snapshots';
  static jsonAttributes = ['taxonomy'];
  id!: string;
  catalog_id!: string;
  snapshot_type!: SnapshotType;
  reason!: string | null;
  item_count!: number;
  schema_version!: string;
  taxonomy!: StoredTaxonomy | null;
  catalog_md!: string | null;
  catalog_md_version!: number | null;
  quality_prompt!: string | null;
  quality_prompt_updated_at!: Date | null;
  created_by!: string;
  /** The review activity whose apply took this `pre_apply` snapshot. */
  activity_id!: string | null;
  /** The snapshot a restore restored right after taking this `safety` snapshot. */
  restored_snapshot_id!: string | null;
  /** Its completeness counts are stored (`catalog_snapshot_fill_counts`, migration 20261206100000); false for older snapshots. */
  fill_counted!: boolean;
  created_at!: Date;
}
