import type { DashboardRoute } from './route-table';
import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '../lib/errors';
import type { ActiveSession } from '../services/access/sessions';
import { loadGridCatalog } from '../services/catalog/grid/item-grid';
import { countSelected, selectionOf, selectionQueryString } from '../services/catalog/grid/grid-selection';
import { exportCatalog } from '../services/sheets/export';
import { createBulkAction, type BulkEditAction } from '../services/review/bulk-edit';
import { getEnrichmentJob } from '../services/enrichment/jobs/jobs';
import { planFillGaps, startFillGaps, startSelectionEnrichment } from '../services/enrichment/jobs/fill-gaps';
import { startChannelGaps } from '../services/channels/fill-gaps';
import { countStaged, loadReviewActivity } from '../services/review/staged-changes';
import { bulkPage, bulkPath, bulkStagingPage } from './bulk-views';
import { fillGapsPage, fillGapsPath, fillGapsProgressPage } from './fill-gaps-views';
import type { GridRouteHelpers } from './grid-routes';
import { DASHBOARD_BASE } from './views';

/**
 * The bulk actions of the catalog console, added to the dashboard router:
 * `GET /catalogs/{id}/items/bulk?<grid query>` (the page: the count and the form) and `POST
 * /catalogs/{id}/items/bulk` (creates the bulk action's review activity, starts its staging
 * workflow), `POST /catalogs/{id}/items/bulk/enrich` (enrich / classify: an enrichment job of
 * the items, followed like fill the gaps), `GET /catalogs/{id}/items/bulk/{activity_id}` (its staging progress while the
 * workflow stages, then its review page); fill the gaps: `GET
 * /catalogs/{id}/items/fill-gaps?<grid query>` (the missing fields, the count, the credits),
 * `POST /catalogs/{id}/items/fill-gaps` (starts the enrichment job) and `GET
 * /catalogs/{id}/items/fill-gaps/{job_id}` (its progress while it runs, then its review page);
 * fill the gaps for a channel: `POST /catalogs/{id}/channel-readiness/fill-gaps` (the channel
 * readiness panel's form; starts the job and follows it like fill the gaps).
 * Export: `GET /catalogs/{id}/items/export?format=csv|xlsx&cols=…&<grid query>`
 * streams the catalog export (src/services/sheets/export.ts) of the grid's items and columns.
 * The POSTs check the session's CSRF token; another
 * organization's catalog is a 403.
 */

/**
 * The bulk action routes of the dashboard, as a route table (./route-table.ts) for its router.
 * Long on purpose: a route table, one entry per route.
 */
