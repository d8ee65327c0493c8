import type { KnowledgeBaseDocument } from '../enrichment/types';
import { BaseModel } from './base';

/**
 * The knowledge-base documents of a job (uploaded `knowledge_base_files`, converted at job
 * creation; src/services/enrichment/rows/knowledge-base.ts); one row per job, never changed.
 */
export class EnrichmentJobDocument extends BaseModel {
  static tableName = 'enrichment_job_documents';
  static idColumn = 'job_id';
  static jsonAttributes = ['documents'];
  job_id!: string;
  documents!: KnowledgeBaseDocument[];
  created_at!: Date;
}
