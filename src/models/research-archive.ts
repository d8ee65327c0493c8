import { BaseModel } from './base';

/** Status of a research archive: `indexing` while its workflow reads it, then `ready` or `failed` (with `error`). */
export type ResearchArchiveStatus = 'indexing' | 'ready' | 'failed';

/** Container format of a research archive (WARC ISO 28500 1.0/1.1, plain or gzip members; WACZ 1.x). */
export type ResearchArchiveFormat = 'warc' | 'warc.gz' | 'wacz';

/**
 * A web archive researched by enrichment jobs (src/services/research-archives):
 * uploaded by an organization, or configured by `RESEARCH_ARCHIVES` (`organization_id` null, shared
 * by every organization). `skipped` counts records not indexed, by reason.
 */
export class ResearchArchive extends BaseModel {
  static tableName = 'research_archives';
  static jsonAttributes = ['skipped'];
  id!: string;
  organization_id!: string | null;
  name!: string;
  format!: ResearchArchiveFormat;
  file_path!: string;
  content_sha256!: string;
  size_bytes!: number;
  /** A configured archive's file as `RESEARCH_ARCHIVES` names it (resolved), and its modification time (ms) when hashed; null for uploads. */
  source_path!: string | null;
  source_mtime_ms!: number | null;
  status!: ResearchArchiveStatus;
  records_read!: number;
  pages_indexed!: number;
  skipped!: Record<string, number>;
  error!: string | null;
  created_at!: Date;
  updated_at!: Date;
  completed_at!: Date | null;
}
