/**
 * The enrichment domain's per-process caches (src/services/caches.ts). Filled in as the domain's
 * module-level caches move here.
 */

/** Caches of the enrichment services; one instance per app or worker. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface EnrichmentCaches {}

/** Fresh, empty enrichment caches. */
export function createEnrichmentCaches(): EnrichmentCaches {
  return {};
}
