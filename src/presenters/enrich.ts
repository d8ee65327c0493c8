import { iso } from '../lib/time';
import type { EnrichmentJob } from '../models/enrichment-job';
import { reviewUrl } from '../services/review/review-activities';
import type { JobList, JobPage } from '../services/enrichment/jobs/jobs';
import type { WebhookStatus } from '../services/enrichment/webhooks';

/** Status as a client sees it on poll: a cancelled job polls as `failed` (docs/api-enrichment.md "Job states"). */
export function polledStatus(status: EnrichmentJob['status']): 'running' | 'completed' | 'failed' {
  return status === 'cancelled' ? 'failed' : status;
}

/**
 * The enrichment job response (docs/api-enrichment.md "Enrichment jobs").
 * `credits_used` stays 0 until the job has finished; `service_usage` appears only when the job
 * is complete and was asked for; `pricing_estimates` is always there (existing clients read it
 * without asking for it; the request's `pricing_estimates` flag is accepted and changes nothing).
 * A job that stages its results on a catalog (`catalog_id`: the job is a review activity,
 * docs/api-enrichment.md "Enrichment jobs") carries its absolute `review_url` (docs/api-review.md "Activities"; `publicUrl` is its base).
 * `current_step` names what a running job is doing
 * (`training_text_model` while its text model learns from the catalog's examples, else
 * `enriching_items`); null once it has finished.
 */
export function presentJob(
  job: EnrichmentJob,
  page: { results: unknown[]; page: number; page_size: number; total_pages: number },
  publicUrl: string,
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
    current_step: finished ? null : (job.current_step ?? 'enriching_items'),
    page: page.page,
    page_size: page.page_size,
    total_pages: page.total_pages,
    knowledge_base_enabled: Boolean(job.config.knowledge_base_enabled),
    knowledge_base_sources: job.config.knowledge_base_sources ?? {},
  };
  if (job.catalog_id) out.review_url = reviewUrl(publicUrl, job.catalog_id, job.id);
  if (job.error) out.error = job.error;
  if (finished && job.config.include_service_usage && job.service_usage) out.service_usage = job.service_usage;
  out.pricing_estimates = pricingEstimates(job);
  if (Array.isArray(job.config.recorded_noops) && job.config.recorded_noops.length) out.notices = job.config.recorded_noops;
  return out;
}

/**
 * A polled job with its page of results ({@link presentJob}; `publicUrl` the base of its
 * `review_url`), then `audit` and `webhook` when the service added them (docs/api-enrichment.md "Webhooks").
 */
export function presentJobPage(p: JobPage, publicUrl: string): Record<string, unknown> {
  const out = presentJob(p.job, { results: p.results, page: p.page, page_size: p.page_size, total_pages: p.total_pages }, publicUrl);
  if (p.audit) out.audit = p.audit;
  if (p.webhook) out.webhook = presentWebhookStatus(p.webhook);
  return out;
}

/** The `webhook` object of a job poll (docs/api-enrichment.md "Webhooks": every attempt visible, with the status of the event it sent). */
export function presentWebhookStatus(w: WebhookStatus): Record<string, unknown> {
  return {
    url: w.url,
    delivered: w.delivered,
    attempts: w.attempts.map((r) => ({
      attempt: r.attempt,
      event_status: String(r.webhook_id).split('_').pop() ?? '',
      status_code: r.status_code,
      error: r.error,
      duration_ms: r.duration_ms,
      attempted_at: iso(r.attempted_at),
      delivered_at: iso(r.delivered_at),
    })),
  };
}

/** `GET /public/enrich/jobs` (docs/api-enrichment.md "Polling and listing jobs"): `{jobs, total, limit, offset}`. */
export function presentJobList(list: JobList): Record<string, unknown> {
  return { jobs: list.jobs.map(presentJobListEntry), total: list.total, limit: list.limit, offset: list.offset };
}

/** The answer of `POST /public/enrich/{job_id}/cancel`: the list entry of the cancelled job and a message. */
export function presentCancelledJob(job: EnrichmentJob): Record<string, unknown> {
  return { ...presentJobListEntry(job), message: 'Job cancelled; results of processed items are kept' };
}

/**
 * `pricing_estimates` (docs/api-enrichment.md "Enrichment jobs": "estimated pricing breakdown"; its contents are left
 * open, so this is what the service can state honestly): 1 credit per successful item
 * (Limits), charged only for rows this job processes — rows carried from an earlier job
 * (resume / re-extract) are free. `estimated_credits` is the upper bound (every row to process
 * succeeds) while running and the exact charge once finished.
 */
export function pricingEstimates(job: EnrichmentJob): Record<string, unknown> {
  const carried = job.carried_items ?? 0;
  const toProcess = Math.max(0, job.total_items - carried);
  const finished = job.status !== 'running';
  return {
    currency: 'credits',
    credits_per_successful_item: 1,
    items: job.total_items,
    items_carried_free: carried,
    items_to_process: toProcess,
    estimated_credits: finished ? job.credits_used : toProcess,
    estimate_basis: finished ? 'final: successful items processed by this job' : 'upper bound: every item still to process succeeds',
  };
}

/** One entry of `GET /public/enrich/jobs` (docs/api-enrichment.md "Polling and listing jobs"): the stored status, so `cancelled` is filterable. */
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
