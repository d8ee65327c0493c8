import { BaseModel } from './base';

/**
 * The JSON of `enrichment_jobs.config`: the validated request without its items, with the keys the
 * service adds (docs/api-enrichment.md "Enrichment jobs"). The request schema that defines those
 * keys sits above the models, so the model only names the shape here and src/schemas/enrich.ts
 * declares its members into this interface (TypeScript declaration merging): the model types its
 * column without importing from a layer above it (docs/architecture.md, rule 6).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are merged in by src/schemas/enrich.ts
export interface EnrichJobConfig {}

/** Stored job states (docs/api-enrichment.md "Enrichment jobs"). `cancelled` polls as `failed`. */
export type EnrichmentJobStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * An enrichment job. `id` is also the id of its review activity (docs/api-enrichment.md "Enrichment jobs"). `config` is
 * the validated request without its items; items live in `enrichment_rows`.
 */
export class EnrichmentJob extends BaseModel {
  static tableName = 'enrichment_jobs';
  static jsonAttributes = ['config', 'service_usage'];
  id!: string;
  organization_id!: string;
  catalog_id!: string | null;
  status!: EnrichmentJobStatus;
  config!: EnrichJobConfig;
  /** Items passed in, before `max_rows`. */
  total_rows!: number;
  /** Items to process: min(total_rows, max_rows). */
  total_items!: number;
  completed_items!: number;
  successful!: number;
  /** 1 per successful item; 0 until the job finishes (docs/api-enrichment.md "Enrichment jobs", job response). */
  credits_used!: number;
  workflow_id!: string;
  error!: string | null;
  service_usage!: Record<string, unknown> | null;
  /** The step a running job is at (`training_text_model`), null while it enriches items; see services/enrichment/rows/progress.ts. */
  current_step!: string | null;
  /** Rows whose results were carried from an earlier job at creation (never charged). */
  carried_items!: number;
  created_at!: Date;
  updated_at!: Date;
  completed_at!: Date | null;
}
