import type { Knex } from 'knex';
import type { EngineUsage, EnrichInput, EnrichmentEngine, EnrichmentResult, OutputField } from '../enrichment/types';
import type { EnrichmentJob } from '../models/enrichment-job';

/**
 * The row-level work of an enrichment job, used by the Temporal activities (which stay thin
 * adapters, architecture.md). Every write is idempotent on (job_id, row_index): a row moves from
 * `pending` to `succeeded`/`failed` once, and the job's counters move in the same transaction,
 * so a retried activity or a replay after a worker crash never duplicates a result or a credit
 * (architecture.md, Temporal rule 4).
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
  const job = await knex('enrichment_jobs').where({ id: jobId }).first('total_items');
  if (!job) return [];
  const rows = await knex('enrichment_rows')
    .where({ job_id: jobId, status: 'pending' })
    .where('row_index', '>', afterRowIndex)
    .where('row_index', '<', job.total_items)
    .orderBy('row_index')
    .limit(limit)
    .select('row_index');
  return rows.map((r) => r.row_index as number);
}

/** Builds the engine input of one row from the job's stored config. */
export function engineInput(config: Record<string, any>, item: Record<string, unknown>): EnrichInput {
  return {
    item,
    output_schema: config.output_schema as OutputField[],
    options: {
      prompt: config.prompt || undefined,
      speed: config.speed ?? 'deep',
      allowed_domains: config.allowed_domains,
      blocked_domains: config.blocked_domains,
      web_search: config.web_search !== false,
      taxonomy: config.taxonomy,
      predict_taxonomy: config.predict_taxonomy,
      predict_taxonomy_attributes: config.predict_taxonomy_attributes,
      validate_semantics: config.validate_semantics,
      low_confidence: config.low_confidence,
    },
  };
}

/** A result for an item the engine could not process at all (item-level `error`). */
function errorResult(item: Record<string, unknown>, message: string): EnrichmentResult {
  return {
    original_data: item,
    after_data: { ...item, sources: {}, source_explanations: {} },
    all_sources: [],
    error: message,
    review_info: { reasoning: message, confidence: 'low', flags: ['error'], field_issues: [], field_confidence: {}, field_methods: {} },
  };
}

/**
 * Processes one row: skips it when already done or when the job is no longer running, otherwise
 * runs the engine and writes the result idempotently.
 * @returns `processed` false when nothing was written (already done, job cancelled/finished)
 */
export async function processRow(knex: Knex, engine: EnrichmentEngine, jobId: string, rowIndex: number): Promise<{ processed: boolean; succeeded: boolean }> {
  const row = await knex('enrichment_rows as r')
    .join('enrichment_jobs as j', 'j.id', 'r.job_id')
    .where({ 'r.job_id': jobId, 'r.row_index': rowIndex })
    .first('r.status', 'r.input', 'j.status as job_status', 'j.config');
  if (!row || row.status !== 'pending' || row.job_status !== 'running') return { processed: false, succeeded: false };
  let outcome: { result: EnrichmentResult; evidence: unknown; usage: EngineUsage | null };
  try {
    const out = await engine.enrich(engineInput(row.config, row.input));
    outcome = { result: out.result, evidence: out.evidence, usage: out.usage };
  } catch (err: any) {
    outcome = { result: errorResult(row.input, `Enrichment failed: ${err?.message ?? String(err)}`), evidence: null, usage: null };
  }
  const written = await writeRowResult(knex, jobId, rowIndex, outcome);
  return { processed: written, succeeded: written && !outcome.result.error };
}

/**
 * Writes a row's result once: only while the row is `pending` and the job `running`, and moves
 * the job counters in the same transaction.
 * @returns true when this call wrote the result, false when it was already written or the job
 *   stopped running (cancelled jobs take no new results, so credits match the kept results)
 */
