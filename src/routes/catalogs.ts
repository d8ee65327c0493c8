import type { ResolvedAppDeps } from '../deps';
import {
  presentCatalog,
  presentCatalogDeleted,
  presentCatalogEntry,
  presentCatalogMd,
  presentFieldAdded,
  presentFieldBatch,
  presentQualityPrompt,
  presentSchema,
} from '../presenters/catalogs';
import { addFieldBody, fieldBatchBody, fieldChangeResponse, schemaVersionQuery, taxonomyBody, taxonomyResponse } from '../schemas/catalog-schema';
import {
  catalogIdParams,
  catalogListResponse,
  catalogMdBody,
  catalogMdQuery,
  catalogMdResponse,
  catalogResponse,
  catalogSchemaResponse,
  createCatalogBody,
  duplicateCatalogBody,
  listCatalogsQuery,
  messageResponse,
  qualityPromptBody,
  qualityPromptResponse,
  updateCatalogBody,
} from '../schemas/catalogs';
import {
  addCatalogField,
  applyCatalogFieldBatch,
  deleteCatalogTaxonomy,
  getCatalogSchema,
  getCatalogTaxonomy,
  putCatalogTaxonomy,
} from '../services/catalog/schema/schema-use-cases';
import {
  CatalogWithSchema,
  createCatalog,
  deleteCatalog,
  duplicateCatalog,
  getCatalog,
  getCatalogMd,
  getQualityPrompt,
  listCatalogs,
  putCatalogMd,
  putQualityPrompt,
  updateCatalog,
} from '../services/catalog/catalogs';
import { etagMatches } from '../services/catalog/taxonomy';
import { defineRoute, RouteDef } from './registry';
import { requestGridIndexDrops } from '../services/catalog/grid/grid-indexes';

const present = ({ catalog, schema }: CatalogWithSchema) => presentCatalog(catalog, schema);

/**
 * Catalog, schema, taxonomy, catalog-md and quality-prompt routes (docs/api-reference.md "Catalogs",
 * "Schema versions", "Taxonomy", "Catalog context and quality prompt"; docs/api-reference.md "Errors"). Handlers are thin:
 * validated input → service → presenter. One function because it is the resource's route table
 * (one entry per endpoint, read top to bottom), not a procedure.
 * Long on purpose: a route table, one entry per route.
 */
