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
 * - spacing: `fetch_hosts.next_start_at` is the earliest start of the host's next request;
 *   one atomic upsert reserves `greatest(next_start_at, clock_timestamp())` for this request and
 *   moves `next_start_at` on by `max(intervalMs, crawl_delay_ms)`; the caller sleeps until its
 *   reserved start. Reservations are exact (not a window count), so two starts are never closer
 *   than the interval, whichever workers make them. Since a request reaches the host some time
 *   after it starts (connecting), a request also waits the interval after the host's last
 *   answer (`last_answer_at`, set when a response or failure is done): the host sees
 *   requests at least the interval apart whenever the previous one was answered first.
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

  const reserveStart = async (host: string): Promise<number> => {
    const { rows } = await knex.raw<{ rows: Array<{ wait_ms: number }> }>(
      `INSERT INTO fetch_hosts AS h (host, next_start_at, updated_at)
       VALUES (?, clock_timestamp() + make_interval(secs => ?::float8 / 1000), clock_timestamp())
       ON CONFLICT (host) DO UPDATE SET
         next_start_at = greatest(h.next_start_at, clock_timestamp())
                         + make_interval(secs => greatest(?::float8, coalesce(h.crawl_delay_ms, 0)) / 1000),
         updated_at = clock_timestamp()
       RETURNING extract(epoch FROM (h.next_start_at - make_interval(secs => greatest(?::float8, coalesce(h.crawl_delay_ms, 0)) / 1000)
                                     - clock_timestamp())) * 1000 AS wait_ms`,
      [host, options.intervalMs, options.intervalMs, options.intervalMs],
    );
    return Math.max(0, Number(rows[0].wait_ms));
  };

  /** How long until `intervalMs` (or the crawl delay) has passed since the host's last answer, ms. */
  const sinceLastAnswer = async (host: string): Promise<number> => {
    const { rows } = await knex.raw<{ rows: Array<{ wait_ms: number | null }> }>(
      `SELECT extract(epoch FROM (last_answer_at + make_interval(secs => greatest(?::float8, coalesce(crawl_delay_ms, 0)) / 1000)
                                  - clock_timestamp())) * 1000 AS wait_ms
       FROM fetch_hosts WHERE host = ?`,
      [options.intervalMs, host],
    );
    return Math.max(0, Number(rows[0]?.wait_ms ?? 0));
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
      try {
        const wait = await reserveStart(host);
        if (wait > 0) await sleep(wait + START_MARGIN_MS);
        // A request that started earlier may have reached the host later than its start (connect
        // time): no request starts within the interval after the host's last answer either.
        for (let after = await sinceLastAnswer(host); after > 0; after = await sinceLastAnswer(host)) await sleep(after + START_MARGIN_MS);
      } catch (err) {
        await knex('fetch_host_slots').where({ host, slot: taken, holder }).delete();
        throw err;
      }
      return async () => {
        await knex.raw(`UPDATE fetch_hosts SET last_answer_at = greatest(coalesce(last_answer_at, clock_timestamp()), clock_timestamp()) WHERE host = ?`, [
          host,
        ]);
        await knex('fetch_host_slots').where({ host, slot: taken, holder }).delete();
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
