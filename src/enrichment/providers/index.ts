import type { Config } from '../../config';
import { openArchives } from '../research/archive';
import type { Fetcher, SearchProvider } from '../research/types';
import { createBraveSearch } from './brave';
import { createHttpFetcher } from './http-fetcher';
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
 * live search API plus the HTTP fetcher with the FETCH_* limits.
 * @throws Error when the chosen provider lacks its setting (no archive, SEARXNG_URL, BRAVE_API_KEY)
 */
export function researchProviders(config: Config): { search: SearchProvider; fetcher: Fetcher } {
  const { search } = config;
  if (search.provider === 'archive') {
    if (config.researchArchives.length === 0) throw new Error('No research archive configured (RESEARCH_ARCHIVES).');
    const archive = openArchives(config.researchArchives);
    return { search: archive.search, fetcher: archive.fetcher };
  }
  const f = config.fetch;
  const fetcher = createHttpFetcher({
    timeoutMs: f.timeoutMs,
    connectTimeoutMs: f.connectTimeoutMs,
    maxBytes: f.maxBytes,
    maxRedirects: f.maxRedirects,
    perHostConcurrency: f.perHostConcurrency,
    userAgent: f.userAgent,
    allowPrivate: f.allowPrivateFetch,
  });
  if (search.provider === 'searxng') {
    if (!search.searxngUrl) throw new Error('SEARCH_PROVIDER=searxng needs SEARXNG_URL.');
    return { search: createSearxngSearch(search.searxngUrl, search.timeoutMs), fetcher };
  }
  if (!search.braveApiKey) throw new Error('SEARCH_PROVIDER=brave needs BRAVE_API_KEY.');
  return { search: createBraveSearch(search.braveApiKey, search.braveApiUrl, search.timeoutMs), fetcher };
}
