import type { DashboardRoute } from './route-table';
import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { NotFoundError, ValidationError } from '../lib/errors';
import type { ActiveSession } from '../services/access/sessions';
import { deleteGridView, saveGridView } from '../services/catalog/grid/grid-views';
import { loadGridCatalog } from '../services/catalog/grid/item-grid';
import { parseFilter, parseGridQuery } from '../services/catalog/grid/item-grid-query';
import { createReadinessProfile, deleteReadinessProfile, parseRuleLines } from '../services/catalog/grid/readiness-profiles';
import type { CliLoginHelpers } from './cli-login';
import { completenessReport } from '../services/catalog/grid/completeness-report';
import { createBlobStore } from '../lib/blob-stores';
import { loadFeed } from '../services/feeds/feeds';
import { openFeedRunFile } from '../services/feeds/runs';
import { loadChannelPanel } from './channel-readiness-data';
import { channelReadinessSection } from './channel-readiness-views';
import { completenessPage } from './completeness-views';
import { html } from './html';
import { fillGapsOutcomes } from '../services/enrichment/jobs/fill-gaps';
import { fillGapsOutcomesSection } from './fill-gaps-views';
import { loadGridPage, viewQuery } from './item-grid-data';
import { itemGridPage, itemsPath } from './item-grid-views';
import { DASHBOARD_BASE } from './views';

/**
 * The item grid and completeness pages of the catalog console (docs/console.md "Item grid", "Completeness and readiness"), added to the
 * dashboard router: `GET /catalogs/{id}/items` (the grid; its filter and column forms are GETs
 * the route turns into the canonical grid URL), saved views (`POST …/items/views`, `POST
 * …/items/views/{view_id}/delete`), `GET /catalogs/{id}/completeness` and readiness profiles
 * (`POST …/completeness/profiles`, `POST …/completeness/profiles/{profile_id}/delete`) with its
 * channel readiness panel (`?channel=`), and a feed run's file (`GET …/feeds/{feed_id}/runs/{run_id}/file`). Every
 * POST checks the session's CSRF token; another organization's catalog is a 403.
 */

/** What the routes need from the dashboard router (the same helpers as the CLI login routes). */
export type GridRouteHelpers = CliLoginHelpers;

/**
 * The canonical grid URL of a query whose filter form (`ff`, `fo`, `fv`) or column chooser
 * (`col`) was submitted, or null when neither was.
 * @throws ValidationError (422) for a filter operator the grid does not know
 */
