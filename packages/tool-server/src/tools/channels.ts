/**
 * The channel and feed tools (docs/channels.md, docs/feeds.md): thin wrappers over the public API
 * that list the sales channels, report a catalog's readiness for one, start a feed run (waiting a
 * bounded time for it to end) and page through a run's issues. The feed itself (channel, format,
 * mapping) is set up in the dashboard or through the API; these tools never change it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ApiClient, backoffMs, sleep } from '../api-client';
import { organizationId, run, ToolContext } from './common';

/** The channel ids the service offers (`GET /api/public/channels`, docs/channels.md). */
const CHANNELS = ['google_merchant_center', 'meta_catalog', 'schema_org'] as const;

/** Run statuses after which a run changes no more (docs/feeds.md "Runs"). */
const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

/** Longest wait of `catalog_feed_run` for its run to end, in seconds. */
const MAX_WAIT_S = 300;

/** First pause between two polls of a run, in ms; pauses double up to 5× this (see {@link backoffMs}). */
const POLL_BASE_MS = 500;

const feedId = z.string().min(1).describe('Feed id (GET /public/catalogs/{catalog_id}/feeds)');
const runId = z.string().min(1).describe('Feed run id (run_id of catalog_feed_run)');

/** A run as `GET /public/feeds/{feed_id}/runs/{run_id}` answers it (the field read here). */
interface FeedRunDoc {
  status: string;
}

/**
 * Polls a run until its status is final or `waitSeconds` have passed, pausing
 * min(0.5·2^n, 2.5) s between polls (never past the deadline).
 * @returns the last answer of the run, with `done` (status final) and `waited_seconds`
 * @throws ApiError when a poll fails (e.g. 404 for an unknown feed or run)
 */
async function waitForRun(
  api: ApiClient,
  ids: { feed_id: string; run_id: string },
  waitSeconds: number,
  org: string | undefined,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const deadline = started + waitSeconds * 1000;
  for (let attempt = 0; ; attempt++) {
    const doc = await api.call<FeedRunDoc & Record<string, unknown>>('GET', '/api/public/feeds/{feed_id}/runs/{run_id}', {
      path: ids,
      organizationId: org,
    });
    const done = FINAL_STATUSES.has(doc.status);
    const left = deadline - Date.now();
    if (done || left <= 0) return { ...doc, done, waited_seconds: Math.round((Date.now() - started) / 100) / 10 };
    await sleep(Math.min(backoffMs(attempt, POLL_BASE_MS), left));
  }
}

/** Registers `catalog_channel_list`, `catalog_channel_readiness`, `catalog_feed_run`, `catalog_feed_run_get` and `catalog_feed_run_issues`. */
export function registerChannelTools(server: McpServer, { api }: ToolContext): void {
  server.registerTool(
    'catalog_channel_list',
    {
      description: 'List the sales channels (Google Merchant Center, Meta catalog, schema.org) with their formats and attributes.',
      inputSchema: { organization_id: organizationId },
    },
    (a) => run(() => api.call('GET', '/api/public/channels', { organizationId: a.organization_id })),
  );
  server.registerTool(
    'catalog_channel_readiness',
    {
      description:
        "A catalog's readiness for a channel: ready items, blocked items per issue code, missing attributes (latest feed's mapping or the proposal).",
      inputSchema: {
        catalog_id: z.string().min(1).describe('Catalog id'),
        channel: z.enum(CHANNELS).describe('Channel id (catalog_channel_list)'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/catalogs/{catalog_id}/channel-readiness', {
          path: { catalog_id: a.catalog_id },
          query: { channel: a.channel },
          organizationId: a.organization_id,
          timeoutMs: 120_000,
        }),
      ),
  );
  server.registerTool(
    'catalog_feed_run',
    {
      description: 'Start a run of a feed (delta: only changes since the last completed run) and wait up to wait_seconds for it to end.',
      inputSchema: {
        feed_id: feedId,
        delta: z.boolean().default(false).describe('Write only items changed or removed since the last completed run (JSONL)'),
        wait_seconds: z
          .number()
          .int()
          .min(0)
          .max(MAX_WAIT_S)
          .default(30)
          .describe('Poll the run until it ends or this many seconds pass (0 = return at once); then done says whether it ended'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(async () => {
        const started = await api.call<{ run_id: string; status: string }>('POST', '/api/public/feeds/{feed_id}/runs', {
          path: { feed_id: a.feed_id },
          body: { delta: a.delta },
          organizationId: a.organization_id,
        });
        if (a.wait_seconds === 0) return { ...started, done: FINAL_STATUSES.has(started.status) };
        return { run_id: started.run_id, ...(await waitForRun(api, { feed_id: a.feed_id, run_id: started.run_id }, a.wait_seconds, a.organization_id)) };
      }),
  );
  server.registerTool(
    'catalog_feed_run_get',
    {
      description: 'Get a feed run: status, progress, counts (exported, excluded, warnings), file_url and issues_url.',
      inputSchema: { feed_id: feedId, run_id: runId, organization_id: organizationId },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/feeds/{feed_id}/runs/{run_id}', {
          path: { feed_id: a.feed_id, run_id: a.run_id },
          organizationId: a.organization_id,
        }),
      ),
  );
  server.registerTool(
    'catalog_feed_run_issues',
    {
      description: "Page through a feed run's issues (errors exclude the item from the file), filtered by severity, code or attribute.",
      inputSchema: {
        feed_id: feedId,
        run_id: runId,
        page: z.number().int().min(1).default(1),
        page_size: z.number().int().min(1).max(1000).default(50),
        severity: z.enum(['error', 'warning']).optional(),
        code: z.string().max(64).optional().describe('Issue code, e.g. missing_required, invalid_gtin, too_long'),
        attribute: z.string().max(100).optional().describe('Channel attribute, e.g. gtin'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(() =>
        api.call('GET', '/api/public/feeds/{feed_id}/runs/{run_id}/issues', {
          path: { feed_id: a.feed_id, run_id: a.run_id },
          query: { page: a.page, page_size: a.page_size, severity: a.severity, code: a.code, attribute: a.attribute },
          organizationId: a.organization_id,
        }),
      ),
  );
}
