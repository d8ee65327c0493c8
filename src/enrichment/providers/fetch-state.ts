import type CachePolicy from 'http-cache-semantics';
import type { RenderedPage } from './renderer';

/**
 * The live fetcher's shared state as the engine sees it: interfaces only. The fetcher
 * (http-fetcher.ts) keeps robots.txt, the HTTP cache, per-host politeness and rendered pages in a
 * store every worker shares (docs/research.md, "The live web"); the service implements these
 * interfaces over PostgreSQL (src/services/fetching/) and the worker's wiring passes them in, so
 * the engine itself holds no database code.
 */

/** A response kept in the HTTP cache with its HTTP cache policy (docs/research.md, "HTTP caching"). */
export interface CachedResponse {
  url: string;
  final_url: string;
  status: number;
  content_type: string;
  response_headers: Array<[string, string]>;
  body: Buffer;
  policy: CachePolicy;
  /** When the stored bytes were fetched. */
  fetched_at: Date;
  /** When the stored copy was last confirmed (fetched or revalidated with a 304). */
  validated_at: Date;
}

/** The fetcher's HTTP cache, one entry per requested URL. */
export interface HttpCacheStore {
  /** The stored response of `url`, or null when there is none. */
  load(url: string): Promise<CachedResponse | null>;
  /**
   * Stores (or replaces) the response of `url` when its policy lets it be stored
   * (`policy.storable()`); a response that may not be stored removes an older copy. The store
   * sets `validated_at` to the time of storing.
   */
  store(entry: Omit<CachedResponse, 'validated_at'>): Promise<void>;
  /** Records a 304 revalidation of `url`: the stored bytes stay, `policy` and the confirmation time move on. */
  markRevalidated(url: string, policy: CachePolicy): Promise<void>;
}

/**
 * A stored robots.txt: `ok` (2xx, the body is parsed), `allow_all` (4xx), `disallow_all` (5xx or
 * unreachable); RFC 9309 §2.3.1.
 */
export interface StoredRobots {
  outcome: 'ok' | 'allow_all' | 'disallow_all';
  body: string;
}

/** robots.txt per origin, shared by every worker (docs/research.md, "robots.txt (RFC 9309)"). */
export interface RobotsStore {
  /** The stored robots.txt of `origin` (`scheme://host[:port]`) while it has not expired, else null. */
  fresh(origin: string): Promise<StoredRobots | null>;
  /**
   * Stores (or replaces) the robots.txt of `origin` for `ttlS` seconds; `httpStatus` is the
   * answer's status, null when no answer came.
   */
  save(origin: string, robots: StoredRobots, httpStatus: number | null, ttlS: number): Promise<void>;
}

/** Raised when no request slot of a host freed up within the politeness' longest wait. */
export class HostBusyError extends Error {
  constructor(host: string, waitedMs: number) {
    super(`no free request slot for ${host} within ${waitedMs} ms`);
    this.name = 'HostBusyError';
  }
}

/** A granted request start to one host: send the request now, call `release` when its response is done. */
export interface HostGrant {
  /** When the start was granted, ISO 8601 (the shared state's clock: the database's); the fetcher stamps the exchange (its WARC-Date) with it. */
  started_at: string;
  /** Records the host's answer time (the next start waits the spacing after it) and frees the slot. */
  release(): Promise<void>;
}

/** Politeness towards one host, shared by every worker (docs/research.md, "Politeness, shared by all workers"). */
export interface HostPoliteness {
  /**
   * Waits for a free request slot of `host` and then until the host's spacing allows a start,
   * and resolves with the granted start: the request may be sent at once.
   * @throws HostBusyError when no slot freed up in time
   */
  acquire(host: string): Promise<HostGrant>;
  /** Records the host's robots.txt `Crawl-delay` (ms, already capped; null = none). */
  setCrawlDelay(host: string, delayMs: number | null): Promise<void>;
}

/** A stored rendering of a URL (headless Chromium; docs/research.md, "Pages that build their product data with JavaScript"). */
export interface StoredRender extends RenderedPage {
  url: string;
}

/** The renderings the fetcher serves in place of static pages. */
export interface RenderStore {
  /** A rendering of `url` made within `maxAgeS` seconds, if any. */
  loadRender(url: string, maxAgeS: number): Promise<StoredRender | null>;
}

/** Everything the live fetcher shares with the other workers: its HTTP cache, robots.txt, host politeness and renderings. */
export interface FetchState {
  cache: HttpCacheStore;
  robots: RobotsStore;
  hosts: HostPoliteness;
  renders: RenderStore;
}
