import type { Config } from '../config';
import { createEngine } from './engine';
import { openArchives } from './research/archive';
import type { EnrichmentEngine } from './types';

export { createEngine } from './engine';
export type { EvidenceDocument } from './engine';
export { openArchives, type WebArchive, type ArchivePage, type ArchiveOptions } from './research/archive';
export type { SearchProvider, SearchResult, SearchOptions, Fetcher, FetchedPage } from './research/types';
export { parsePrice, type ParsedPrice, type PriceHints } from './normalize/price';
export * from './types';

/**
 * The engine over the offline web archives named by `config.researchArchives`
 * (env RESEARCH_ARCHIVES). The search index is built lazily on the first search.
 * @throws Error when no archive is configured or one lacks page-index.json
 */
export function createEngineFromConfig(config: Config): EnrichmentEngine {
  if (config.researchArchives.length === 0) throw new Error('No research archive configured (RESEARCH_ARCHIVES).');
  const archive = openArchives(config.researchArchives);
  return createEngine({ search: archive.search, fetcher: archive.fetcher, llm: config.llm ?? undefined });
}
