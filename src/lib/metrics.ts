import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The process's Prometheus registry, served at `GET /metrics` (decisions.md §1). */
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