export function bulkRoutes(deps: ResolvedAppDeps, h: GridRouteHelpers): DashboardRoute[] {
  const sessionOf = (ctx: Context) => ctx.state.dashboardSession as ActiveSession;
  return [
    {
      method: 'get',
      path: '/catalogs/:catalog_id/items/bulk',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const grid = await loadGridCatalog(deps, session.scope, ctx.params.catalog_id);
        const query = selectionQueryString(ctx.querystring);
        const matching = await countSelected(deps.knex, session.scope, grid, query);
        h.send(ctx, 200, bulkPage({ grid, query, matching }, h.pageSession(session)));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/items/bulk',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const form = await h.readCheckedForm(ctx);
        const start = deps.jobRunner.startBulkStage?.bind(deps.jobRunner);
        if (!start) throw new ServiceUnavailableError('Bulk actions need the job runner');
        const action = (form.get('action') ?? '') as BulkEditAction;
        const created = await createBulkAction(deps, session.scope, ctx.params.catalog_id, {
          action,
          query: selectionQueryString(form.get('query') ?? ''),
          field: form.get('field'),
          value: action === 'move' ? form.get('node') : form.get('value'),
        });
        await start({ activity_id: created.activity.id, organization_id: session.scope.organizationId, catalog_id: ctx.params.catalog_id });
        ctx.status = 303;
        ctx.redirect(`${bulkPath(ctx.params.catalog_id)}/${created.activity.id}`);
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/items/bulk/enrich',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const form = await h.readCheckedForm(ctx);
        const jobId = await startSelectionEnrichment(deps, session.scope, ctx.params.catalog_id, selectionQueryString(form.get('query') ?? ''), {
          fields: form.getAll('field'),
          classify: form.get('classify') === '1',
        });
        ctx.status = 303;
        ctx.redirect(`${fillGapsPath(ctx.params.catalog_id)}/${jobId}`);
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/items/bulk/:activity_id',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const grid = await loadGridCatalog(deps, session.scope, ctx.params.catalog_id);
        const activity = await loadReviewActivity(deps.knex, session.scope, ctx.params.activity_id);
        if (activity.catalog_id !== grid.catalog.id) throw new NotFoundError('No such bulk action in this catalog');
        if (activity.status === 'created') {
          h.send(ctx, 200, bulkStagingPage(grid, activity, await countStaged(deps.knex, activity.id, true), h.pageSession(session)));
          return;
        }
        ctx.status = 303;
        ctx.redirect(`${DASHBOARD_BASE}/catalogs/${grid.catalog.id}/activities/${activity.id}`);
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/items/export',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const grid = await loadGridCatalog(deps, session.scope, ctx.params.catalog_id);
        const params = new URLSearchParams(ctx.querystring);
        const format = params.get('format') ?? 'csv';
        if (format !== 'csv' && format !== 'xlsx') throw ValidationError.at(['query', 'format'], 'format must be csv or xlsx');
        const { where } = await selectionOf(deps.knex, session.scope, grid, selectionQueryString(ctx.querystring));
        const columns = params.get('cols')?.split(',').filter(Boolean) ?? Object.keys(grid.types);
        for (const c of columns) if (!Object.hasOwn(grid.types, c)) throw ValidationError.at(['query', 'cols'], `No field "${c}" in the catalog`);
        const e = await exportCatalog(deps.knex, session.scope, grid.catalog.id, format, { selection: { where, columns } });
        ctx.status = 200;
        ctx.type = e.contentType;
        ctx.set('Content-Disposition', `attachment; filename="${e.fileName}"`);
        ctx.body = e.body;
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/items/fill-gaps',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const query = selectionQueryString(ctx.querystring);
        const plan = await planFillGaps(deps, session.scope, ctx.params.catalog_id, query);
        h.send(ctx, 200, fillGapsPage(plan, query, h.pageSession(session)));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/items/fill-gaps',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const form = await h.readCheckedForm(ctx);
        const { jobId } = await startFillGaps(deps, session.scope, ctx.params.catalog_id, selectionQueryString(form.get('query') ?? ''), form.getAll('field'));
        ctx.status = 303;
        ctx.redirect(`${fillGapsPath(ctx.params.catalog_id)}/${jobId}`);
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/channel-readiness/fill-gaps',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const form = await h.readCheckedForm(ctx);
        const { job } = await startChannelGaps(deps, session.scope, ctx.params.catalog_id, form.get('channel') ?? '');
        ctx.status = 303;
        ctx.redirect(`${fillGapsPath(ctx.params.catalog_id)}/${job.id}`);
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/items/fill-gaps/:job_id',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const grid = await loadGridCatalog(deps, session.scope, ctx.params.catalog_id);
        const { job } = await getEnrichmentJob(deps, session.scope, ctx.params.job_id, 1, 1);
        if (job.catalog_id !== grid.catalog.id) throw new NotFoundError('No such fill-the-gaps job in this catalog');
        if (job.status === 'running') {
          h.send(ctx, 200, fillGapsProgressPage(job, grid.catalog.name, h.pageSession(session)));
          return;
        }
        ctx.status = 303;
        ctx.redirect(`${DASHBOARD_BASE}/catalogs/${grid.catalog.id}/activities/${job.id}`);
      },
    },
  ];
}

export { bulkPath };
