import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../../lib/errors';
import type { Config } from '../../config';
import type { Scope } from './scope';

/** The IETF draft `RateLimit-Limit/Remaining/Reset` headers of one limiter state. */
function rateLimitHeaders(limit: number, res: RateLimiterRes): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'RateLimit-Reset': String(Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * Request limits shared by every API process through PostgreSQL (table `rate_limits`, the layout
 * of rate-limiter-flexible's `RateLimiterPostgres`): per organization and per API key
 * or user, `burst` requests per `burst / requestsPerSecond` seconds (a fixed window that allows
 * bursts and averages to the rate); and per client IP, failed authentications per minute, which
 * slows down guessing of keys. One instance per app (created by createApp; no module state).
 */
export class RateLimits {
  private readonly requests: RateLimiterPostgres | null;
  private readonly authFailures: RateLimiterPostgres | null;

  constructor(
    knex: Knex,
    private readonly limits: Config['limits'],
  ) {
    const store = { storeClient: knex, storeType: 'knex', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false };
    this.requests =
      limits.requestsPerSecond > 0
        ? new RateLimiterPostgres({
            ...store,
            keyPrefix: 'req',
            points: limits.burst,
            duration: Math.max(1, Math.ceil(limits.burst / limits.requestsPerSecond)),
          })
        : null;
    this.authFailures =
      limits.authFailuresPerMinute > 0
        ? new RateLimiterPostgres({ ...store, keyPrefix: 'authfail', points: limits.authFailuresPerMinute, duration: 60 })
        : null;
  }

  /**
   * Counts one request of the scope against its organization's and its principal's limits.
   * @returns the `RateLimit-*` headers of the tighter of the two (empty when requests are not limited)
   * @throws TooManyRequestsError (429, `Retry-After`) when either is exhausted
   */
  async consumeRequest(scope: Scope): Promise<Record<string, string>> {
    if (!this.requests) return {};
    const keys = [`org:${scope.organizationId}`, `${scope.principal.kind}:${scope.principal.id}`];
    const states: RateLimiterRes[] = [];
    for (const key of keys) {
      try {
        states.push(await this.requests.consume(key));
      } catch (rejected) {
        if (!(rejected instanceof RateLimiterRes)) throw rejected;
        const what = key.startsWith('org:') ? 'organization' : 'credentials';
        throw new TooManyRequestsError(
          `Too many requests for this ${what}; retry later`,
          rejected.msBeforeNext / 1000,
          rateLimitHeaders(this.limits.burst, rejected),
        );
      }
    }
    const tightest = states.reduce((a, b) => (b.remainingPoints < a.remainingPoints ? b : a));
    return rateLimitHeaders(this.limits.burst, tightest);
  }

  /**
   * Refuses a client IP that failed authentication too often in the last minute, before its
   * next attempt is even checked.
   * @throws TooManyRequestsError (429)
   */
  async assertMayAuthenticate(ip: string): Promise<void> {
    if (!this.authFailures) return;
    const state = await this.authFailures.get(ip);
    if (state && state.consumedPoints >= this.limits.authFailuresPerMinute) {
      throw new TooManyRequestsError('Too many failed authentications from this address; retry later', state.msBeforeNext / 1000);
    }
  }

  /** Counts one failed authentication of a client IP. */
  async countAuthFailure(ip: string): Promise<void> {
    if (!this.authFailures) return;
    await this.authFailures.penalty(ip, 1);
  }
}
