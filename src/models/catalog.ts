import { BaseModel } from './base';

/** A catalog (docs/api-reference.md "Catalogs"); its schema versions live in `catalog_schemas`. */
export class Catalog extends BaseModel {
  static tableName = 'catalogs';
  static jsonAttributes = ['validation_rules'];
  id!: string;
  organization_id!: string;
  name!: string;
  description!: string | null;
  unique_id_field!: string;
  product_id_field!: string | null;
  auto_evolve_schema!: boolean;
  strict_mode!: boolean;
  product_enabled!: boolean;
  item_count!: number;
  current_schema_version!: string;
  validation_rules!: Record<string, unknown> | null;
  catalog_md!: string | null;
  catalog_md_version!: number;
  quality_prompt!: string | null;
  quality_prompt_updated_at!: Date | null;
  master_catalog_id!: string | null;
  use_master_catalog_defaults!: boolean;
  created_by_user_id!: string;
  created_at!: Date;
  updated_at!: Date | null;
  /** Change counter of the catalog's items, bumped by statement triggers (migration 20261121170000); bigint, read as text. */
  items_rev!: string;
  /** True once a search count index is wanted; writes are then logged (src/services/catalog/search/search-count-index.ts). */
  search_indexed!: boolean;
  /** Position of the item change log (bigint, read as text; search-count-index.ts). */
  search_logged!: string;
  /** True while some item may hold a pending word vector after a restore (src/services/catalog/search/search-words.ts). */
  search_words_pending!: boolean;
  /**
   * The search count index's log position when the word index fell behind (bigint, read as
   * text; NULL without an index then): search-words.ts `pendingWordMatches`.
   */
  search_words_pending_from!: string | null;
}
