import type { ResolvedAppDeps } from '../deps';
import { createBlobStore } from '../lib/blob-stores';
import { presentFeed, presentFeedRun, presentIssuePage } from '../presenters/feeds';
import { messageResponse } from '../schemas/catalogs';
import {
  createFeedBody,
  feedCatalogParams,
  feedListResponse,
  feedParams,
  feedResponse,
  feedRunParams,
  feedRunResponse,
  issuesQuery,
  issuesResponse,
  publicFeedParams,
  startRunBody,
  startRunResponse,
  updateFeedBody,
} from '../schemas/feeds';
import { createFeed, deleteFeed, listFeeds, loadFeed, rotateFeedToken, updateFeed } from '../services/feeds/feeds';
import { cancelFeedRun, type FeedFile, listFeedRunIssues, loadFeedRun, openFeedRunFile, openPublicFeedFile, startFeedRun } from '../services/feeds/runs';
import { syncFeedSchedule } from '../services/feeds/schedules';
import type { Context } from 'koa';
import { defineRoute, RouteDef } from './registry';

/** Sends a feed file as the response body, streamed, with its MIME type. */
function sendFile(ctx: Context, file: FeedFile, disposition: 'inline' | 'attachment'): undefined {
  ctx.status = 200;
  ctx.type = file.content_type;
  ctx.set('Content-Disposition', `${disposition}; filename="${file.filename}"`);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = file.body;
  return undefined;
}

/**
 * Feed routes (docs/feeds.md): feeds of a catalog to a channel, their runs (the durable workflow
 * `feed-run-<run_id>`), each run's file and issues, and the public token.
 * Long on purpose: a route table, one entry per route.
 */
