import type { Knex } from 'knex';
import type { AuditDecision, AuditJudgment } from '../../../enrichment/result-audit';
import type { EnrichmentResult } from '../../../enrichment/types';
import type { EnrichJobConfig } from '../../../schemas/enrich';

/**
 * What the job options `audit_decisions_enabled` and `review_mode` (docs/api-enrichment.md "Extra request fields",
 * the post-enrichment audit; their values are left open there, so this is the service's own
 * decision, documented in the README) do with the audit of src/enrichment/result-audit.ts:
 *
 * - `audit_decisions_enabled: true` — every processed row is audited; the judgment is stored as
 *   `review_info.audit` on the result and on its staged change, and the job poll reports the
 *   counts as `audit: {pass, review_required, fail}`.
 * - `review_mode: "all"` (default) — every result is staged with `staged_status`.
 * - `review_mode: "flagged"` — implies the audit; results the audit passes are staged as
 *   `draft` (kept, out of the reviewers' queue until submitted), the others (`review_required`,
 *   `fail`) as `pending`, so reviewers see exactly the changes that need a human. Nothing is
 *   ever approved or applied by the audit: a catalog changes only through review.
 */

/** Whether a job's config asks for the post-enrichment audit. */
export function auditWanted(config: EnrichJobConfig): boolean {
  return config.audit_decisions_enabled === true || config.review_mode === 'flagged';
}

/** The audit stored on a result, if any. */
function auditOf(result: EnrichmentResult): AuditJudgment | undefined {
  return (result.review_info as { audit?: AuditJudgment } | undefined)?.audit;
}

/**
 * The staged-change status of a result: `error` for item-level errors; under
 * `review_mode: "flagged"` `draft` when the audit passed and `pending` otherwise; else the
 * job's `staged_status` (`pending` by default).
 */
export function stagedStatusFor(config: EnrichJobConfig, result: EnrichmentResult): 'pending' | 'draft' | 'error' {
  if (result.error) return 'error';
  if (config.review_mode === 'flagged') return auditOf(result)?.decision === 'pass' ? 'draft' : 'pending';
  return config.staged_status ?? 'pending';
}

/**
 * Counts of the audit decisions over a job's processed rows below `totalItems` (the rows the
 * job processes; carried rows included), for the poll response: `{pass, review_required,
 * fail}`, zeros included.
 */
export async function auditSummary(knex: Knex, jobId: string, totalItems: number): Promise<Record<AuditDecision, number>> {
  const rows = await knex('enrichment_rows')
    .where({ job_id: jobId })
    .where('row_index', '<', totalItems)
    .whereNotNull('result')
    .select(knex.raw("result #>> '{review_info,audit,decision}' AS decision"))
    .count({ n: '*' })
    .groupByRaw("result #>> '{review_info,audit,decision}'");
  const out: Record<AuditDecision, number> = { pass: 0, review_required: 0, fail: 0 };
  for (const r of rows as Array<{ decision: string | null; n: string | number }>) {
    if (r.decision === 'pass' || r.decision === 'review_required' || r.decision === 'fail') out[r.decision] = Number(r.n);
  }
  return out;
}
