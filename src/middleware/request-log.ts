import type { Context, Next } from 'koa';
import { randomUUID } from 'node:crypto';
import { logger } from '../lib/logger';
import { httpDuration } from '../lib/metrics';

/**
 * Gives each request an id (`X-Request-Id`, taken from the request when sent), logs one line
 * per request and records its duration in the `http_request_duration_seconds` histogram.
 */
export async function requestLog(ctx: Context, next: Next): Promise<void> {
  const started = process.hrtime.bigint();
  const requestId = ctx.get('x-request-id') || randomUUID();
  ctx.state.requestId = requestId;
  ctx.set('X-Request-Id', requestId);
  try {
    await next();
  } finally {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // Set by @koa/router on the context of a matched route (its declared path).
    const route: unknown = ctx._matchedRoute ?? 'unmatched';
    httpDuration.observe({ method: ctx.method, route: String(route), status: String(ctx.status) }, seconds);
    logger.info({ request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
  }
}