export function feedRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['feeds'];
  const blobs = createBlobStore(deps.config.blobStore);
  const runDeps = { knex: deps.knex, jobRunner: deps.jobRunner };
  const baseUrl = deps.config.publicUrl;
  return [
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/feeds',
      tags,
      summary: 'Create a feed of the catalog to a channel; without a mapping the service proposes one (mapping_suggested, a reason per attribute)',
      params: feedCatalogParams,
      body: createFeedBody,
      response: feedResponse,
      status: 201,
      handler: async ({ scope, params, body, ctx }) => {
        const { feed, mapping_reasons } = await createFeed(deps.knex, scope, params.catalog_id, body);
        const notices = feed.schedule ? await syncFeedSchedule(deps.jobRunner, feed, feed.schedule) : [];
        ctx.status = 201;
        return presentFeed(feed, { baseUrl, reasons: mapping_reasons, notices });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/feeds',
      tags,
      summary: "The catalog's feeds, newest first",
      params: feedCatalogParams,
      response: feedListResponse,
      handler: async ({ scope, params }) => ({ feeds: (await listFeeds(deps.knex, scope, params.catalog_id)).map((f) => presentFeed(f, { baseUrl })) }),
    }),
    defineRoute({
      method: 'get',
      path: '/public/feeds/:feed_id',
      tags,
      summary: 'One feed',
      params: feedParams,
      response: feedResponse,
      handler: async ({ scope, params }) => presentFeed(await loadFeed(deps.knex, scope, params.feed_id), { baseUrl }),
    }),
    defineRoute({
      method: 'patch',
      path: '/public/feeds/:feed_id',
      tags,
      summary: "Change a feed's settings; a new mapping is no longer a suggestion, a new schedule replaces the Temporal Schedule",
      params: feedParams,
      body: updateFeedBody,
      response: feedResponse,
      handler: async ({ scope, params, body }) => {
        const feed = await updateFeed(deps.knex, scope, params.feed_id, body);
        const notices = body.schedule !== undefined ? await syncFeedSchedule(deps.jobRunner, feed, feed.schedule) : [];
        return presentFeed(feed, { baseUrl, notices });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/public/feeds/:feed_id',
      tags,
      summary: 'Delete a feed: its public URL stops answering and its schedule is removed',
      params: feedParams,
      response: messageResponse,
      handler: async ({ scope, params }) => {
        const feed = await deleteFeed(deps.knex, scope, params.feed_id);
        if (feed.schedule) await syncFeedSchedule(deps.jobRunner, feed, null);
        return { message: `Feed ${params.feed_id} deleted` };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/public/feeds/:feed_id/rotate-token',
      tags,
      summary: 'Give the feed a new public URL; the old one answers 404 from now on',
      params: feedParams,
      response: feedResponse,
      handler: async ({ scope, params }) => presentFeed(await rotateFeedToken(deps.knex, scope, params.feed_id), { baseUrl }),
    }),
    defineRoute({
      method: 'post',
      path: '/public/feeds/:feed_id/runs',
      tags,
      summary: 'Start a run of the feed (the durable workflow feed-run-<run_id>); delta: only items changed or removed since the last completed run, as JSONL',
      params: feedParams,
      body: startRunBody,
      response: startRunResponse,
      status: 202,
      errors: { 503: 'this deployment runs no workflows, or Temporal is unreachable' },
      handler: async ({ scope, params, body, ctx }) => {
        const run = await startFeedRun(runDeps, scope, params.feed_id, body.delta);
        ctx.status = 202;
        return { run_id: run.id, status: run.status };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/feeds/:feed_id/runs/:run_id',
      tags,
      summary: 'Status, progress and counts of a run, and where its file and issues are',
      params: feedRunParams,
      response: feedRunResponse,
      handler: async ({ scope, params }) => presentFeedRun(await loadFeedRun(deps.knex, scope, params.feed_id, params.run_id)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/feeds/:feed_id/runs/:run_id/file',
      tags,
      summary:
        "The run's file (404 until it completed); Content-Type by format; schema_org: one JSON-LD line per product (a Product, or a ProductGroup with hasVariant)",
      params: feedRunParams,
      handler: async ({ scope, params, ctx }) => sendFile(ctx, await openFeedRunFile(deps.knex, blobs, scope, params.feed_id, params.run_id), 'attachment'),
    }),
    defineRoute({
      method: 'get',
      path: '/public/feeds/:feed_id/runs/:run_id/issues',
      tags,
      summary: "A page of the run's issues (an item with an error is not in the file; warnings keep it)",
      params: feedRunParams,
      query: issuesQuery,
      response: issuesResponse,
      handler: async ({ scope, params, query }) => {
        const { items, total } = await listFeedRunIssues(deps.knex, scope, params.feed_id, params.run_id, query);
        return presentIssuePage(items, total, query.page, query.page_size);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/public/feeds/:feed_id/runs/:run_id/cancel',
      tags,
      summary: 'Cancel a queued or running run (409 when it already ended)',
      params: feedRunParams,
      response: feedRunResponse,
      handler: async ({ scope, params }) => presentFeedRun(await cancelFeedRun(runDeps, scope, params.feed_id, params.run_id)),
    }),
  ];
}

/**
 * `GET /feeds/public/{token}`: the latest completed run's file of the feed whose current token
 * this is, with no API key (for the channel to fetch). Outside `/api`; listed in the OpenAPI
 * document at its root path with no security, as the health routes are; 404 for an unknown,
 * rotated or deleted token.
 */
export function publicFeedRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const blobs = createBlobStore(deps.config.blobStore);
  return [
    defineRoute({
      method: 'get',
      path: '/feeds/public/:token',
      tags: ['feeds'],
      summary: "A feed's latest file, by its public token",
      params: publicFeedParams,
      public: true,
      errors: { 404: 'an unknown, rotated or deleted token, or a feed with no completed full run yet' },
      handler: async ({ params, ctx }) => {
        const file = await openPublicFeedFile(deps.knex, blobs, params.token);
        ctx.set('Cache-Control', 'no-cache');
        return sendFile(ctx, file, 'inline');
      },
    }),
  ];
}
