import type { SearchOptions, SearchProvider, SearchResult } from '../research/types';
import { filterResults, getJson, SearchError, text, withSiteOperators } from './search-http';

/**
 * A {@link SearchProvider} over a self-hosted SearXNG instance's JSON API
 * (docs.searxng.org, "Search API": `GET /search?q=…&format=json`, `results[]` of
 * `{url, title, content}`); the instance must list `json` in `search.formats`. Domain rules go
 * into the query as `site:` operators and are enforced again on the results.
 * @param baseUrl instance root, e.g. `http://searxng:8080`
 * @param timeoutMs per search call
 * @throws SearchError (from `search`) on HTTP errors, timeouts or a body without `results`
 */
export function createSearxngSearch(baseUrl: string, timeoutMs: number): SearchProvider {
  return {
    async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', withSiteOperators(query, options));
      url.searchParams.set('format', 'json');
      url.searchParams.set('safesearch', '0');
      const body = await getJson('SearXNG', url, {}, timeoutMs);
      const results = (body as { results?: unknown }).results;
      if (!Array.isArray(results)) throw new SearchError('SearXNG', 'response has no results list');
      return filterResults(
        results.map((r: Record<string, unknown>) => ({ url: text(r?.url), title: text(r?.title), snippet: text(r?.content) })),
        options,
      );
    },
  };
}
