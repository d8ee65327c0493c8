import type { PageDoc } from '../parse/page';

/** One search hit. `score` is provider-defined (higher is better); `url` is the page's original URL. */
export interface SearchResult {
  url: string;
  title: string;
  snippet: string;
  score: number;
}

/**
 * Search options; a domain in either list also covers its subdomains. `organization_id`: whose
 * web archives are searched (an organization's uploaded archives are researched only by its own
 * jobs); providers without per-organization data ignore it.
 */
export interface SearchOptions {
  limit: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
  organization_id?: string;
  /**
   * Told the error of a source that failed while others answered (combined sources,
   * providers/index.ts combineSources), so that the failure is recorded though the search succeeds.
   */
  onSourceError?: (message: string) => void;
}

/**
 * Where an archived page's bytes are: the WARC record (file, byte offset and length, and its
 * `WARC-Record-ID`) of the research archive `archive_id`.
 */
export interface WarcRecordRef {
  archive_id: string;
  warc_file: string;
  offset: number;
  length: number;
  record_id: string | null;
}

/** Web search behind one interface: the offline archive or a live search API. */
export interface SearchProvider {
  /** Ranked results for a query; deterministic for the archive provider. Never throws for "no results". */
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
}

/**
 * How a fetch ended, recorded per URL on the row (docs/research.md, "The live web"):
 * `ok` a readable page; `not_found` 404/410 and other client errors; `blocked` 401/403/451 or a
 * challenge page (Cloudflare "Just a moment...", captcha walls); `robots_denied` robots.txt
 * forbids it (never requested); `timeout`; `too_large` over FETCH_MAX_BYTES; `server_error` 5xx,
 * 429 beyond its retries, or an unreachable host; `unsupported_type` a type we do not read.
 */
export type FetchOutcome = 'ok' | 'not_found' | 'blocked' | 'robots_denied' | 'timeout' | 'too_large' | 'server_error' | 'unsupported_type';

/**
 * One HTTP exchange as it happened on the wire, kept as WARC evidence (request + response
 * records). `status` 0 means no response arrived (timeout, refused). `stored` marks a response
 * reused from the fetch cache (written as its original response record, no request).
 */
export interface HttpExchange {
  url: string;
  /** ISO 8601 time the request started (or the stored response was fetched). */
  started_at: string;
  request_headers: Array<[string, string]>;
  status: number;
  response_headers: Array<[string, string]>;
  body: Buffer;
  /** `robots` for robots.txt, `render` for a rendered DOM; absent for pages. */
  purpose?: 'robots' | 'render';
  stored?: boolean;
}

/** A fetched page; `url` is the requested URL, `final_url` the one the bytes belong to. */
export interface FetchedPage {
  url: string;
  final_url: string;
  status: number;
  content_type: string;
  body: Buffer;
  /** ISO 8601 timestamp of capture/fetch. */
  fetched_at: string;
  /**
   * Facts parsed earlier from these very bytes (an archive's cached facts): used for the page
   * only while `url` equals `final_url` and `sha1` is the SHA-1 of `body` (parse/page.ts pageDigest).
   */
  parsed?: { url: string; sha1: string; doc: PageDoc };
  /** How the fetch ended (live fetcher); absent = `ok` for status 200. */
  outcome?: FetchOutcome;
  /**
   * With `robots_denied`: the site's robots.txt could not be read (no answer or a 5xx), which
   * RFC 9309 §2.3.1.4 treats as disallowing everything, rather than a rule that disallows the page.
   */
  robots_unreachable?: boolean;
  /** Served from the fetch cache without a request (`fresh`) or after a 304 (`revalidated`). */
  cache?: 'fresh' | 'revalidated';
  /** The body is the DOM after rendering in headless Chromium. */
  rendered?: boolean;
  /** The HTTP exchanges behind this page, robots.txt included, for WARC evidence. */
  exchanges?: HttpExchange[];
  /** The WARC record the page was read from, for a page of a web archive. */
  record?: WarcRecordRef;
}

/** What a row's evidence keeps of one fetch (Evidence.fetches): the URL, how it ended, where the bytes came from. */
export interface FetchRecord {
  url: string;
  final_url: string;
  /** HTTP status; 0 when no answer arrived (robots_denied, timeout, unreachable). */
  status: number;
  outcome: FetchOutcome;
  fetched_at: string;
  /** Reused from the fetch cache: `fresh` (no request) or `revalidated` (304). */
  cache?: 'fresh' | 'revalidated';
  /** The page was rendered in headless Chromium. */
  rendered?: boolean;
  /** WARC-Record-ID of the response (or rendered DOM) record kept as evidence, when kept. */
  warc_record_id?: string;
}

/** Per-call options of {@link Fetcher.fetch}. `organization_id` scopes archive lookups as in {@link SearchOptions}. */
export interface FetchOptions {
  organization_id?: string;
  /**
   * A 429/503 with `Retry-After` throws {@link RetryLaterError} (the caller reschedules through
   * Temporal's retry) instead of being recorded as `server_error`.
   */
  defer_retry?: boolean;
}

/**
 * The server asked to come back later (429/503 with `Retry-After`, RFC 9110 §10.2.3): the
 * activity turns it into a Temporal retry after `delayMs` (never a sleep in the activity).
 */
export class RetryLaterError extends Error {
  /** @param delayMs how long to wait before the next attempt, ms */
  constructor(
    readonly url: string,
    readonly delayMs: number,
  ) {
    super(`${url} asked to retry after ${Math.round(delayMs / 1000)} s`);
    this.name = 'RetryLaterError';
  }
}

/** Page fetching behind one interface (archive or HTTP). Returns status 404 for unknown URLs rather than throwing. */
export interface Fetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchedPage>;
}
