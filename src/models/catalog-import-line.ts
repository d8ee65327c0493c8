import { BaseModel } from './base';

/** A line's status in an import's report: `pending` until its batch is written. */
export type ImportLineStatus = 'pending' | 'created' | 'updated' | 'unchanged' | 'failed';

/** A line's errors (the 422 `detail[]` shape of the write that refused it). */
export type ImportLineErrors = Array<{ loc?: Array<string | number>; msg: string; type?: string }>;

/**
 * One data line of an import (table `catalog_import_lines`, key `(import_id, line)`; line 1 is the
 * header): the item it carries, and once written its status, errors and item. Lines are staged
 * and written set-based (src/services/sheets/import.ts); the model reads them.
 */
export class CatalogImportLine extends BaseModel {
  static tableName = 'catalog_import_lines';
  static idColumn = ['import_id', 'line'];
  static jsonAttributes = ['data', 'errors'];
  import_id!: string;
  line!: number;
  data!: Record<string, unknown>;
  status!: ImportLineStatus;
  errors!: ImportLineErrors | null;
  item_id!: string | null;
}
