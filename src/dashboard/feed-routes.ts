import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { ValidationError } from '../lib/errors';
import { Validator } from '../lib/validation';
import { createFeedBody, issuesQuery, updateFeedBody } from '../schemas/feeds';
import type { ActiveSession } from '../services/access/sessions';
import { getCatalog } from '../services/catalog/catalogs';
import { createFeed, deleteFeed, rotateFeedToken, updateFeed } from '../services/feeds/feeds';
import { cancelFeedRun, startFeedRun } from '../services/feeds/runs';
import { syncFeedSchedule } from '../services/feeds/schedules';
import { createBodyOf, emptyFormValues, formValuesFrom, formValuesOf, patchOf, type FeedFormValues } from './feed-form';
import { feedPage, runPage, type FeedPageNotice } from './feed-run-views';
import { feedFormPage, feedListPage, feedPath, feedRunPath, feedsPath } from './feed-views';
import { channelChoices, ISSUES_PAGE_SIZE, loadCatalogFeed, loadFeedList, loadFeedPage, loadRunPage } from './feeds-data';
import type { DashboardRouteHelpers } from './route-helpers';
import type { DashboardRoute } from './route-table';

/**
 * The console's feed pages (docs/console.md "Feeds") on the dashboard router: the feeds list,
 * the new-feed and edit-feed forms, a feed with its runs, a run with its issues, and the forms
 * that create, change, delete a feed, rotate its public URL, start a run (full or delta) and
 * cancel one. Every write goes through the feed services exactly as the API's feed routes call
 * them (src/routes/feeds.ts), bodies checked by the API's own schemas first; a refused form comes
 * back with status 422, the problems and the user's input. The POSTs check the session's CSRF
 * token and the role table (src/services/access/route-roles.ts: a reviewer's, as the API's).
 */

/** The validated `GET …/runs/{id}` issue query of the run page's URL (the API's `issuesQuery`). @throws ValidationError (422) */
function issueQueryOf(validator: Validator, ctx: Context) {
  const raw: Record<string, string> = { page_size: String(ISSUES_PAGE_SIZE) };
  for (const k of ['page', 'code', 'attribute', 'severity']) {
    const v = ctx.query[k];
    const text = Array.isArray(v) ? v[0] : v;
    if (text) raw[k] = text;
  }
  return validator.validate(issuesQuery, raw, 'query');
}

/**
 * The feed routes of the dashboard, as a route table (./route-table.ts) for its router.
 * Long on purpose: a route table, one entry per route.
 */
