import type { Context, Next } from 'koa';

/**
 * Hardening headers of every `/api` answer, errors included: `X-Content-Type-Options:
 * nosniff` (a JSON body is never sniffed as HTML) and `Cache-Control: no-store` (organization
 * data never lands in shared caches) unless a route chose its own caching (e.g. an ETag route).
 */
export async function apiHeaders(ctx: Context, next: Next): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  try {
    await next();
  } finally {
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
  }
}
