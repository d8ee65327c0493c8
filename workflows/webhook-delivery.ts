/**
 * webhookDeliveryWorkflow: delivers a finished job's signed `enrichment.job.completed` webhook
 * (docs/api-enrichment.md "Webhooks"). Started by
 * enrichmentJobWorkflow as a child with id `<parent id>/webhook` and parent-close policy
 * ABANDON, after the job is finalized in PostgreSQL; nothing here ever writes to the job.
 *
 * State machine:
 *
 *   delivering ── deliverWebhook answered 2xx ─────────────────────▶ completed {delivered: true}
 *   delivering ── attempt failed (non-2xx, 30 s timeout, refused) ─▶ backoff, next attempt
 *   delivering ── attempts or time budget spent / URL invalid ─────▶ failed (WebhookNotDelivered)
 *
 * Retries: the activity's retry policy: 10 s doubling to 10 min, 10 attempts (about 40 minutes),
 * bounded by a 1 h schedule-to-close timeout; each attempt has a 30 s HTTP timeout inside the
 * activity (start-to-close 45 s, heartbeat timeout 15 s) and is recorded in `webhook_deliveries`. An invalid URL
 * (`InvalidWebhookUrl`) is not retried. The tuning in {@link WebhookDeliveryArgs} only shortens
 * this for tests.
 *
 * Continue-as-new: never (one activity, at most ~30 events).
 *
 * Cancellation: cancelling this workflow cancels the pending attempt or backoff and the workflow
 * ends Canceled; the job is unaffected.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { EnrichmentActivities } from '../activities/enrichment';
import type { WebhookDeliveryArgs, WebhookDeliveryResult } from '../src/contracts/workflows';
import { retryPolicy } from '../src/contracts/retry-policies';

/**
 * Delivers the webhook of `args.job_id` under Temporal's retry policy.
 * @returns `{delivered: true, attempts}` once a receiver answered 2xx (or `delivered: false`
 *   with a reason when the job has no webhook_url)
 * @throws ApplicationFailure `WebhookNotDelivered` (non-retryable) when every attempt failed
 */
export async function webhookDeliveryWorkflow(args: WebhookDeliveryArgs): Promise<WebhookDeliveryResult> {
  const maximumAttempts = Math.max(1, args.maximum_attempts ?? 10);
  const { deliverWebhook } = proxyActivities<EnrichmentActivities>({
    startToCloseTimeout: '45 seconds',
    // The attempt heartbeats on a timer while it waits for the receiver: a worker killed
    // mid-attempt is noticed within 15 s, not 45.
    heartbeatTimeout: '15 seconds',
    scheduleToCloseTimeout: `${Math.max(1, args.schedule_to_close_s ?? 3600)} seconds`,
    retry: retryPolicy(`${Math.max(0.1, args.initial_interval_s ?? 10)} seconds`, `${Math.max(0.1, args.maximum_interval_s ?? 600)} seconds`, maximumAttempts, [
      'InvalidWebhookUrl',
    ]),
  });
  try {
    return await deliverWebhook(args.job_id);
  } catch (err) {
    if (err instanceof ActivityFailure) {
      throw ApplicationFailure.nonRetryable(`webhook of job ${args.job_id} not delivered: ${err.cause?.message ?? err.message}`, 'WebhookNotDelivered');
    }
    throw err;
  }
}
