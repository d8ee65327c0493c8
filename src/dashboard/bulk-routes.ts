import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { ServiceUnavailableError } from '../lib/errors';
import { checkCsrf, CSRF_FIELD } from '../middleware/session';
import type { ActiveSession } from '../services/access/sessions';
import { loadGridCatalog } from '../services/catalog/item-grid';
import { countMatching, createBulkAction, type BulkEditAction } from '../services/review/bulk-edit';
import { bulkPage, bulkPath } from './bulk-views';
import type { GridRouteHelpers } from './grid-routes';
import { DASHBOARD_BASE } from './views';

/**
 * The bulk actions of the catalog console (issue 28 §5), added to the dashboard router:
 * `GET /catalogs/{id}/items/bulk?<grid query>` (the page: the count and the form) and `POST
 * /catalogs/{id}/items/bulk` (creates the bulk action's review activity, starts its staging
 * workflow and goes to its review page). The POST checks the session's CSRF token; another
 * organization's catalog is a 403.
 */

/** The grid query string of a request, without paging, columns and view. */
function gridQueryString(querystring: string): string {
  const p = new URLSearchParams(querystring);
  for (const k of ['cursor', 'view', 'cols']) p.delete(k);
  return p.toString();
}

/** Adds the bulk action routes to the dashboard router. */
export function addBulkRoutes(router: Router, deps: ResolvedAppDeps, h: GridRouteHelpers): void {
  const sessionOf = (ctx: Context) => ctx.state.dashboardSession as ActiveSession;

  router.get('/catalogs/:catalog_id/items/bulk', h.signedIn, async (ctx) => {
    const session = sessionOf(ctx);
    const grid = await loadGridCatalog(deps, session.scope, ctx.params.catalog_id);
    const query = gridQueryString(ctx.querystring);
    const matching = await countMatching(deps.knex, session.scope, grid, query);
    h.send(ctx, 200, bulkPage({ grid, query, matching }, h.pageSession(session)));
  });

  router.post('/catalogs/:catalog_id/items/bulk', h.signedIn, async (ctx) => {
    const session = sessionOf(ctx);
    const form = await h.readForm(ctx);
    checkCsrf(ctx, session, form.get(CSRF_FIELD) ?? undefined);
    const start = deps.jobRunner.startBulkStage?.bind(deps.jobRunner);
    if (!start) throw new ServiceUnavailableError('Bulk actions need the job runner');
    const action = (form.get('action') ?? '') as BulkEditAction;
    const created = await createBulkAction(deps, session.scope, ctx.params.catalog_id, {
      action,
      query: gridQueryString(form.get('query') ?? ''),
      field: form.get('field'),
      value: action === 'move' ? form.get('node') : form.get('value'),
    });
    await start({ activity_id: created.activity.id, organization_id: session.scope.organizationId, catalog_id: ctx.params.catalog_id });
    ctx.status = 303;
    ctx.redirect(`${DASHBOARD_BASE}/catalogs/${ctx.params.catalog_id}/activities/${created.activity.id}`);
  });
}

export { bulkPath };
