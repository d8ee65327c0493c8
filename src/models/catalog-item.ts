import { BaseModel } from './base';

/** Entity types of an item (docs/api-reference.md "Products and variants"): products, and variants pointing to a product by `parent_id`. */
export type ItemEntityType = 'product' | 'variant';

/**
 * An item of a catalog (table `catalog_items`; docs/api-reference.md "Products and variants"). The derived search columns
 * (`search_text`, `search_tsv`, `search_tsv_pending`) are written only by the set-based item
 * statements and read only by the search SQL (src/services/catalog/items/items-sql.ts), so they are
 * not properties here.
 */
export class CatalogItem extends BaseModel {
  static tableName = 'catalog_items';
  static jsonAttributes = ['data', 'source_info'];
  id!: string;
  catalog_id!: string;
  entity_type!: ItemEntityType;
  parent_id!: string | null;
  /** The value of the catalog's `unique_id_field` as text, or null (docs/api-reference.md "Items"). */
  business_key!: string | null;
  data!: Record<string, unknown>;
  source_info!: Record<string, unknown> | null;
  current_version!: number;
  created_at!: Date;
  updated_at!: Date;
}
