import { BaseModel } from './base';

/**
 * One version of a catalog's markdown context (table `catalog_md_versions`; docs/api-reference.md "Catalog context and quality prompt"):
 * versions are a linear counter per catalog, `catalogs.catalog_md_version` names the current one.
 */
export class CatalogMdVersion extends BaseModel {
  static tableName = 'catalog_md_versions';
  static idColumn = ['catalog_id', 'version'];
  catalog_id!: string;
  version!: number;
  catalog_md!: string | null;
  created_by!: string;
  created_at!: Date;
}
