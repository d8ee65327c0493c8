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
 * jobs; issue 27 §2); providers without per-organization data ignore it.
 */
export interface SearchOptions {
  limit: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
  organization_id?: string;
}

/** Fetch options: `organization_id` scopes archive lookups as in {@link SearchOptions}. */
export interface FetchOptions {
  organization_id?: string;
}

/**
 * Where an archived page's bytes are: the WARC record (file, byte offset and length, and its
 * `WARC-Record-ID`) of the research archive `archive_id` (issue 27 §2).
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
  /** The WARC record the page was read from, for a page of a web archive. */
  record?: WarcRecordRef;
}

/** Page fetching behind one interface (archive or HTTP). Returns status 404 for unknown URLs rather than throwing. */
export interface Fetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchedPage>;
}
