import type { SearchOptions, SearchProvider, SearchResult } from '../research/types';
import { filterResults, getJson, SearchError, text, withSiteOperators } from './search-http';

/** The Brave Search API's web endpoint (api-dashboard.search.brave.com, "Web Search"). */
export const BRAVE_WEB_SEARCH_URL = 'https://api.search.brave.com/res/v1/web/search';

/**
 * A {@link SearchProvider} over the Brave Search API: `GET /res/v1/web/search?q=…&count=…`
 * with header `X-Subscription-Token`, results in `web.results[]` of `{url, title,
 * description}`. `count` is at most 20 per the API. Domain rules go into the query as `site:`
 * operators and are enforced again on the results.
 * @param apiKey subscription token (env BRAVE_API_KEY)
 * @param endpoint the web-search URL (env BRAVE_API_URL), default {@link BRAVE_WEB_SEARCH_URL}
 * @throws SearchError (from `search`) on HTTP errors (e.g. 401 bad key, 429 rate limit),
 *   timeouts or a body that is not a web-search response
 */
export function createBraveSearch(apiKey: string, endpoint: string = BRAVE_WEB_SEARCH_URL, timeoutMs = 10_000): SearchProvider {
  return {
    async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
      const url = new URL(endpoint);
      url.searchParams.set('q', withSiteOperators(query, options));
      url.searchParams.set('count', String(Math.min(20, Math.max(1, options.limit))));
      const body = await getJson('Brave', url, { 'x-subscription-token': apiKey }, timeoutMs);
      const web = (body as { web?: { results?: unknown } }).web;
      if (web === undefined && (body as { type?: unknown }).type === 'search') return [];
      if (!Array.isArray(web?.results)) throw new SearchError('Brave', 'response has no web.results list');
      return filterResults(
        web.results.map((r: Record<string, unknown>) => ({ url: text(r?.url), title: text(r?.title), snippet: text(r?.description) })),
        options,
      );
    },
  };
}
