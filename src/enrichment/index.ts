import type { Knex } from 'knex';
import type { Config } from '../config';
import { createEngine } from './engine';
import { researchProviders } from './providers';
import type { EnrichmentEngine } from './types';

export { createEngine } from './engine';
export type { EvidenceDocument } from './engine';
export { openArchives, type WebArchive, type ArchivePage, type ArchiveOptions } from './research/archive';
export type { SearchProvider, SearchResult, SearchOptions, Fetcher, FetchedPage } from './research/types';
export { parsePrice, type ParsedPrice, type PriceHints } from './normalize/price';
export * from './types';
export { knowledgeBaseDocuments, KnowledgeBaseFileError, type KnowledgeBaseFile } from './knowledge-base/documents';
export { researchProviders } from './providers';

/**
 * The engine the service runs: research providers chosen by `config.search` (default: the
 * offline web archives of `config.researchArchives`, index built lazily on the first search;
 * `searxng`/`brave`: live search + HTTP fetching, see providers/index.ts), and the LLM step
 * when `config.llm` is set (env OPENAI_BASE_URL). `knex` holds the live fetcher's shared state.
 * @throws Error when the chosen provider is not configured (no archive, no SEARXNG_URL, no
 *   BRAVE_API_KEY, no database for a live provider)
 */
export function createEngineFromConfig(config: Config, knex?: Knex): EnrichmentEngine {
  const { search, fetcher } = researchProviders(config, knex);
  return createEngine({ search, fetcher, llm: config.llm ?? undefined });
}
