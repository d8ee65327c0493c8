import type { CatalogTextExample } from '../enrichment/types';
import { BaseModel } from './base';

/**
 * The catalog text examples of a `web_search: false` job and the texts of its own items, stored
 * once at job creation (src/services/enrichment/rows/examples.ts); one row per job, never changed.
 */
export class EnrichmentJobExample extends BaseModel {
  static tableName = 'enrichment_job_examples';
  static idColumn = 'job_id';
  static jsonAttributes = ['examples', 'texts'];
  job_id!: string;
  examples!: CatalogTextExample[];
  texts!: string[];
  created_at!: Date;
}
