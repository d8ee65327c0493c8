import { BaseModel } from './base';

/**
 * A media file (or knowledge-base document) copied into service storage (`host_media`), keyed by
 * (organization_id, sha256); the bytes live content-addressed on disk
 * (src/services/enrichment/rows/artifacts.ts).
 */
export class HostedMedia extends BaseModel {
  static tableName = 'hosted_media';
  static idColumn = ['organization_id', 'sha256'];
  organization_id!: string;
  sha256!: string;
  ext!: string;
  content_type!: string;
  source_url!: string;
  /** bigint: written as a number, read back as a string (pg). */
  byte_size!: number | string;
  created_at!: Date;
}
