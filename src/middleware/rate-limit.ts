import type { Context, Next } from 'koa';
import { UnauthorizedError } from '../lib/errors';
import type { RateLimits } from '../services/access/rate-limits';

/**
 * Before authentication: refuses a client IP that failed authentication too often (429), and
 * counts each 401 against it, so API keys cannot be guessed at speed.
 */
export function authThrottle(limits: RateLimits) {
  return async (ctx: Context, next: Next): Promise<void> => {
    await limits.assertMayAuthenticate(ctx.ip);
    try {
      await next();
    } catch (err) {
      if (err instanceof UnauthorizedError) await limits.countAuthFailure(ctx.ip);
      throw err;
    }
  };
}

/**
 * After authentication: counts the request against its organization's and credentials' limits
 * (429 with `Retry-After` when exhausted) and reports the remaining budget in `RateLimit-*`
 * headers.
 */
export function requestQuota(limits: RateLimits) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.state.scope) ctx.set(await limits.consumeRequest(ctx.state.scope));
    await next();
  };
}