export function formRedirect(path: string, querystring: string): string | null {
  const params = new URLSearchParams(querystring);
  if (!params.has('ff') && !params.has('col')) return null;
  const out = new URLSearchParams();
  for (const [k, v] of params) if (!['ff', 'fo', 'fv', 'col', 'cols', 'cursor'].includes(k)) out.append(k, v);
  const field = params.get('ff');
  if (field) {
    const f = parseFilter(field, `${params.get('fo') ?? ''}:${params.get('fv') ?? ''}`);
    out.append(`f.${field}`, f.op === 'empty' || f.op === 'notempty' ? f.op : `${f.op}:${f.value}`);
  }
  const cols = params.has('col') ? params.getAll('col') : params.get('cols')?.split(',');
  if (cols?.length) out.set('cols', cols.join(','));
  const s = out.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * The grid and completeness routes of the dashboard, as a route table (./route-table.ts) for its router.
 * Long on purpose: a route table, one entry per route.
 */
export function gridRoutes(deps: ResolvedAppDeps, h: GridRouteHelpers): DashboardRoute[] {
  const sessionOf = (ctx: Context) => ctx.state.dashboardSession as ActiveSession;

  const blobs = createBlobStore(deps.config.blobStore);
  const completenessPath = (catalogId: string) => `${DASHBOARD_BASE}/catalogs/${catalogId}/completeness`;
  return [
    {
      method: 'get',
      path: '/catalogs/:catalog_id/items',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const path = itemsPath(ctx.params.catalog_id);
        const redirect = formRedirect(path, ctx.querystring);
        if (redirect) {
          await loadGridCatalog(deps, session.scope, ctx.params.catalog_id); // 403/404 before anything else
          ctx.status = 303;
          ctx.redirect(redirect);
          return;
        }
        const indexing = { settings: deps.config.gridIndexes, jobRunner: deps.jobRunner };
        const data = await loadGridPage(deps, session.scope, ctx.params.catalog_id, ctx.query, indexing, {
          estimateAbove: deps.config.gridCountEstimateAbove ?? undefined,
          searchTotals: { caches: deps.caches.catalog, jobRunner: deps.jobRunner },
        });
        h.send(ctx, 200, itemGridPage(data, h.pageSession(session)));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/items/views',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const form = await h.readCheckedForm(ctx);
        const grid = await loadGridCatalog(deps, session.scope, ctx.params.catalog_id);
        const raw = Object.fromEntries(new URLSearchParams(form.get('query') ?? '').entries());
        delete raw.cursor;
        delete raw.view;
        const query = parseGridQuery(raw, grid.types);
        const columns = (form.get('columns') ?? '').split(',').filter(Boolean);
        for (const c of columns) if (!Object.hasOwn(grid.types, c)) throw ValidationError.at(['body', 'columns'], `No field "${c}" in the catalog`);
        const view = await saveGridView(deps.knex, session.scope, ctx.params.catalog_id, {
          name: form.get('name') ?? '',
          shared: form.get('shared') === '1',
          columns,
          query: viewQuery(query),
        });
        ctx.status = 303;
        ctx.redirect(`${itemsPath(ctx.params.catalog_id)}?view=${view.id}`);
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/items/views/:view_id/delete',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        await h.readCheckedForm(ctx);
        await deleteGridView(deps.knex, session.scope, ctx.params.catalog_id, ctx.params.view_id);
        ctx.status = 303;
        ctx.redirect(itemsPath(ctx.params.catalog_id));
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/completeness',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const report = await completenessReport(deps, session.scope, ctx.params.catalog_id);
        // Fill the gaps (docs/console.md "Fill the gaps"): applied jobs' completeness before and now (fill-gaps-views.ts).
        const filled = fillGapsOutcomesSection(await fillGapsOutcomes(deps.knex, report.grid), ctx.params.catalog_id);
        // Channel readiness (docs/console.md "Channel readiness"): `?channel=` chooses the channel.
        const page = h.pageSession(session);
        const channels = channelReadinessSection(await loadChannelPanel(deps, session.scope, ctx.params.catalog_id, ctx.query.channel), page);
        h.send(ctx, 200, completenessPage(report, page, html`${filled} ${channels}`));
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/feeds/:feed_id/runs/:run_id/file',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const feed = await loadFeed(deps.knex, session.scope, ctx.params.feed_id);
        if (feed.catalog_id !== ctx.params.catalog_id) throw new NotFoundError('No such feed in this catalog');
        const file = await openFeedRunFile(deps.knex, blobs, session.scope, feed.id, ctx.params.run_id);
        ctx.status = 200;
        ctx.type = file.content_type;
        ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.body = file.body;
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/completeness/profiles',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        const form = await h.readCheckedForm(ctx);
        await createReadinessProfile(deps.knex, session.scope, ctx.params.catalog_id, {
          name: form.get('name') ?? '',
          description: form.get('description'),
          required_fields: form.getAll('required_fields'),
          rules: parseRuleLines(form.get('rules') ?? ''),
        });
        ctx.status = 303;
        ctx.redirect(completenessPath(ctx.params.catalog_id));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/completeness/profiles/:profile_id/delete',
      handler: async (ctx) => {
        const session = sessionOf(ctx);
        await h.readCheckedForm(ctx);
        await deleteReadinessProfile(deps.knex, session.scope, ctx.params.catalog_id, ctx.params.profile_id);
        ctx.status = 303;
        ctx.redirect(completenessPath(ctx.params.catalog_id));
      },
    },
  ];
}
