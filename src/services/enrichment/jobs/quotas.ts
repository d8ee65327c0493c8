import type { Knex } from 'knex';
import type { Config } from '../../../config';
import { TooManyRequestsError } from '../../../lib/errors';
import { EnrichmentJob } from '../../../models/enrichment-job';
import type { Scope } from '../../access/scope';

/** Seconds a client is asked to wait when its organization already runs the most jobs it may. */
const BUSY_RETRY_S = 30;

/**
 * Refuses a new enrichment job when its organization already runs `concurrentJobs` jobs, or has
 * used its `monthlyCredits` this calendar month (UTC; credits of finished jobs, docs/api-enrichment.md "Enrichment jobs")
 * (docs/configuration.md). A job's `credits_used` is its credit-ledger sum, copied at finalize
 * (../rows/credit-charges.ts). A check, not a reservation: two requests racing past it may both start.
 * @throws TooManyRequestsError (429, `Retry-After`)
 */
export async function assertJobQuota(knex: Knex, scope: Scope, limits: Config['limits'] | undefined): Promise<void> {
  if (!limits) return;
  if (limits.concurrentJobs > 0) {
    const running = await EnrichmentJob.query(knex).where({ organization_id: scope.organizationId, status: 'running' }).resultSize();
    if (running >= limits.concurrentJobs) {
      throw new TooManyRequestsError(
        `At most ${limits.concurrentJobs} enrichment jobs of an organization may run at once; retry when one has finished`,
        BUSY_RETRY_S,
      );
    }
  }
  if (limits.monthlyCredits !== null) {
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const [{ used }] = await EnrichmentJob.query(knex)
      .where({ organization_id: scope.organizationId })
      .where('created_at', '>=', monthStart)
      .sum('credits_used as used')
      .castTo<Array<{ used: string | null }>>();
    if (Number(used ?? 0) >= limits.monthlyCredits) {
      throw new TooManyRequestsError(
        `The organization has used its ${limits.monthlyCredits} credits of this month`,
        (nextMonth.getTime() - now.getTime()) / 1000,
      );
    }
  }
}