export function feedPageRoutes(deps: ResolvedAppDeps, h: DashboardRouteHelpers): DashboardRoute[] {
  const validator = new Validator();
  const runDeps = { knex: deps.knex, jobRunner: deps.jobRunner };
  const publicBase = deps.config.publicUrl;
  const sessionOf = (ctx: Context) => ctx.state.dashboardSession as ActiveSession;

  /** The new-feed form again, with the user's values and the problems (422). */
  const refusedNew = async (ctx: Context, values: FeedFormValues, err: ValidationError) => {
    const s = sessionOf(ctx);
    const { catalog } = await getCatalog(deps.knex, s.scope, ctx.params.catalog_id);
    h.send(ctx, 422, feedFormPage({ catalog, channels: channelChoices(), values, errors: err.details }, h.pageSession(s)));
  };
  /** The edit form of the feed with `values` and `errors` (`status` 200, or 422 for a refused form). */
  const showEdit = async (ctx: Context, status: number, values: FeedFormValues | null, errors: ValidationError['details']) => {
    const s = sessionOf(ctx);
    const cf = await loadCatalogFeed(deps.knex, s.scope, ctx.params.catalog_id, ctx.params.feed_id);
    const page = { ...cf, channels: channelChoices(), values: values ?? formValuesOf(cf.feed, cf.attributeOrder), errors };
    h.send(ctx, status, feedFormPage(page, h.pageSession(s)));
  };
  /** The feed page, after a change whose schedule notices must be shown; else a redirect to it. */
  const afterSave = async (ctx: Context, feedId: string, notice: FeedPageNotice) => {
    if (!notice.notices?.length) {
      ctx.status = 303;
      ctx.redirect(`${feedPath(ctx.params.catalog_id, feedId)}?saved=1`);
      return;
    }
    const s = sessionOf(ctx);
    h.send(ctx, 200, feedPage(await loadFeedPage(deps.knex, s.scope, ctx.params.catalog_id, feedId), publicBase, notice, h.pageSession(s)));
  };
  /** The feed of the URL's catalog (404 for a feed of another catalog) before a change. */
  const ownFeed = async (ctx: Context) => (await loadCatalogFeed(deps.knex, sessionOf(ctx).scope, ctx.params.catalog_id, ctx.params.feed_id)).feed;

  return [
    {
      method: 'get',
      path: '/catalogs/:catalog_id/feeds',
      handler: async (ctx) => {
        const s = sessionOf(ctx);
        h.send(ctx, 200, feedListPage(await loadFeedList(deps.knex, s.scope, ctx.params.catalog_id), publicBase, h.pageSession(s)));
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/feeds/new',
      handler: async (ctx) => {
        const s = sessionOf(ctx);
        const { catalog } = await getCatalog(deps.knex, s.scope, ctx.params.catalog_id);
        h.send(ctx, 200, feedFormPage({ catalog, channels: channelChoices(), values: emptyFormValues(), errors: [] }, h.pageSession(s)));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/feeds',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx);
        const values = formValuesFrom(form, false);
        try {
          const body = validator.validate(createFeedBody, createBodyOf(values), 'body');
          const { feed } = await createFeed(deps.knex, sessionOf(ctx).scope, ctx.params.catalog_id, body);
          const notices = feed.schedule ? await syncFeedSchedule(deps.jobRunner, feed, feed.schedule) : [];
          await afterSave(ctx, feed.id, { notices });
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          await refusedNew(ctx, values, err);
        }
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/feeds/:feed_id',
      handler: async (ctx) => {
        const s = sessionOf(ctx);
        const data = await loadFeedPage(deps.knex, s.scope, ctx.params.catalog_id, ctx.params.feed_id);
        const saved =
          ctx.query.saved === '1' ? 'Saved.' : ctx.query.rotated === '1' ? 'The feed has a new public URL; the old one answers 404 from now on.' : null;
        h.send(ctx, 200, feedPage(data, publicBase, { message: saved }, h.pageSession(s)));
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/feeds/:feed_id/edit',
      handler: async (ctx) => showEdit(ctx, 200, null, []),
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/feeds/:feed_id',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx);
        const values = formValuesFrom(form, true);
        const feed = await ownFeed(ctx);
        try {
          const body = validator.validate(updateFeedBody, patchOf(feed, values), 'body');
          const updated = await updateFeed(deps.knex, sessionOf(ctx).scope, feed.id, body);
          const notices = body.schedule !== undefined ? await syncFeedSchedule(deps.jobRunner, updated, updated.schedule) : [];
          await afterSave(ctx, feed.id, { notices });
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          await showEdit(ctx, 422, values, err.details);
        }
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/feeds/:feed_id/delete',
      handler: async (ctx) => {
        await h.readCheckedForm(ctx);
        const feed = await deleteFeed(deps.knex, sessionOf(ctx).scope, (await ownFeed(ctx)).id);
        if (feed.schedule) await syncFeedSchedule(deps.jobRunner, feed, null);
        ctx.status = 303;
        ctx.redirect(feedsPath(ctx.params.catalog_id));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/feeds/:feed_id/rotate-token',
      handler: async (ctx) => {
        await h.readCheckedForm(ctx);
        await rotateFeedToken(deps.knex, sessionOf(ctx).scope, (await ownFeed(ctx)).id);
        ctx.status = 303;
        ctx.redirect(`${feedPath(ctx.params.catalog_id, ctx.params.feed_id)}?rotated=1`);
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/feeds/:feed_id/runs',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx);
        const run = await startFeedRun(runDeps, sessionOf(ctx).scope, (await ownFeed(ctx)).id, form.get('delta') === '1');
        ctx.status = 303;
        ctx.redirect(feedRunPath(ctx.params.catalog_id, run.feed_id, run.id));
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/feeds/:feed_id/runs/:run_id',
      handler: async (ctx) => {
        const s = sessionOf(ctx);
        const data = await loadRunPage(deps.knex, s.scope, ctx.params.catalog_id, ctx.params.feed_id, ctx.params.run_id, issueQueryOf(validator, ctx));
        h.send(ctx, 200, runPage(data, h.pageSession(s)));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/feeds/:feed_id/runs/:run_id/cancel',
      handler: async (ctx) => {
        await h.readCheckedForm(ctx);
        await cancelFeedRun(runDeps, sessionOf(ctx).scope, (await ownFeed(ctx)).id, ctx.params.run_id);
        ctx.status = 303;
        ctx.redirect(feedRunPath(ctx.params.catalog_id, ctx.params.feed_id, ctx.params.run_id));
      },
    },
  ];
}
