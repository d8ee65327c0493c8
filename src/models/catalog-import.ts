import { BaseModel } from './base';

/**
 * Which lines an import may write: `upsert` creates or updates, `create` only adds
 * new items (a line whose item exists fails), `update` only changes existing ones.
 */
export type ImportMode = 'upsert' | 'create' | 'update';

/** Where an import is: running until its workflow finishes it, or cancelled through the API. */
export type CatalogImportStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * A spreadsheet import into a catalog (table `catalog_imports`): staged by the API,
 * written batch by batch by `catalog-import-<id>` (src/services/sheets/import.ts), with the
 * counters of its per-line report.
 */
export class CatalogImport extends BaseModel {
  static tableName = 'catalog_imports';
  static jsonAttributes = ['mapping'];
  id!: string;
  organization_id!: string;
  catalog_id!: string;
  status!: CatalogImportStatus;
  file_name!: string;
  /** Column → field renames the import was asked for. */
  mapping!: Record<string, string>;
  total_lines!: number;
  created!: number;
  updated!: number;
  /** Lines equal to their item: nothing written. */
  unchanged!: number;
  failed!: number;
  error!: string | null;
  /** A dry run: line statuses say what the import would do; nothing is written. */
  dry_run!: boolean;
  mode!: ImportMode;
  /** Who asked for it (the scope its batches act with). */
  actor_kind!: 'api_key' | 'user' | 'person';
  actor_id!: string;
  created_at!: Date;
  completed_at!: Date | null;
}