export function catalogRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const { knex } = deps;
  const tags = ['catalogs'];
  const schemaTags = ['schema'];
  const taxonomyTags = ['taxonomy'];
  const deleteRoute = (path: string, summary: string) =>
    defineRoute({
      method: 'delete',
      path,
      tags,
      summary,
      params: catalogIdParams,
      response: messageResponse,
      handler: async ({ scope, params }) => {
        await deleteCatalog(knex, scope, params.catalog_id);
        await requestGridIndexDrops(deps, { id: params.catalog_id, organization_id: scope.organizationId });
        return presentCatalogDeleted(params.catalog_id);
      },
    });
  const routes: RouteDef[] = [
    defineRoute({
      method: 'post',
      path: '/public/catalogs',
      tags,
      summary: 'Create a catalog with schema version 1.0.0',
      body: createCatalogBody,
      response: catalogResponse,
      atomic: true,
      handler: async ({ scope, body, db }) => present(await createCatalog(db, scope, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs',
      tags,
      summary: 'List catalogs of the organization',
      query: listCatalogsQuery,
      response: catalogListResponse,
      handler: async ({ scope, query }) => {
        const { rows, ...page } = await listCatalogs(knex, scope, query);
        return { catalogs: rows.map(presentCatalogEntry), ...page };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id',
      tags,
      summary: 'Get a catalog with its current schema',
      params: catalogIdParams,
      response: catalogResponse,
      handler: async ({ scope, params }) => present(await getCatalog(knex, scope, params.catalog_id)),
    }),
    defineRoute({
      method: 'put',
      path: '/public/catalogs/:catalog_id',
      tags,
      summary: 'Update catalog settings (only the given fields change)',
      params: catalogIdParams,
      body: updateCatalogBody,
      response: catalogResponse,
      handler: async ({ scope, params, body }) => present(await updateCatalog(knex, scope, params.catalog_id, body)),
    }),
    deleteRoute('/public/catalogs/:catalog_id', 'Delete a catalog with its items, schema versions and snapshots'),
    deleteRoute('/catalogs/:catalog_id', 'Delete a catalog (path without /public, docs/api-reference.md "URLs")'),
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/duplicate',
      tags,
      summary: 'Duplicate a catalog (schema, taxonomy, context, quality prompt; items optional)',
      params: catalogIdParams,
      body: duplicateCatalogBody,
      response: catalogResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) => present(await duplicateCatalog(db, scope, params.catalog_id, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/schema',
      tags: schemaTags,
      summary: 'Get the current (or a given) schema version',
      params: catalogIdParams,
      query: schemaVersionQuery,
      response: catalogSchemaResponse,
      handler: async ({ scope, params, query }) => presentSchema(await getCatalogSchema(knex, scope, params.catalog_id, query.version)),
    }),
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/schema/fields',
      tags: schemaTags,
      summary: 'Add a field (new schema version)',
      params: catalogIdParams,
      body: addFieldBody,
      response: fieldChangeResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) => presentFieldAdded(await addCatalogField(db, scope, params.catalog_id, body)),
    }),
    defineRoute({
      method: 'put',
      path: '/public/catalogs/:catalog_id/schema/fields/batch',
      tags: schemaTags,
      summary: 'Add, update and remove fields atomically (one new schema version)',
      params: catalogIdParams,
      body: fieldBatchBody,
      response: fieldChangeResponse,
      handler: async ({ scope, params, body }) => {
        const result = await applyCatalogFieldBatch(knex, scope, params.catalog_id, body);
        await requestGridIndexDrops(deps, { id: params.catalog_id, organization_id: scope.organizationId });
        return presentFieldBatch(result);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/taxonomy',
      tags: taxonomyTags,
      summary: 'Get the enriched taxonomy (null when none); ETag / If-None-Match → 304',
      params: catalogIdParams,
      etagOf: 'the taxonomy',
      response: taxonomyResponse,
      handler: async ({ scope, params, ctx }) => {
        const { etag, taxonomy } = await getCatalogTaxonomy(deps, scope, params.catalog_id);
        ctx.set('ETag', etag);
        if (etagMatches(ctx.get('if-none-match'), etag)) {
          ctx.status = 304;
          return undefined;
        }
        ctx.status = 200;
        ctx.type = 'application/json';
        // Koa turns a null body into 204; the documented "no taxonomy" answer is the JSON literal null.
        ctx.body = taxonomy === null ? 'null' : taxonomy;
        return undefined;
      },
    }),
    defineRoute({
      method: 'put',
      path: '/public/catalogs/:catalog_id/taxonomy',
      tags: taxonomyTags,
      summary: 'Set or replace the taxonomy (new minor schema version)',
      params: catalogIdParams,
      body: taxonomyBody,
      response: taxonomyResponse,
      handler: async ({ scope, params, body, ctx }) => {
        const { etag, taxonomy } = await putCatalogTaxonomy(deps, scope, params.catalog_id, body);
        await requestGridIndexDrops(deps, { id: params.catalog_id, organization_id: scope.organizationId });
        ctx.set('ETag', etag);
        return taxonomy;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/public/catalogs/:catalog_id/taxonomy',
      tags: taxonomyTags,
      summary: 'Remove the taxonomy (new major schema version)',
      params: catalogIdParams,
      status: 204,
      handler: async ({ scope, params, ctx }) => {
        await deleteCatalogTaxonomy(knex, scope, params.catalog_id);
        ctx.status = 204;
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/catalog-md',
      tags,
      summary: 'Get the markdown context (current or ?version=N)',
      params: catalogIdParams,
      query: catalogMdQuery,
      response: catalogMdResponse,
      handler: async ({ scope, params, query }) => presentCatalogMd(await getCatalogMd(knex, scope, params.catalog_id, query.version)),
    }),
    defineRoute({
      method: 'put',
      path: '/public/catalogs/:catalog_id/catalog-md',
      tags,
      summary: 'Set the markdown context (new version)',
      params: catalogIdParams,
      body: catalogMdBody,
      response: catalogMdResponse,
      handler: async ({ scope, params, body }) => presentCatalogMd(await putCatalogMd(knex, scope, params.catalog_id, body.catalog_md)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/quality-prompt',
      tags,
      summary: 'Get the quality prompt (null when unset)',
      params: catalogIdParams,
      response: qualityPromptResponse,
      handler: async ({ scope, params }) => presentQualityPrompt(await getQualityPrompt(knex, scope, params.catalog_id)),
    }),
    defineRoute({
      method: 'put',
      path: '/public/catalogs/:catalog_id/quality-prompt',
      tags,
      summary: 'Set the quality prompt used by the judge and readiness checks',
      params: catalogIdParams,
      body: qualityPromptBody,
      response: qualityPromptResponse,
      handler: async ({ scope, params, body }) => presentQualityPrompt(await putQualityPrompt(knex, scope, params.catalog_id, body.prompt)),
    }),
  ];
  return routes;
}
