import { BaseModel } from './base';

/** How an export ended, or `running` while it streams; `cancelled` when the client went away. */
export type CatalogExportStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * One export of a catalog as CSV or XLSX (table `catalog_exports`): it streams in
 * the request that asks for it (src/services/sheets/export.ts) and is recorded here so the
 * jobs page lists it.
 */
export class CatalogExport extends BaseModel {
  static tableName = 'catalog_exports';
  id!: string;
  organization_id!: string;
  catalog_id!: string;
  format!: 'csv' | 'xlsx';
  /** Whether a selection (the console grid's filter and columns) narrowed it. */
  filtered!: boolean;
  /** Columns written. */
  columns!: number;
  file_name!: string;
  status!: CatalogExportStatus;
  /** Rows written, once completed. */
  rows!: number | null;
  error!: string | null;
  requested_by_kind!: 'api_key' | 'user' | 'person';
  requested_by_id!: string;
  created_at!: Date;
  completed_at!: Date | null;
}
