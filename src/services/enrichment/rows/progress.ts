import type { Knex } from 'knex';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { EnrichmentRow } from '../../../models/enrichment-row';
import { ReviewActivity } from '../../../models/review-activity';
import { chargedCredits } from './credit-charges';
import { flagDuplicateValues, uniqueFieldsOf } from './unique';

/**
 * A job's progress as the Temporal activities read and finish it (activities/enrichment.ts): pending
 * row indexes, counters, row status, and the final status with credits read from the credit
 * ledger and usage aggregated from the rows in SQL (idempotent: calling it twice never charges
 * twice).
 */

/** Progress counters of a job, read from PostgreSQL (the workflow's progress query mirrors them). */
export interface JobProgress {
  status: EnrichmentJob['status'];
  total_items: number;
  completed_items: number;
  successful: number;
}

/**
 * Row indexes still pending, in order, after `afterRowIndex` (exclusive), among the first
 * `total_items` rows (rows beyond `max_rows` are stored but never processed).
 * @returns at most `limit` row indexes (integers, never item data: rule 2)
 */
export async function pendingRowIndexes(knex: Knex, jobId: string, afterRowIndex: number, limit: number): Promise<number[]> {
  const job = await EnrichmentJob.query(knex).findById(jobId).select('total_items');
  if (!job) return [];
  const rows = await EnrichmentRow.query(knex)
    .where({ job_id: jobId, status: 'pending' })
    .where('row_index', '>', afterRowIndex)
    .where('row_index', '<', job.total_items)
    .orderBy('row_index')
    .limit(limit)
    .select('row_index');
  return rows.map((r) => r.row_index);
}

/**
 * Finishes a job: `completed` (or `failed` with `error`) unless it was cancelled meanwhile, in
 * which case it stays `cancelled`; `credits_used` becomes the sum of the job's charges in the
 * credit ledger (./credit-charges.ts: 1 per successful item, charged when its row was written;
 * rows carried from an earlier job are not charged again), so calling this twice never charges
 * twice and the figure is read, not recomputed from the rows;
 * `service_usage` sums the rows' usage; values of `unique` output fields repeated across the
 * job's results are flagged for review (./unique.ts). Idempotent.
 */
export async function finalizeJob(knex: Knex, jobId: string, outcome: 'completed' | 'failed' | 'cancelled', error?: string): Promise<JobProgress> {
  return knex.transaction(async (trx) => {
    const job = await EnrichmentJob.query(trx).findById(jobId).forUpdate();
    if (!job) throw new Error(`Job ${jobId} not found`);
    await flagDuplicateValues(trx, jobId, uniqueFieldsOf(job.config));
    const [agg] = await trx('enrichment_rows')
      .where({ job_id: jobId })
      .select(
        trx.raw("count(*) filter (where status <> 'pending') as completed"),
        trx.raw("count(*) filter (where status = 'succeeded') as successful"),
        trx.raw("coalesce(sum((usage->>'search_calls')::int), 0) as search_calls"),
        trx.raw("coalesce(sum((usage->>'pages_fetched')::int), 0) as pages_fetched"),
        trx.raw("coalesce(sum((usage->>'llm_calls')::int), 0) as llm_calls"),
        trx.raw("coalesce(sum((usage->>'llm_prompt_tokens')::int), 0) as llm_prompt_tokens"),
        trx.raw("coalesce(sum((usage->>'llm_completion_tokens')::int), 0) as llm_completion_tokens"),
      );
    const status = job.status === 'running' ? outcome : job.status;
    const successful = Number(agg.successful);
    // The ledger, not the rows: each successful row was charged when it was written (rows carried
    // from an earlier job were charged there), so this figure can be checked against the rows.
    const charged = await chargedCredits(trx, jobId);
    await EnrichmentJob.query(trx)
      .findById(jobId)
      .patch({
        status,
        error: status === 'failed' ? (error ?? job.error ?? 'Job failed') : job.error,
        completed_items: Number(agg.completed),
        successful,
        credits_used: charged,
        service_usage: {
          credits: charged,
          search_calls: Number(agg.search_calls),
          pages_fetched: Number(agg.pages_fetched),
          llm_calls: Number(agg.llm_calls),
          llm_prompt_tokens: Number(agg.llm_prompt_tokens),
          llm_completion_tokens: Number(agg.llm_completion_tokens),
        },
        completed_at: job.completed_at ?? trx.fn.now(),
        updated_at: trx.fn.now(),
      });
    // A finished job that wrote to a catalog awaits review of its staged changes (docs/api-review.md "Staged changes").
    const activityStatus = status === 'completed' && job.catalog_id ? 'pending_review' : status;
    await ReviewActivity.query(trx).findById(jobId).patch({ status: activityStatus, updated_at: trx.fn.now() });
    return { status, total_items: job.total_items, completed_items: Number(agg.completed), successful };
  });
}

/** Steps of a running job that its poll names in `current_step` (null: enriching items). */
export type JobStep = 'training_text_model';

/**
 * Records the step a running job is at (null: back to enriching items); a job no longer
 * running keeps its step unchanged. Shown by the job poll as `current_step`.
 */
export async function setJobStep(knex: Knex, jobId: string, step: JobStep | null): Promise<void> {
  await EnrichmentJob.query(knex).findById(jobId).where({ status: 'running' }).patch({ current_step: step, updated_at: knex.fn.now() });
}

/** Current counters of a job from PostgreSQL. */
export async function jobProgress(knex: Knex, jobId: string): Promise<JobProgress> {
  const job = await EnrichmentJob.query(knex).findById(jobId).select('status', 'total_items', 'completed_items', 'successful');
  if (!job) throw new Error(`Job ${jobId} not found`);
  const { status, total_items, completed_items, successful } = job;
  return { status, total_items, completed_items, successful };
}

/**
 * Status of one row (`pending`, `succeeded` or `failed`), or null when the job has no such row.
 * Lets a retried activity report what an earlier attempt already wrote (Temporal rule 4).
 */
export async function rowStatus(knex: Knex, jobId: string, rowIndex: number): Promise<'pending' | 'succeeded' | 'failed' | null> {
  const row = await EnrichmentRow.query(knex).findById([jobId, rowIndex]).select('status');
  return row?.status ?? null;
}
