/**
 * The catalog domain's per-process caches (src/services/service-caches.ts), one instance per app or
 * worker, so two apps in one process (tests) never share them (docs/architecture.md "4. Process state lives in objects owned by deps"
 * in objects passed through deps"). Every entry is derived from rows that never change or is
 * checked against a change counter before use, so a fresh instance only costs recomputation.
 */
import type { Knex } from 'knex';
import { boundedCache, type BoundedCache } from '../../lib/bounded-cache';
import type { ValidationDetail } from '../../lib/errors';
import type { TaxonomyView } from './taxonomy';

/** A compiled item-data validator (src/services/catalog/schema/schema-validation.ts `itemValidator`). */
export type ItemValidator = (data: Record<string, unknown>) => ValidationDetail[];

/** One cached search total and the catalog's `items_rev` it was counted at. */
export interface SearchTotalEntry {
  rev: string;
  total: number;
}

/**
 * Least time between two requests from this app for one catalog's index workflow (search count
 * index build, grid indexes; ms): a burst of searches or pages of a stale catalog asks Temporal
 * once, not once per request. Rebuilds are spaced further by the workflows themselves.
 */
export const INDEX_REQUEST_INTERVAL_MS = 30_000;

/** Caches of the catalog services; one instance per app or worker (least recently used evicted). */
export interface CatalogCaches {
  /** Item validators by schema version id (version rows never change); 500 kept. */
  validators: BoundedCache<ItemValidator>;
  /** Enriched taxonomies and their ETags by schema version id (src/services/catalog/taxonomy.ts); 50 kept. */
  taxonomies: BoundedCache<TaxonomyView>;
  /**
   * Exact search totals by (catalog, grouped view, lower-cased term), valid while the catalog's
   * `items_rev` is the one stored with them (src/services/catalog/search/items-search-totals.ts);
   * 20,000 kept (an entry is ~200 bytes).
   */
  searchTotals: BoundedCache<SearchTotalEntry>;
  /** Hits and misses of {@link CatalogCaches.searchTotals} (benchmarks and tests read them). */
  searchTotalStats: { hits: number; misses: number };
  /** Search totals counted, by how: search count index, rare-word GIN look-up, GIN bitmap count. */
  searchCountStats: { index: number; rare: number; gin: number };
  /**
   * Catalogs whose search count index build this app asked Temporal for within the last
   * {@link INDEX_REQUEST_INTERVAL_MS} (src/services/catalog/search/search-index-requests.ts); 1,000 kept.
   */
  searchIndexRequests: BoundedCache<true>;
  /**
   * Catalogs whose grid index workflow this app asked Temporal for within the last
   * {@link INDEX_REQUEST_INTERVAL_MS} (src/services/catalog/grid/grid-indexes.ts); 1,000 kept.
   */
  gridIndexRequests: BoundedCache<true>;
  /**
   * The item grid's taxonomy tree counts by catalog (src/services/catalog/grid/item-grid.ts
   * treeCounts), valid while the catalog's `items_rev` is the one stored with them; 200 kept.
   */
  gridTreeCounts: BoundedCache<{ rev: string; own: Record<string, number>; unclassified: number | null; capped: boolean }>;
  /**
   * Completeness reports (src/services/catalog/grid/completeness-report.ts) by catalog, valid while the
   * catalog's `items_rev`, schema version and readiness profiles are the ones stored with them;
   * 50 kept.
   */
  completenessReports: BoundedCache<{ key: string; report: unknown }>;
}

/** Fresh, empty catalog caches. */
export function createCatalogCaches(): CatalogCaches {
  return {
    validators: boundedCache(500),
    taxonomies: boundedCache(50),
    searchTotals: boundedCache(20_000),
    searchTotalStats: { hits: 0, misses: 0 },
    searchCountStats: { index: 0, rare: 0, gin: 0 },
    searchIndexRequests: boundedCache(1000, { ttlMs: INDEX_REQUEST_INTERVAL_MS }),
    gridIndexRequests: boundedCache(1000, { ttlMs: INDEX_REQUEST_INTERVAL_MS }),
    gridTreeCounts: boundedCache(200),
    completenessReports: boundedCache(50),
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
