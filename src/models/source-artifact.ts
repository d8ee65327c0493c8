import { BaseModel } from './base';

/**
 * One source a job's row consulted, kept as fetched (`capture_source_artifacts`): the bytes live
 * content-addressed on disk (src/services/enrichment/rows/artifacts.ts), this row ties them to the
 * organization and job. Unique per (job_id, row_index, url, sha256).
 */
export class SourceArtifact extends BaseModel {
  static tableName = 'source_artifacts';
  /** bigserial: pg returns it as a string. */
  id!: string;
  organization_id!: string;
  job_id!: string;
  row_index!: number;
  sha256!: string;
  url!: string;
  final_url!: string;
  http_status!: number;
  content_type!: string;
  /** bigint: written as a number, read back as a string (pg). */
  byte_size!: number | string;
  fetched_at!: Date;
  created_at!: Date;
}
