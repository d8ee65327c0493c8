import { BaseModel } from './base';

/**
 * One attempt to deliver a job's completion webhook (docs/api-enrichment.md "Webhooks": every attempt is visible
 * on the job); unique per (webhook_id, attempt).
 */
export class WebhookDelivery extends BaseModel {
  static tableName = 'webhook_deliveries';
  /** bigserial: pg returns it as a string. */
  id!: string;
  job_id!: string;
  webhook_id!: string;
  url!: string;
  attempt!: number;
  status_code!: number | null;
  error!: string | null;
  duration_ms!: number;
  attempted_at!: Date;
  delivered_at!: Date | null;
}