export async function writeRowResult(
  knex: Knex,
  jobId: string,
  rowIndex: number,
  outcome: { result: EnrichmentResult; evidence: unknown; usage: EngineUsage | null },
): Promise<boolean> {
  const succeeded = !outcome.result.error;
  return knex.transaction(async (trx) => {
    const job = await trx('enrichment_jobs').where({ id: jobId }).forUpdate().first('status');
    if (!job || job.status !== 'running') return false;
    const updated = await trx('enrichment_rows')
      .where({ job_id: jobId, row_index: rowIndex, status: 'pending' })
      .update({
        status: succeeded ? 'succeeded' : 'failed',
        result: JSON.stringify(outcome.result),
        evidence: outcome.evidence === null ? null : JSON.stringify(outcome.evidence),
        usage: outcome.usage === null ? null : JSON.stringify(outcome.usage),
        error: outcome.result.error ?? null,
        completed_at: trx.fn.now(),
      });
    if (!updated) return false;
    await trx('enrichment_jobs').where({ id: jobId }).update({
      completed_items: trx.raw('completed_items + 1'),
      successful: trx.raw('successful + ?', [succeeded ? 1 : 0]),
      updated_at: trx.fn.now(),
    });
    return true;
  });
}

/**
 * Finishes a job: `completed` (or `failed` with `error`) unless it was cancelled meanwhile, in
 * which case it stays `cancelled`; `credits_used` becomes the number of successful items (1 per
 * successful item, derived from the rows, so calling this twice never charges twice);
 * `service_usage` sums the rows' usage. Idempotent.
 */
export async function finalizeJob(knex: Knex, jobId: string, outcome: 'completed' | 'failed' | 'cancelled', error?: string): Promise<JobProgress> {
  return knex.transaction(async (trx) => {
    const job = await trx('enrichment_jobs').where({ id: jobId }).forUpdate().first();
    if (!job) throw new Error(`Job ${jobId} not found`);
    const [agg] = await trx('enrichment_rows').where({ job_id: jobId }).select(
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
    await trx('enrichment_jobs').where({ id: jobId }).update({
      status,
      error: status === 'failed' ? (error ?? job.error ?? 'Job failed') : job.error,
      completed_items: Number(agg.completed),
      successful,
      credits_used: successful,
      service_usage: JSON.stringify({
        credits: successful,
        search_calls: Number(agg.search_calls),
        pages_fetched: Number(agg.pages_fetched),
        llm_calls: Number(agg.llm_calls),
        llm_prompt_tokens: Number(agg.llm_prompt_tokens),
        llm_completion_tokens: Number(agg.llm_completion_tokens),
      }),
      completed_at: job.completed_at ?? trx.fn.now(),
      updated_at: trx.fn.now(),
    });
    // A finished job that wrote to a catalog awaits review of its staged changes (decisions.md §5).
    const activityStatus = status === 'completed' && job.catalog_id ? 'pending_review' : status;
    await trx('review_activities').where({ id: jobId }).update({ status: activityStatus, updated_at: trx.fn.now() });
    return { status, total_items: job.total_items, completed_items: Number(agg.completed), successful };
  });
}

/** Current counters of a job from PostgreSQL. */
export async function jobProgress(knex: Knex, jobId: string): Promise<JobProgress> {
  const job = await knex('enrichment_jobs').where({ id: jobId }).first('status', 'total_items', 'completed_items', 'successful');
  if (!job) throw new Error(`Job ${jobId} not found`);
  return job;
}

/**
 * Status of one row (`pending`, `succeeded` or `failed`), or null when the job has no such row.
 * Lets a retried activity report what an earlier attempt already wrote (Temporal rule 4).
 */
export async function rowStatus(knex: Knex, jobId: string, rowIndex: number): Promise<'pending' | 'succeeded' | 'failed' | null> {
  const row = await knex('enrichment_rows').where({ job_id: jobId, row_index: rowIndex }).first('status');
  return row?.status ?? null;
}
