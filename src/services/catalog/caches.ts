/**
 * The catalog domain's per-process caches (src/services/caches.ts), one instance per app or
 * worker, so two apps in one process (tests) never share them (docs/architecture.md "4. Process state lives in objects owned by deps"
 * in objects passed through deps"). Every entry is derived from rows that never change or is
 * checked against a change counter before use, so a fresh instance only costs recomputation.
 */
import type { Knex } from 'knex';
import type { ValidationDetail } from '../../lib/errors';
import type { TaxonomyView } from './taxonomy';

/** A compiled item-data validator (src/services/catalog/schema-validation.ts `itemValidator`). */
export type ItemValidator = (data: Record<string, unknown>) => ValidationDetail[];

/** One cached search total and the catalog's `items_rev` it was counted at. */
export interface SearchTotalEntry {
  rev: string;
  total: number;
}

/** Caches of the catalog services; one instance per app or worker. */
export interface CatalogCaches {
  /** Item validators by schema version id (version rows never change); oldest evicted past 500. */
  validators: Map<string, ItemValidator>;
  /** Enriched taxonomies and their ETags by schema version id (src/services/catalog/taxonomy.ts); oldest evicted past 50. */
  taxonomies: Map<string, TaxonomyView>;
  /**
   * Exact search totals by (catalog, grouped view, lower-cased term), valid while the catalog's
   * `items_rev` is the one stored with them (src/services/catalog/items-search-totals.ts);
   * least recently used evicted past 20,000.
   */
  searchTotals: Map<string, SearchTotalEntry>;
  /** Hits and misses of {@link CatalogCaches.searchTotals} (benchmarks and tests read them). */
  searchTotalStats: { hits: number; misses: number };
  /** Search totals counted, by how: search count index, rare-word GIN look-up, GIN bitmap count. */
  searchCountStats: { index: number; rare: number; gin: number };
  /**
   * When this app last asked Temporal for each catalog's search count index build (ms since
   * epoch; src/services/catalog/search-index-requests.ts); pruned past 1,000 entries.
   */
  searchIndexRequests: Map<string, number>;
  /**
   * When this app last asked Temporal for each catalog's grid index workflow (ms since epoch;
   * src/services/catalog/grid-indexes.ts); pruned past 1,000 entries.
   */
  gridIndexRequests: Map<string, number>;
  /**
   * The item grid's taxonomy tree counts by catalog (src/services/catalog/item-grid.ts
   * treeCounts), valid while the catalog's `items_rev` is the one stored with them; oldest
   * evicted past 200.
   */
  gridTreeCounts: Map<string, { rev: string; own: Record<string, number>; unclassified: number | null; capped: boolean }>;
  /**
   * Completeness reports (src/services/catalog/completeness-report.ts) by catalog, valid while the
   * catalog's `items_rev`, schema version and readiness profiles are the ones stored with them;
   * oldest evicted past 50.
   */
  completenessReports: Map<string, { key: string; report: unknown }>;
}

/** Fresh, empty catalog caches. */
export function createCatalogCaches(): CatalogCaches {
  return {
    validators: new Map(),
    taxonomies: new Map(),
    searchTotals: new Map(),
    searchTotalStats: { hits: 0, misses: 0 },
    searchCountStats: { index: 0, rare: 0, gin: 0 },
    searchIndexRequests: new Map(),
    gridIndexRequests: new Map(),
    gridTreeCounts: new Map(),
    completenessReports: new Map(),
  };
}

/**
 * What the catalog use cases take from the app's (or worker's) dependency object: the database
 * and the caches (src/deps.ts AppDeps after createApp filled them in fits as it is).
 */
export interface CatalogDeps {
  knex: Knex;
  caches: { catalog: CatalogCaches };
}
