import { BaseModel } from './base';

/** Entity types of an item (decisions.md §3): products, and variants pointing to a product by `parent_id`. */
export type ItemEntityType = 'product' | 'variant';

/**
 * An item of a catalog (table `catalog_items`; decisions.md §3). The derived search columns
 * (`search_text`, `search_tsv`, `search_tsv_pending`) are written only by the set-based item
 * statements and read only by the search SQL (src/services/catalog/items-sql.ts), so they are
 * not properties here.
 */
export class CatalogItem extends BaseModel {
  static tableName = 'catalog_items';
  static jsonAttributes = ['data', 'source_info'];
  id!: string;
  catalog_id!: string;
  entity_type!: ItemEntityType;
  parent_id!: string | null;
  /** The value of the catalog's `unique_id_field` as text, or null (decisions.md §3, item identity). */
  business_key!: string | null;
  data!: Record<string, unknown>;
  source_info!: Record<string, unknown> | null;
  current_version!: number;
  created_at!: Date;
  updated_at!: Date;
}
