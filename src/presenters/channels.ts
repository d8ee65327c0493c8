import type { EnrichmentJob } from '../models/enrichment-job';
import type { ChannelGapsPlan } from '../services/channels/fill-gaps';
import { reviewUrl } from '../services/review/review-activities';
import { polledStatus } from './enrich';

/**
 * The 202 answer of `POST /public/catalogs/{catalog_id}/channel-readiness/fill-gaps`
 * (docs/channels.md, "Fill the gaps for a channel"): the job (its id, status as a poll names it,
 * its absolute review URL, `publicUrl` the base), the fields it enriches and the items, the
 * attributes it fills with their fields, and those it cannot fill with why.
 */
export function presentChannelGaps(plan: ChannelGapsPlan, job: EnrichmentJob, publicUrl: string) {
  return {
    job_id: job.id,
    status: polledStatus(job.status),
    channel: plan.channel.id,
    mapping_source: plan.mapping_source,
    feed_id: plan.feed_id,
    fields: plan.target?.fields ?? [],
    items: job.total_items,
    matching: plan.matching,
    attributes: plan.fillable.map((f) => ({ attribute: f.attribute, field: f.field, items: f.items })),
    not_fillable: plan.not_fillable.map((n) => ({ attribute: n.attribute, reason: n.reason, items: n.items })),
    review_url: reviewUrl(publicUrl, job.catalog_id, job.id),
  };
}
