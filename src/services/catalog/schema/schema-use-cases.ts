/**
 * The schema and taxonomy use cases of the catalog routes (docs/api-reference.md "Schema versions" and
 * Taxonomy; docs/api-reference.md "Batch field changes"): each checks ownership (unknown catalog → 404, another
 * organization's → 403, docs/api-reference.md "Authentication") and owns its transaction (docs/architecture.md: a
 * transaction starts in the service function that owns the use case). The rules themselves
 * live in schema.ts, schema-fields.ts and taxonomy.ts.
 */
import type { Knex } from 'knex';
import type { CatalogSchema } from '../../../models/catalog-schema';
import type { Scope } from '../../access/scope';
import type { CatalogDeps } from '../catalog-caches';
import { loadCatalogOwned } from '../catalogs';
import { getCurrentSchema, getSchemaVersion } from './schema';
import { addField, applyFieldBatch } from './schema-field-batch';
import type { AddField, FieldBatch, FieldChangeResult } from './schema-fields';
import { EnrichedTaxonomy, removeTaxonomy, setTaxonomy, TaxonomyInput, taxonomyOf, TaxonomyView } from '../taxonomy';

/**
 * `GET …/schema`: the current schema version, or version `version` when given.
 * @throws NotFoundError (404) unknown catalog or version; ForbiddenError (403)
 */
export async function getCatalogSchema(knex: Knex, scope: Scope, catalogId: string, version?: string): Promise<CatalogSchema> {
  await loadCatalogOwned(knex, scope, catalogId);
  return version ? getSchemaVersion(knex, catalogId, version) : getCurrentSchema(knex, catalogId);
}

/**
 * `POST …/schema/fields`: adds one field (a new schema version), see {@link addField}.
 * @throws ValidationError (422), NotFoundError (404), ForbiddenError (403)
 */
export function addCatalogField(knex: Knex, scope: Scope, catalogId: string, field: AddField): Promise<FieldChangeResult> {
  return knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    return addField(trx, scope, catalogId, field);
  });
}

/**
 * `PUT …/schema/fields/batch` (docs/api-reference.md "Batch field changes"): adds, updates and removes fields as one new schema version,
 * see {@link applyFieldBatch}; error paths under `body`.
 * @throws ValidationError (422), NotFoundError (404), ForbiddenError (403)
 */
export function applyCatalogFieldBatch(knex: Knex, scope: Scope, catalogId: string, batch: FieldBatch): Promise<FieldChangeResult> {
  return knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    return applyFieldBatch(trx, scope, catalogId, batch, ['body']);
  });
}

/**
 * `GET …/taxonomy` (docs/api-reference.md "Taxonomy"): the current schema version's enriched taxonomy (null when none) and
 * its ETag, from the app's cache.
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function getCatalogTaxonomy(deps: CatalogDeps, scope: Scope, catalogId: string): Promise<TaxonomyView> {
  await loadCatalogOwned(deps.knex, scope, catalogId);
  return taxonomyOf(deps.caches.catalog.taxonomies, await getCurrentSchema(deps.knex, catalogId));
}

/**
 * `PUT …/taxonomy` (docs/api-reference.md "Taxonomy"): sets or replaces the taxonomy (a new minor schema version), see
 * {@link setTaxonomy}.
 * @returns the enriched taxonomy, its ETag and the new version
 * @throws ValidationError (422), NotFoundError (404), ForbiddenError (403)
 */
export function putCatalogTaxonomy(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  input: TaxonomyInput,
): Promise<{ etag: string; taxonomy: EnrichedTaxonomy; version: string }> {
  return deps.knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    return setTaxonomy(trx, deps.caches.catalog.taxonomies, scope, catalogId, input);
  });
}

/**
 * `DELETE …/taxonomy` (docs/api-reference.md "Taxonomy"): removes the taxonomy (a new major schema version), see
 * {@link removeTaxonomy}.
 * @returns the new schema version
 * @throws NotFoundError (404) unknown catalog or no taxonomy; ForbiddenError (403)
 */
export function deleteCatalogTaxonomy(knex: Knex, scope: Scope, catalogId: string): Promise<string> {
  return knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    return removeTaxonomy(trx, scope, catalogId);
  });
}
