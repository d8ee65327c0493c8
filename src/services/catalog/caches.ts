/**
 * The catalog domain's per-process caches (src/services/caches.ts). Filled in as the domain's
 * module-level caches move here.
 */

/** Caches of the catalog services; one instance per app or worker. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CatalogCaches {}

/** Fresh, empty catalog caches. */
export function createCatalogCaches(): CatalogCaches {
  return {};
}
