/**
 * The services' per-process caches, owned by the app's or the worker's dependency object
 * (src/deps.ts, activities/enrichment.ts) instead of module-level variables, so two apps in one
 * process (tests) never see each other's state (docs/architecture.md "4. Process state lives in objects owned by deps"). Each domain owns its part.
 */
import { CatalogCaches, createCatalogCaches } from './catalog/catalog-caches';
import { createEnrichmentCaches, EnrichmentCaches } from './enrichment/enrichment-caches';

/** Every domain's caches. */
export interface ServiceCaches {
  catalog: CatalogCaches;
  enrichment: EnrichmentCaches;
}

/** Fresh, empty caches for one app or worker. */
export function createServiceCaches(): ServiceCaches {
  return { catalog: createCatalogCaches(), enrichment: createEnrichmentCaches() };
}
