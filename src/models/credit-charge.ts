import { BaseModel } from './base';

/**
 * One charge of the credit ledger (docs/workflows.md, "The credit ledger"): `credits` (1 today)
 * for the successful row `row_index` of job `job_id`, written in the transaction that first
 * recorded that row as `succeeded`. Unique per (job_id, row_index); append-only (the database
 * refuses an UPDATE, and a DELETE unless the job or organization is deleted with it).
 */
export class CreditCharge extends BaseModel {
  static tableName = 'credit_charges';
  /** bigserial: pg returns it as a string. */
  id!: string;
  organization_id!: string;
  job_id!: string;
  row_index!: number;
  credits!: number;
  charged_at!: Date;
}
