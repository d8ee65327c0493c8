import type { Config } from '../../config';
import { openArchives } from '../research/archive';
import type { FetchedPage, Fetcher, FetchOptions, SearchOptions, SearchProvider, SearchResult } from '../research/types';
import { createBraveSearch } from './brave';
import type { FetchState } from './fetch-state';
import { createHttpFetcher, type HttpFetcherOptions } from './http-fetcher';
import { createSearxngSearch } from './searxng';

export { createBraveSearch, BRAVE_WEB_SEARCH_URL } from './brave';
export { createSearxngSearch } from './searxng';
export { createHttpFetcher, FetchError, type HttpFetcherOptions } from './http-fetcher';
export { SearchError } from './search-http';
export { isNonPublicAddress, BlockedAddressError } from './address-policy';
export { pdfText, type PdfText } from './pdf-text';
export type {
  FetchState,
  HttpCacheStore,
  RobotsStore,
  HostPoliteness,
  HostGrant,
  RenderStore,
  CachedResponse,
  StoredRobots,
  StoredRender,
} from './fetch-state';

/** Research providers of one source: a search and the fetcher of the pages it finds. */
export interface ResearchSource {
  search: SearchProvider;
  fetcher: Fetcher;
}

/**
 * Several sources as one: search asks each and interleaves their lists by rank (first of each,
 * then second of each, …; a URL once), fetch asks each in order until one has the page (status
 * other than 404). A source whose search fails (a live search API that is down) leaves the others'
 * results standing, so archives are still researched without the network, and is
 * told to `options.onSourceError`; the search throws only when every source failed (the first error). One source is returned as it is.
 */
export function combineSources(sources: ResearchSource[]): ResearchSource {
  if (sources.length === 1) return sources[0];
  return {
    search: {
      async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
        const settled = await Promise.allSettled(sources.map((s) => s.search.search(query, options)));
        const lists = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        if (settled.length && !lists.length) throw (settled[0] as PromiseRejectedResult).reason;
        for (const r of settled) if (r.status === 'rejected') options.onSourceError?.(r.reason instanceof Error ? r.reason.message : String(r.reason));
        const seen = new Set<string>();
        const out: SearchResult[] = [];
        for (let i = 0; i < Math.max(0, ...lists.map((l) => l.length)); i++) {
          for (const list of lists) if (list[i] && !seen.has(list[i].url)) out.push((seen.add(list[i].url), list[i]));
        }
        return out.slice(0, options.limit);
      },
    },
    fetcher: {
      async fetch(url: string, options?: FetchOptions): Promise<FetchedPage> {
        let last: FetchedPage | null = null;
        for (const s of sources) {
          last = await s.fetcher.fetch(url, options);
          if (last.status !== 404) return last;
        }
        return last ?? { url, final_url: url, status: 404, content_type: 'text/plain', body: Buffer.alloc(0), fetched_at: new Date(0).toISOString() };
      },
    },
  };
}

/** The research providers of a configuration: its search and fetcher, and the fetcher of the pages items name themselves. */
export interface ResearchProviders extends ResearchSource {
  /**
   * Reads an item's own page (src/enrichment/research/item-page.ts): the archives first, then,
   * unless FETCH_ITEM_URLS=false, the live fetcher, whatever SEARCH_PROVIDER is (a URL the item
   * names is not a web search).
   */
  itemFetcher: Fetcher;
}

/**
 * The research providers of the configuration (docs/research.md): the web archives
 * indexed in PostgreSQL (`archiveIndex`, built by the worker over its database: uploaded and
 * configured WARC/WACZ archives, per organization), then by env SEARCH_PROVIDER: `archive`
 * (default) the page-index.json folders of RESEARCH_ARCHIVES, read in memory; `searxng` / `brave`
 * that live search API plus the HTTP fetcher with the FETCH_* limits, whose politeness, robots.txt,
 * page cache and renderings are `fetchState` (fetch-state.ts; the worker passes the PostgreSQL one
 * of src/services/fetching/). The pages items name are read through `itemFetcher`: the same
 * sources, then the live fetcher in every configuration while `fetch.itemUrls` (env
 * FETCH_ITEM_URLS, default true) and a fetch state is given (an engine built without one, as the
 * benchmarks do, reads them only from archives). With no source at all, search finds nothing and
 * fetch answers 404 (the API gives such jobs `web_search: false` and a notice; rows whose items
 * name a page still read it).
 * @throws Error when a live provider lacks its setting (SEARXNG_URL, BRAVE_API_KEY, the fetch state: "needs the database")
 */
export function researchProviders(config: Config, options: { archiveIndex?: ResearchSource; fetchState?: FetchState } = {}): ResearchProviders {
  const sources: ResearchSource[] = options.archiveIndex ? [options.archiveIndex] : [];
  const { search } = config;
  const folders = config.researchArchives.filter((p) => !/\.(warc|warc\.gz|wacz)$/i.test(p));
  const live = search.provider !== 'archive';
  if (!live && folders.length) sources.push(openArchives(folders));
  if (live) {
    const missing = search.provider === 'searxng' ? (search.searxngUrl ? null : 'SEARXNG_URL') : search.braveApiKey ? null : 'BRAVE_API_KEY';
    if (missing) throw new Error(`SEARCH_PROVIDER=${search.provider} needs ${missing}.`);
    if (!options.fetchState) throw new Error(`SEARCH_PROVIDER=${search.provider} needs the database (the live fetcher's shared state).`);
  }
  // One live fetcher per engine: its robots.txt single-flight and HTTP agent are shared by search results and item pages.
  const http = options.fetchState && (live || config.fetch.itemUrls) ? createHttpFetcher(options.fetchState, httpFetcherOptions(config)) : null;
  const offline = combineSources(sources);
  const withLive = http ? combineSources([...sources, { search: NO_SEARCH, fetcher: http }]) : offline;
  if (!live) return { ...offline, itemFetcher: config.fetch.itemUrls ? withLive.fetcher : offline.fetcher };
  const liveSearch =
    search.provider === 'searxng'
      ? createSearxngSearch(search.searxngUrl ?? '', search.timeoutMs)
      : createBraveSearch(search.braveApiKey ?? '', search.braveApiUrl, search.timeoutMs);
  const researched = combineSources([...sources, { search: liveSearch, fetcher: http! }]);
  return { ...researched, itemFetcher: config.fetch.itemUrls ? researched.fetcher : offline.fetcher };
}

/** A search that finds nothing: the live fetcher's place in the item-page chain, which is never searched. */
const NO_SEARCH: SearchProvider = { search: async () => [] };

/** The live fetcher's options from the configuration (env FETCH_*): `config.fetch` as it is. */
export function httpFetcherOptions(config: Config): HttpFetcherOptions {
  return config.fetch;
}
