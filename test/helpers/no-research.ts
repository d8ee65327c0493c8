import type { Fetcher, SearchProvider } from '../../src/enrichment/research/types';

/**
 * Research providers that refuse: every search and fetch throws `no search (<why>)` /
 * `no fetch (<why>)`. For engines that must not research (`web_search: false` jobs, extraction
 * from stored evidence): a call would fail the row, so a test sees it.
 */
export function noResearch(why: string): { search: SearchProvider; fetcher: Fetcher } {
  return {
    search: {
      search: async () => {
        throw new Error(`no search (${why})`);
      },
    },
    fetcher: {
      fetch: async () => {
        throw new Error(`no fetch (${why})`);
      },
    },
  };
}
