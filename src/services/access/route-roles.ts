import type { Role } from '../../models/person';

/** The route that starts an import: its role is also what the import's batches need as they run (src/services/sheets/import.ts). */
export const IMPORT_ROUTE = 'POST /public/catalogs/:catalog_id/items/import';

/**
 * The minimum role of every state-changing route ("every route and page checks
 * them"), in one place. Keys are `METHOD path` exactly as the route is declared (API paths relative
 * to `/api`, dashboard paths relative to `/dashboard`). Reading (GET, HEAD) needs `viewer`. A
 * state-changing route missing here is a programming error: the API registry and the dashboard
 * router refuse to start (src/routes/registry.ts, src/dashboard/routes.ts), and
 * test/api/route-roles.test.ts walks the table.
 *
 * The rule (docs/console.md, "People"):
 * - `editor` stages changes: enrichment jobs, activities and their staged changes, flows, inference,
 *   judging, image runs, web archives uploads, dashboard item edits and bulk actions (which stage);
 * - `reviewer` decides and writes the catalog: approve/reject, apply, snapshots and restores, and
 *   every direct catalog write (items, imports, catalog settings, schema, taxonomy, context, quality
 *   prompt, readiness profiles, a catalog made from a job) and feeds (which publish it), since a reviewer may apply any change anyway;
 * - `admin` manages the organization: API keys, people, settings, and deleting a whole catalog.
 *
 * API keys and user tokens carry no role and act as admin (src/services/access/roles.ts), so
 * programs keep working; a person's session or tool-server token acts with the person's role.
 */
export const API_ROUTE_ROLES: Readonly<Record<string, Role>> = {
  // Catalogs, schema, taxonomy: direct writes.
  'POST /public/catalogs': 'reviewer',
  // Feeds publish the catalog to channels (docs/feeds.md): a reviewer's decision, like a write.
  'POST /public/catalogs/:catalog_id/feeds': 'reviewer',
  'PATCH /public/feeds/:feed_id': 'reviewer',
  'DELETE /public/feeds/:feed_id': 'reviewer',
  'POST /public/feeds/:feed_id/rotate-token': 'reviewer',
  'POST /public/feeds/:feed_id/runs': 'reviewer',
  'POST /public/feeds/:feed_id/runs/:run_id/cancel': 'reviewer',
  'PUT /public/catalogs/:catalog_id': 'reviewer',
  'DELETE /public/catalogs/:catalog_id': 'admin',
  'DELETE /catalogs/:catalog_id': 'admin',
  'POST /public/catalogs/:catalog_id/duplicate': 'reviewer',
  'POST /public/catalogs/:catalog_id/schema/fields': 'reviewer',
  'PUT /public/catalogs/:catalog_id/schema/fields/batch': 'reviewer',
  'PUT /public/catalogs/:catalog_id/taxonomy': 'reviewer',
  'DELETE /public/catalogs/:catalog_id/taxonomy': 'reviewer',
  'PUT /public/catalogs/:catalog_id/catalog-md': 'reviewer',
  'PUT /public/catalogs/:catalog_id/quality-prompt': 'reviewer',
  'POST /public/catalogs/:catalog_id/readiness-profiles': 'reviewer',
  'DELETE /public/catalogs/:catalog_id/readiness-profiles/:profile_id': 'reviewer',
  // Items: direct writes (imports write too; a dry run is refused alike, for one simple rule).
  [IMPORT_ROUTE]: 'reviewer',
  // Who may start an import may cancel it (the route arrives with main's import cancel, e8a7a76).
  'POST /public/catalogs/:catalog_id/items/import/:import_id/cancel': 'reviewer',
  'POST /public/catalogs/:catalog_id/items/bulk': 'reviewer',
  'POST /public/catalogs/:catalog_id/items': 'reviewer',
  'PUT /public/catalogs/:catalog_id/items/:item_id': 'reviewer',
  'DELETE /public/catalogs/:catalog_id/items/:item_id': 'reviewer',
  'POST /public/catalogs/:catalog_id/products/:product_id/items/bulk': 'reviewer',
  'POST /public/catalogs/:catalog_id/products/:product_id/items': 'reviewer',
  'PUT /public/catalogs/:catalog_id/products/:product_id': 'reviewer',
  // Snapshots.
  'POST /public/catalogs/:catalog_id/snapshots': 'reviewer',
  'POST /public/catalogs/:catalog_id/snapshots/:snapshot_id/restore': 'reviewer',
  // Enrichment: jobs stage their results; a catalog made from a job writes one.
  'POST /public/enrich': 'editor',
  // Fill the gaps for a channel: an enrichment job that stages (docs/channels.md).
  'POST /public/catalogs/:catalog_id/channel-readiness/fill-gaps': 'editor',
  'POST /public/enrich/:job_id/cancel': 'editor',
  'POST /public/enrich/:job_id/to-catalog': 'reviewer',
  'POST /public/enrichment-templates': 'editor',
  'POST /public/infer-schema': 'editor',
  'POST /public/infer-enrichment': 'editor',
  'POST /public/judge': 'editor',
  'POST /public/image-runs': 'editor',
  'POST /public/research-archives': 'editor',
  'DELETE /public/research-archives/:archive_id': 'reviewer',
  // Activities: staging is an editor's; deciding and applying a reviewer's.
  'POST /public/catalogs/:catalog_id/activities': 'editor',
  'POST /public/catalogs/:catalog_id/activities/custom-transform': 'editor',
  'POST /public/activities/:activity_id/staged-changes/append': 'editor',
  'POST /activities/:activity_id/staged-changes/append': 'editor',
  'POST /public/activities/:activity_id/pending-review': 'editor',
  'POST /activities/:activity_id/pending-review': 'editor',
  'POST /public/activities/:activity_id/submit': 'editor',
  'POST /activities/:activity_id/submit': 'editor',
  'POST /public/activities/:activity_id/cancel': 'editor',
  'POST /activities/:activity_id/cancel': 'editor',
  'POST /public/activities/:activity_id/staged-changes/bulk-review': 'reviewer',
  'POST /activities/:activity_id/staged-changes/bulk-review': 'reviewer',
  'POST /public/activities/:activity_id/apply': 'reviewer',
  'POST /activities/:activity_id/apply': 'reviewer',
  // Flows stage their results.
  'POST /public/catalogs/:catalog_id/activities/:activity_id/save-workflow': 'editor',
  'POST /public/workflows/:workflow_id/execute': 'editor',
  // The organization.
  'POST /public/organization/webhook-secret/rotate': 'admin',
  'PUT /public/organization/default-master-catalog': 'admin',
  'POST /public/api-keys': 'admin',
  'DELETE /public/api-keys/:key_id': 'admin',
};

