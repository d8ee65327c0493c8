import { iso } from '../lib/time';
import type { EnrichmentJob } from '../models/enrichment-job';

/** Status as a client sees it on poll: a cancelled job polls as `failed` (interface-spec.md, States). */
export function polledStatus(status: EnrichmentJob['status']): 'running' | 'completed' | 'failed' {
  return status === 'cancelled' ? 'failed' : status;
}

/**
 * The enrichment job response (interface-spec.md "Enrichment job response"; decisions.md §4).
 * `credits_used` stays 0 until the job has finished; `service_usage` appears only when the job
 * is complete and was asked for.
 */
export function presentJob(
  job: EnrichmentJob,
  page: { results: unknown[]; page: number; page_size: number; total_pages: number },
): Record<string, unknown> {
  const finished = job.status !== 'running';
  const out: Record<string, unknown> = {
    job_id: job.id,
    results: page.results,
    total_items: job.total_items,
    total_rows: job.total_rows,
    successful: job.successful,
    credits_used: finished ? job.credits_used : 0,
    status: polledStatus(job.status),
    completed_items: job.completed_items,
    page: page.page,
    page_size: page.page_size,
    total_pages: page.total_pages,
    knowledge_base_enabled: Boolean(job.config.knowledge_base_enabled),
    knowledge_base_sources: job.config.knowledge_base_sources ?? {},
  };
  if (job.error) out.error = job.error;
  if (finished && job.config.include_service_usage && job.service_usage) out.service_usage = job.service_usage;
  if (job.config.pricing_estimates) out.pricing_estimates = { credits_per_successful_item: 1, estimated_credits: job.total_items };
  return out;
}

/** One entry of `GET /public/enrich/jobs` (decisions.md §4, G18): the stored status, so `cancelled` is filterable. */
export function presentJobListEntry(job: EnrichmentJob): Record<string, unknown> {
  return {
    job_id: job.id,
    status: job.status,
    catalog_id: job.catalog_id,
    total_items: job.total_items,
    completed_items: job.completed_items,
    successful: job.successful,
    credits_used: job.status === 'running' ? 0 : job.credits_used,
    created_at: iso(job.created_at),
    completed_at: iso(job.completed_at),
  };
}
