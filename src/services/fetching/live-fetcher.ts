import type { Knex } from 'knex';
import type { HttpFetcherOptions } from '../../config';
import type { FetchState } from '../../enrichment/providers/fetch-state';
import { createHttpFetcher } from '../../enrichment/providers/http-fetcher';
import type { Fetcher } from '../../enrichment/research/types';
import { fetchCacheStore } from './fetch-cache-store';
import { createHostPoliteness } from './host-limiter';
import { renderStore } from './render-store';
import { robotsStore } from './robots-store';

/**
 * The live fetcher's shared state in PostgreSQL (docs/research.md, "The live web"): the HTTP
 * cache (`fetch_cache`), robots.txt (`fetch_robots`), per-host politeness (`fetch_hosts`,
 * `fetch_host_slots`) and renderings (`page_renders`), as the engine's {@link FetchState}. The
 * politeness takes its limits from `options` (FETCH_PER_HOST_CONCURRENCY, FETCH_HOST_INTERVAL_MS);
 * a slot's lease outlives one request's connect and read timeouts by 30 s, and a request waits at
 * most 10 minutes for a slot. Makes no query until the fetcher uses it.
 */
export function createFetchState(knex: Knex, options: HttpFetcherOptions): FetchState {
  return {
    cache: fetchCacheStore(knex),
    robots: robotsStore(knex),
    hosts: createHostPoliteness(knex, {
      perHost: options.perHostConcurrency,
      intervalMs: options.hostIntervalMs,
      leaseMs: options.timeoutMs + options.connectTimeoutMs + 30_000,
      maxWaitMs: 10 * 60_000,
    }),
    renders: renderStore(knex),
  };
}

/**
 * The engine's live HTTP fetcher (src/enrichment/providers/http-fetcher.ts) over the PostgreSQL
 * fetch state of {@link createFetchState}, with `options` (config `fetch`, env FETCH_*); `close()`
 * closes its HTTP agent.
 * @throws as the fetcher does (FetchError, RetryLaterError), per fetch
 */
export function createLiveFetcher(knex: Knex, options: HttpFetcherOptions): Fetcher & { close(): Promise<void> } {
  return createHttpFetcher(createFetchState(knex, options), options);
}
