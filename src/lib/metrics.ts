import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The process's Prometheus registry, served at `GET /metrics` (docs/api-reference.md "URLs"). */
export const metrics = new Registry();
collectDefaultMetrics({ register: metrics });

/** HTTP request latency in seconds, by method, matched route and status. */
export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration in seconds',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metrics],
});

/** Enrichment jobs created, by mode (`sync` or `async`). */
export const jobsCreated = new Counter({ name: 'enrichment_jobs_created_total', help: 'Enrichment jobs created', labelNames: ['mode'], registers: [metrics] });

/** Enrichment jobs finished, by final status (`completed`, `failed`, `cancelled`). Counted by the worker. */
export const jobsFinished = new Counter({
  name: 'enrichment_jobs_finished_total',
  help: 'Enrichment jobs finished, by final status',
  labelNames: ['status'],
  registers: [metrics],
});

/** Items of finished jobs, by outcome (`succeeded`, `failed`). */
export const itemsFinished = new Counter({
  name: 'enrichment_items_total',
  help: 'Items of finished enrichment jobs, by outcome',
  labelNames: ['outcome'],
  registers: [metrics],
});

/** Credits charged by finished jobs (1 per successful item, docs/api-enrichment.md "Enrichment jobs"). */
export const creditsCharged = new Counter({ name: 'enrichment_credits_total', help: 'Credits charged by finished enrichment jobs', registers: [metrics] });

/** Time the research + extraction engine takes per call, by method (`enrich`, `research`, `extract`). */
export const engineDuration = new Histogram({
  name: 'enrichment_engine_duration_seconds',
  help: 'Engine call duration in seconds',
  labelNames: ['method'],
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [metrics],
});

/** Time each Temporal activity takes in this worker, by activity and result (`ok`, `error`). */
export const activityDuration = new Histogram({
  name: 'temporal_activity_duration_seconds',
  help: 'Activity duration in seconds',
  labelNames: ['activity', 'result'],
  buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [metrics],
});

/** Webhook delivery attempts, by result (`delivered`, `failed`, `refused_address`, `invalid_url`). */
export const webhookAttempts = new Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts, by result',
  labelNames: ['result'],
  registers: [metrics],
});
