import type { ResolvedAppDeps } from '../deps';
import type { ReadinessProfile } from '../models/readiness-profile';
import { catalogParams } from '../schemas/items';
import {
  completenessResponse,
  createReadinessProfileBody,
  listReadinessProfilesResponse,
  readinessProfileParams,
  readinessProfileResponse,
} from '../schemas/readiness';
import { completenessReport } from '../services/catalog/grid/completeness-report';
import { createReadinessProfile, deleteReadinessProfile, listReadinessProfiles } from '../services/catalog/grid/readiness-profiles';
import { defineRoute, RouteDef } from './registry';

/** A profile as the API returns it (timestamps as ISO strings). */
function presentProfile(p: ReadinessProfile): Record<string, unknown> {
  return { ...p, created_at: new Date(p.created_at).toISOString(), updated_at: new Date(p.updated_at).toISOString() };
}

/**
 * Completeness and readiness: a catalog's readiness profiles (a named set of
 * required fields and rules, e.g. "Marketplace A") and its completeness report, the numbers the
 * console's completeness page shows.
 */
export function readinessRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['completeness'];
  const base = '/public/catalogs/:catalog_id/readiness-profiles';
  return [
    defineRoute({
      method: 'get',
      path: base,
      tags,
      summary: "The catalog's readiness profiles, by name",
      params: catalogParams,
      response: listReadinessProfilesResponse,
      handler: async ({ scope, params }) => ({ profiles: (await listReadinessProfiles(deps.knex, scope, params.catalog_id)).map(presentProfile) }),
    }),
    defineRoute({
      method: 'post',
      path: base,
      tags,
      summary: 'Create a readiness profile: required fields (schema fields) and rules (grid filters the item must pass)',
      params: catalogParams,
      body: createReadinessProfileBody,
      response: readinessProfileResponse,
      status: 201,
      atomic: true,
      handler: async ({ scope, params, body, db }) => presentProfile(await createReadinessProfile(db, scope, params.catalog_id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: `${base}/:profile_id`,
      tags,
      summary: 'Delete a readiness profile',
      params: readinessProfileParams,
      status: 204,
      handler: async ({ scope, params, ctx }) => {
        await deleteReadinessProfile(deps.knex, scope, params.catalog_id, params.profile_id);
        ctx.status = 204;
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/completeness',
      tags,
      summary: 'Completeness of the catalog by field and by taxonomy node, and readiness per profile (one scan of the items)',
      params: catalogParams,
      response: completenessResponse,
      handler: async ({ scope, params }) => {
        const r = await completenessReport(deps, scope, params.catalog_id);
        return {
          total: r.total,
          complete: r.complete,
          fields: r.fields.map((f) => ({
            field: f.field,
            schema_required: f.schemaRequired,
            required_by_nodes: f.requiredBy,
            filled: f.filled,
            empty: f.empty,
          })),
          nodes: r.nodes.map((n) => ({ id: n.id, path: n.path, items: n.items, complete: n.complete, missing: n.missing })),
          unclassified: r.unclassified,
          profiles: r.profiles.map(({ profile: p, counts: c }) => ({
            id: p.id,
            name: p.name,
            ready: c.ready,
            not_ready: r.total - c.ready,
            missing: p.required_fields.map((field) => ({ field, empty: c.missing[field] ?? 0 })),
            failing_rules: c.failing,
          })),
        };
      },
    }),
  ];
}
