import type { Knex } from 'knex';

/**
 * Credits an organization's enrichment jobs used in the current calendar month (UTC) (the home page): the sum of `credits_used` (1 per successful item, set when a job
 * finishes; docs/workflows.md, "The credit ledger") of the jobs that finished this month. A job's
 * `credits_used` is the sum of its charges in the credit ledger (../rows/credit-charges.ts), copied at
 * finalize; reading the job keeps the figure to finished jobs, as before the ledger.
 * @param now the moment whose month counts (tests pass one; default the database's clock)
 */
export async function creditsUsedThisMonth(knex: Knex, organizationId: string, now?: Date): Promise<number> {
  const [row] = (await knex('enrichment_jobs')
    .where({ organization_id: organizationId })
    .whereRaw("completed_at >= date_trunc('month', coalesce(?::timestamptz, now()) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'", [now ? now.toISOString() : null])
    .sum({ n: 'credits_used' })) as Array<{ n: string | null }>;
  return Number(row.n ?? 0);
}
