import type { Knex } from 'knex';
import type { RobotsStore, StoredRobots } from '../../enrichment/providers/fetch-state';

/**
 * The engine's {@link RobotsStore} (src/enrichment/providers/fetch-state.ts) over `fetch_robots`
 * (migration 20261127080000_live_fetch): one row per origin with its outcome, body and expiry,
 * shared by every worker so that each origin's robots.txt is read once for all of them
 * (docs/research.md, "robots.txt (RFC 9309)"). Expiry is compared with the database's clock.
 */
export function robotsStore(knex: Knex): RobotsStore {
  return {
    async fresh(origin) {
      const row = await knex('fetch_robots').where('origin', origin).where('expires_at', '>', knex.fn.now()).first('outcome', 'body');
      return (row as StoredRobots | undefined) ?? null;
    },
    async save(origin, robots, httpStatus, ttlS) {
      await knex.raw(
        `INSERT INTO fetch_robots (origin, outcome, http_status, body, fetched_at, expires_at)
         VALUES (?, ?, ?, ?, now(), now() + make_interval(secs => ?))
         ON CONFLICT (origin) DO UPDATE SET outcome = excluded.outcome, http_status = excluded.http_status, body = excluded.body,
           fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`,
        [origin, robots.outcome, httpStatus, robots.body, ttlS],
      );
    },
  };
}
