import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { HostBusyError, type HostPoliteness } from '../../enrichment/providers/fetch-state';

/** Settings of {@link createHostPoliteness}. */
export interface HostPolitenessOptions {
  /** Requests in flight per host at most, over all workers (FETCH_PER_HOST_CONCURRENCY). */
  perHost: number;
  /** Least time between two request starts to one host, ms (FETCH_HOST_INTERVAL_MS). */
  intervalMs: number;
  /** How long a slot lease lasts before another worker may take it (a crashed holder's slot frees itself), ms. */
  leaseMs: number;
  /** Longest wait for a free slot before giving up, ms. */
  maxWaitMs: number;
}

/** Extra wait added to every reserved start, ms: Node timers may fire up to a millisecond early. */
const START_MARGIN_MS = 5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The engine's {@link HostPoliteness} (src/enrichment/providers/fetch-state.ts) over PostgreSQL:
 * politeness per host shared by all workers (migration
 * 20261127080000_live_fetch):
 * - concurrency: `perHost` leased slots per host in `fetch_host_slots`; a slot is taken with one
 *   `INSERT … ON CONFLICT DO UPDATE … WHERE lease_until < now()` and freed by deleting it;
 *   waiting holders poll with a short jittered back-off. A lease outlives the fetch timeout, so a
 *   worker that dies holding one frees it by expiry.
 * - spacing: a request starts only when its start is granted: one atomic upsert on `fetch_hosts`
 *   claims "now" when the last granted start (`next_start_at` is that start plus the spacing) and
 *   the host's last answer (`last_answer_at`, set when a response or failure is done) are both at
 *   least the spacing (`max(intervalMs, crawl_delay_ms)`) ago; else the caller sleeps until then
 *   and asks again. Grants are database-clock instants claimed right before the request is sent,
 *   so a worker that woke late from its sleep (a busy event loop) claims late instead of sending
 *   on a stale reservation, and two grants are never closer than the spacing, whichever workers
 *   take them. The host sees its requests the spacing apart whenever the previous one was
 *   answered first (always, with one slot per host); with more slots, a sender paused between its
 *   grant and its first byte can reach the host closer than the spacing to the next one.
 * rate-limiter-flexible (used for the API's limits) counts points per fixed window, which allows
 * two requests at a window's edge; the reservation gives the RFC-style "at least N ms apart".
 * Long on purpose: a closure whose methods share one reservation table.
 */
export function createHostPoliteness(knex: Knex, options: HostPolitenessOptions): HostPoliteness {
  const holder = randomUUID();
  const perHost = Math.max(1, options.perHost);

  const takeSlot = async (host: string): Promise<number | null> => {
    for (let slot = 0; slot < perHost; slot++) {
      const { rows } = await knex.raw<{ rows: Array<{ slot: number }> }>(
        `INSERT INTO fetch_host_slots AS s (host, slot, holder, lease_until)
         VALUES (?, ?, ?, clock_timestamp() + make_interval(secs => ?::float8 / 1000))
         ON CONFLICT (host, slot) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
         WHERE s.lease_until < clock_timestamp()
         RETURNING s.slot`,
        [host, slot, holder, options.leaseMs],
      );
      if (rows.length) return slot;
    }
    return null;
  };

  /** The host's spacing in SQL, ms: the interval or its robots.txt Crawl-delay, whichever is longer. */
  const gap = `make_interval(secs => greatest(?::float8, coalesce(h.crawl_delay_ms, 0)) / 1000)`;

  /**
   * Claims "now" as the host's next request start when both the last granted start and the last
   * answer are at least the spacing ago (one atomic upsert: two workers never both claim), and
   * returns the grant time (database clock); else returns how long to wait before asking again, ms.
   */
  const claimStart = async (host: string): Promise<{ startedAt: string } | { waitMs: number }> => {
    // One statement either way. The wait is read from the statement's snapshot, which may be a
    // little older than the row the claim tested: a wait too short only asks again sooner.
    const { rows } = await knex.raw<{ rows: Array<{ started_at: Date | null; wait_ms: number | null }> }>(
      `WITH claimed AS (
         INSERT INTO fetch_hosts AS h (host, next_start_at, updated_at)
         VALUES (?, clock_timestamp() + make_interval(secs => ?::float8 / 1000), clock_timestamp())
         ON CONFLICT (host) DO UPDATE SET next_start_at = clock_timestamp() + ${gap}, updated_at = clock_timestamp()
         WHERE h.next_start_at <= clock_timestamp() AND (h.last_answer_at IS NULL OR h.last_answer_at + ${gap} <= clock_timestamp())
         RETURNING h.updated_at AS started_at)
       SELECT (SELECT started_at FROM claimed) AS started_at,
              (SELECT extract(epoch FROM (greatest(h.next_start_at, h.last_answer_at + ${gap}) - clock_timestamp())) * 1000
               FROM fetch_hosts h WHERE h.host = ?) AS wait_ms`,
      [host, options.intervalMs, options.intervalMs, options.intervalMs, options.intervalMs, host],
    );
    const row = rows[0];
    if (row?.started_at) return { startedAt: new Date(row.started_at).toISOString() };
    return { waitMs: Math.max(0, Number(row?.wait_ms ?? 0)) };
  };

  return {
    async acquire(host) {
      const started = Date.now();
      let slot = await takeSlot(host);
      for (let pause = 20; slot === null; pause = Math.min(500, pause * 2)) {
        if (Date.now() - started > options.maxWaitMs) throw new HostBusyError(host, Date.now() - started);
        await sleep(pause + Math.random() * pause);
        slot = await takeSlot(host);
      }
      const taken = slot;
      let startedAt: string;
      try {
        for (let claim = await claimStart(host); ; claim = await claimStart(host)) {
          if ('startedAt' in claim) {
            startedAt = claim.startedAt;
            break;
          }
          await sleep(claim.waitMs + START_MARGIN_MS);
        }
      } catch (err) {
        await knex('fetch_host_slots').where({ host, slot: taken, holder }).delete();
        throw err;
      }
      return {
        started_at: startedAt,
        release: async () => {
          await knex.raw(`UPDATE fetch_hosts SET last_answer_at = greatest(coalesce(last_answer_at, clock_timestamp()), clock_timestamp()) WHERE host = ?`, [
            host,
          ]);
          await knex('fetch_host_slots').where({ host, slot: taken, holder }).delete();
        },
      };
    },
    async setCrawlDelay(host, delayMs) {
      await knex.raw(
        `INSERT INTO fetch_hosts (host, crawl_delay_ms) VALUES (?, ?)
         ON CONFLICT (host) DO UPDATE SET crawl_delay_ms = excluded.crawl_delay_ms
         WHERE fetch_hosts.crawl_delay_ms IS DISTINCT FROM excluded.crawl_delay_ms`,
        [host, delayMs],
      );
    },
  };
}
