import type { Fetcher, SearchProvider } from '../../src/enrichment/research/types';

/**
 * Research over a site of one page, for engine tests: every query finds `url` (titled `title`),
 * fetching it answers `html` (any other URL is a 404), and the queries sent are recorded.
 */
export function onePageSite(url: string, html: string, title: string): { search: SearchProvider; fetcher: Fetcher; queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    search: {
      search: async (q) => {
        queries.push(q);
        return [{ url, title, snippet: '', score: 1 }];
      },
    },
    fetcher: {
      fetch: async (u) => ({
        url: u,
        final_url: u,
        status: u === url ? 200 : 404,
        content_type: 'text/html',
        body: Buffer.from(u === url ? html : ''),
        fetched_at: new Date(0).toISOString(),
      }),
    },
  };
}
