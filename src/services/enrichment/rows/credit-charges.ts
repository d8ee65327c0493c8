import type { Knex } from 'knex';
import { CreditCharge } from '../../../models/credit-charge';

/**
 * The credit ledger (docs/workflows.md, "The credit ledger"): a job's successful rows are
 * charged when they are written, one `credit_charges` row each, and a job's `credits_used` is read
 * back from the ledger at finalize (./progress.ts), so the figure a client sees can be checked
 * against the rows instead of being derived from them.
 */

/** Credits charged per successful item (docs/workflows.md, "The credit ledger"). */
export const CREDITS_PER_SUCCESSFUL_ITEM = 1;

/**
 * Charges the rows of `rowIndexes` that are now `succeeded` and not carried from an earlier job
 * (those were charged there), one ledger row each, in ONE set-based `INSERT … SELECT … ON CONFLICT
 * DO NOTHING`: a row already charged (a retried write) is not charged again. Runs inside the
 * caller's transaction, the one that moves the rows out of `pending` (./row-results.ts), so a
 * charge commits exactly when its success does.
 * @param trx the writing transaction
 * @param organizationId the job's organization (stored on the charge for usage by organization)
 * @param jobId the job whose rows were written
 * @param rowIndexes the rows this transaction wrote (failed ones are skipped by the SELECT)
 * @returns the number of charges inserted
 */
export async function chargeSucceededRows(trx: Knex.Transaction, organizationId: string, jobId: string, rowIndexes: number[]): Promise<number> {
  if (!rowIndexes.length) return 0;
  const { rowCount } = await trx.raw(
    `INSERT INTO credit_charges (organization_id, job_id, row_index, credits)
     SELECT ?::uuid, r.job_id, r.row_index, ?::int FROM enrichment_rows r
     WHERE r.job_id = ? AND r.row_index = ANY(?::int[]) AND r.status = 'succeeded' AND r.carried_from_job_id IS NULL
     ON CONFLICT (job_id, row_index) DO NOTHING`,
    [organizationId, CREDITS_PER_SUCCESSFUL_ITEM, jobId, rowIndexes],
  );
  return rowCount ?? 0;
}

/** The credits the ledger holds for a job (sum of its charges; 0 when none). */
export async function chargedCredits(knex: Knex, jobId: string): Promise<number> {
  const [{ n }] = await CreditCharge.query(knex).where({ job_id: jobId }).sum('credits as n').castTo<Array<{ n: string | null }>>();
  return Number(n ?? 0);
}