/**
 * The minimum role of every state-changing dashboard form (paths relative to `/dashboard`);
 * `public` marks the sign-in forms, which run before anyone is signed in.
 */
export const DASHBOARD_ROUTE_ROLES: Readonly<Record<string, Role | 'public'>> = {
  'POST /login': 'public',
  'POST /login/password': 'public',
  'POST /logout': 'public',
  // Anyone signed in may hand the tool server a token of their own: it acts with their role.
  'POST /cli-login': 'viewer',
  // Anyone signed in revokes their own keys (the service checks they are theirs).
  'POST /tool-server-keys/:key_id/revoke': 'viewer',
  // Staging: item edits and restores of old values, bulk actions, enrichment on a selection.
  'POST /catalogs/:catalog_id/items/:item_id/edits': 'editor',
  'POST /catalogs/:catalog_id/items/:item_id/restores': 'editor',
  'POST /catalogs/:catalog_id/items/bulk': 'editor',
  'POST /catalogs/:catalog_id/items/bulk/enrich': 'editor',
  'POST /catalogs/:catalog_id/items/fill-gaps': 'editor',
  'POST /catalogs/:catalog_id/channel-readiness/fill-gaps': 'editor',
  // Saved grid views are the saver's own.
  'POST /catalogs/:catalog_id/items/views': 'editor',
  'POST /catalogs/:catalog_id/items/views/:view_id/delete': 'editor',
  // Direct catalog writes.
  'POST /catalogs/:catalog_id/completeness/profiles': 'reviewer',
  'POST /catalogs/:catalog_id/completeness/profiles/:profile_id/delete': 'reviewer',
  'POST /catalogs/:catalog_id/snapshots': 'reviewer',
  'POST /catalogs/:catalog_id/snapshots/:snapshot_id/restore': 'reviewer',
  'POST /catalogs/:catalog_id/schema/fields': 'reviewer',
  'POST /catalogs/:catalog_id/schema/taxonomy': 'reviewer',
  // Feeds publish the catalog (docs/console.md "Feeds"): a reviewer's, as the API's feed routes.
  'POST /catalogs/:catalog_id/feeds': 'reviewer',
  'POST /catalogs/:catalog_id/feeds/:feed_id': 'reviewer',
  'POST /catalogs/:catalog_id/feeds/:feed_id/delete': 'reviewer',
  'POST /catalogs/:catalog_id/feeds/:feed_id/rotate-token': 'reviewer',
  'POST /catalogs/:catalog_id/feeds/:feed_id/runs': 'reviewer',
  'POST /catalogs/:catalog_id/feeds/:feed_id/runs/:run_id/cancel': 'reviewer',
  // People.
  'POST /organization/people': 'admin',
  'POST /organization/people/:person_id': 'admin',
};

/** Whether an HTTP method only reads (GET, HEAD, OPTIONS), and so needs no more than `viewer`. */
export function isReadMethod(method: string): boolean {
  return ['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

/**
 * The minimum role of API route `method path` (method in any case, path as declared under `/api`):
 * `viewer` for reading methods, else the {@link API_ROUTE_ROLES} entry.
 * @throws Error when a state-changing route has no entry (a route added without a declared role)
 */
export function apiRouteRole(method: string, path: string): Role {
  if (isReadMethod(method)) return 'viewer';
  const role = API_ROUTE_ROLES[`${method.toUpperCase()} ${path}`];
  if (!role) throw new Error(`Route ${method.toUpperCase()} ${path} changes state but declares no role in src/services/access/route-roles.ts`);
  return role;
}

/**
 * The minimum role of dashboard route `method path` (path relative to `/dashboard`), like
 * {@link apiRouteRole} over {@link DASHBOARD_ROUTE_ROLES}.
 * @throws Error when a state-changing dashboard route has no entry
 */
export function dashboardRouteRole(method: string, path: string): Role | 'public' {
  if (isReadMethod(method)) return 'viewer';
  const role = DASHBOARD_ROUTE_ROLES[`${method.toUpperCase()} ${path}`];
  if (!role) throw new Error(`Dashboard route ${method.toUpperCase()} ${path} changes state but declares no role in src/services/access/route-roles.ts`);
  return role;
}
