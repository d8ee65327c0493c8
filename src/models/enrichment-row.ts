import { BaseModel } from './base';

/** Row states: `pending` until processed, then `succeeded` or `failed` (item-level `error`). */
export type EnrichmentRowStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One input item of a job and, once processed, its result. Primary key (job_id, row_index):
 * result writes are upserts on it, so an activity retry never duplicates a row or a credit.
 * `evidence` is the stored research, reused by re-extraction.
 */
export class EnrichmentRow extends BaseModel {
  static tableName = 'enrichment_rows';
  static idColumn = ['job_id', 'row_index'];
  static jsonAttributes = ['input', 'result', 'evidence', 'usage'];
  job_id!: string;
  row_index!: number;
  input!: Record<string, unknown>;
  status!: EnrichmentRowStatus;
  result!: Record<string, unknown> | null;
  evidence!: unknown;
  usage!: Record<string, number> | null;
  error!: string | null;
  completed_at!: Date | null;
  /** Set when the result was copied from this earlier job (resume / re-extract); never charged. */
  carried_from_job_id!: string | null;
}
