import type { Knex } from 'knex';
import type { Config } from '../../config';
import { openArchives } from '../research/archive';
import type { Fetcher, SearchProvider } from '../research/types';
import { createBraveSearch } from './brave';
import { createHttpFetcher, type HttpFetcherOptions } from './http-fetcher';
import { createSearxngSearch } from './searxng';

export { createBraveSearch, BRAVE_WEB_SEARCH_URL } from './brave';
export { createSearxngSearch } from './searxng';
export { createHttpFetcher, FetchError, type HttpFetcherOptions } from './http-fetcher';
export { SearchError } from './search-http';
export { isNonPublicAddress, BlockedAddressError } from './address-policy';
export { pdfText, type PdfText } from './pdf-text';

/**
 * The research providers named by the configuration (env SEARCH_PROVIDER): `archive` (default)
 * = search and fetch over the offline archives (RESEARCH_ARCHIVES); `searxng` / `brave` = that
 * live search API plus the HTTP fetcher with the FETCH_* limits, whose politeness, robots.txt and
 * page cache live in PostgreSQL (`knex`).
 * @throws Error when the chosen provider lacks its setting (no archive, SEARXNG_URL, BRAVE_API_KEY,
 *   no database for the live fetcher)
 */
export function researchProviders(config: Config, knex?: Knex): { search: SearchProvider; fetcher: Fetcher } {
  const { search } = config;
  if (search.provider === 'archive') {
    if (config.researchArchives.length === 0) throw new Error('No research archive configured (RESEARCH_ARCHIVES).');
    const archive = openArchives(config.researchArchives);
    return { search: archive.search, fetcher: archive.fetcher };
  }
  const missing = search.provider === 'searxng' ? (search.searxngUrl ? null : 'SEARXNG_URL') : search.braveApiKey ? null : 'BRAVE_API_KEY';
  if (missing) throw new Error(`SEARCH_PROVIDER=${search.provider} needs ${missing}.`);
  if (!knex) throw new Error(`SEARCH_PROVIDER=${search.provider} needs the database (the live fetcher's shared state).`);
  const fetcher = createHttpFetcher(knex, httpFetcherOptions(config));
  const live =
    search.provider === 'searxng'
      ? createSearxngSearch(search.searxngUrl ?? '', search.timeoutMs)
      : createBraveSearch(search.braveApiKey ?? '', search.braveApiUrl, search.timeoutMs);
  return { search: live, fetcher };
}

/** The live fetcher's options from the configuration (env FETCH_*). */
export function httpFetcherOptions(config: Config): HttpFetcherOptions {
  const f = config.fetch;
  return {
    timeoutMs: f.timeoutMs,
    connectTimeoutMs: f.connectTimeoutMs,
    maxBytes: f.maxBytes,
    maxRedirects: f.maxRedirects,
    perHostConcurrency: f.perHostConcurrency,
    userAgent: f.userAgent,
    allowPrivate: f.allowPrivateFetch,
    hostIntervalMs: f.hostIntervalMs,
    crawlDelayMaxS: f.crawlDelayMaxS,
    maxAgeS: f.maxAgeS,
    robotsCacheS: f.robotsCacheS,
    retryAfterMaxS: f.retryAfterMaxS,
  };
}
