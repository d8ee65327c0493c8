import type { Config } from '../config';
import { createEngine } from './engine';
import { researchProviders, type FetchState, type ResearchSource } from './providers';
import { googleTaxonomyLoader } from './taxonomy/google';
import type { EnrichmentEngine } from './types';

export { createEngine } from './engine';
export type { EvidenceDocument } from './engine';
export { openArchives, type WebArchive, type ArchivePage, type ArchiveOptions } from './research/archive';
export type { SearchProvider, SearchResult, SearchOptions, Fetcher, FetchedPage } from './research/types';
export { parsePrice, type ParsedPrice, type PriceHints } from './normalize/price';
export * from './types';
export { knowledgeBaseDocuments, KnowledgeBaseFileError, type KnowledgeBaseFile } from './knowledge-base/documents';
export { researchProviders, combineSources, type ResearchSource, type ResearchProviders } from './providers';
export type { FetchState, HttpCacheStore, RobotsStore, HostPoliteness, HostGrant, RenderStore } from './providers';

/**
 * The engine the service runs: research providers chosen by `config.search` (default: the
 * offline web archive folders of `config.researchArchives`, index built lazily on the first
 * search; `searxng`/`brave`: live search + HTTP fetching; the pages items name are fetched live in
 * every configuration unless FETCH_ITEM_URLS=false), after `options.archiveIndex` (the web
 * archives indexed in PostgreSQL, which the worker passes; see providers/index.ts), and the LLM
 * step when `config.llm` is set (env OPENAI_BASE_URL). `options.fetchState` is the live fetcher's
 * shared state (providers/fetch-state.ts; the worker passes src/services/fetching's). With no source at all it still starts: research finds nothing. The Google product
 * taxonomy of `config.googleTaxonomyFile` bridges predictions into a catalog's own taxonomy.
 * @throws Error when a live provider is not configured (no SEARXNG_URL, no BRAVE_API_KEY, no fetch state)
 */
export function createEngineFromConfig(config: Config, options: { archiveIndex?: ResearchSource; fetchState?: FetchState } = {}): EnrichmentEngine {
  const { search, fetcher, itemFetcher } = researchProviders(config, options);
  return createEngine({ search, fetcher, itemFetcher, llm: config.llm ?? undefined, taxonomyBridge: googleTaxonomyLoader(config.googleTaxonomyFile ?? null) });
}
