import { BaseModel } from './base';

/**
 * The query part of a saved grid view: the grid's URL parameters without paging
 * (src/services/catalog/grid/item-grid-query.ts reads them).
 */
export interface ItemGridViewQuery {
  q?: string;
  sort?: string;
  dir?: 'asc' | 'desc';
  category?: string;
  missing?: string;
  complete?: 'yes' | 'no';
  /** `field → "<op>:<value>"`, as the `f.<field>` URL parameters (`not.<field>` keys: negated). */
  filters?: Record<string, string>;
}

/** A named item grid view of a catalog: chosen columns and a query, private to its owner or shared. */
export class ItemGridView extends BaseModel {
  static tableName = 'item_grid_views';
  static jsonAttributes = ['columns', 'query'];
  id!: string;
  catalog_id!: string;
  /** `api_key:<id>` or `user:<sub>` (src/services/catalog/grid/grid-views.ts). */
  owner!: string;
  name!: string;
  shared!: boolean;
  /** Data field names shown as columns, in order. */
  columns!: string[];
  query!: ItemGridViewQuery;
  created_at!: Date;
  updated_at!: Date;
}
