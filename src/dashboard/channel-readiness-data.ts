import type { Knex } from 'knex';
import { CHANNELS } from '../channels';
import type { Feed } from '../models/feed';
import type { FeedRun } from '../models/feed-run';
import type { Scope } from '../services/access/scope';
import type { CatalogDeps } from '../services/catalog/catalog-caches';
import { loadGridCatalog } from '../services/catalog/grid/item-grid';
import { fieldOfAttribute, gapAttributesOf } from '../services/channels/fill-gaps';
import { channelReadiness, type ChannelReadiness } from '../services/channels/readiness';
import { listFeeds } from '../services/feeds/feeds';

/**
 * Data of the "Channel readiness" panel of the completeness page (docs/console.md "Channel
 * readiness"): the channels to choose from, the chosen channel's readiness report
 * (src/services/channels/readiness.ts), what fill the gaps for the channel would fill, and the
 * catalog's feeds with their latest runs.
 */

/** One feed as the panel lists it: the feed, its latest run, and its latest completed run (the file to download). */
export interface PanelFeed {
  feed: Feed;
  latest: FeedRun | null;
  latestCompleted: FeedRun | null;
}

/** The panel's data; `report` is null until a channel is chosen. */
export interface ChannelPanelData {
  catalogId: string;
  channels: Array<{ id: string; name: string }>;
  channel: string | null;
  report: ChannelReadiness | null;
  /**
   * Of each attribute the report shows missing or blocking (src/services/channels/fill-gaps.ts
   * gapAttributesOf), the catalog field fill the gaps would enrich, or why it cannot.
   */
  gaps: Array<{ attribute: string; field?: string; reason?: string }>;
  feeds: PanelFeed[];
}

/** Latest run per feed (PostgreSQL `DISTINCT ON`), optionally of one status. */
async function latestRuns(knex: Knex, feedIds: string[], status?: 'completed'): Promise<Map<string, FeedRun>> {
  if (feedIds.length === 0) return new Map();
  const q = knex('feed_runs')
    .distinctOn('feed_id')
    .whereIn('feed_id', feedIds)
    .orderBy([{ column: 'feed_id' }, { column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .select('*');
  if (status) q.where('status', status).whereNotNull('file_key');
  const rows = (await q) as FeedRun[];
  return new Map(rows.map((r) => [r.feed_id, r]));
}

/**
 * The catalog's live feeds (newest first), each with its latest run and latest completed run with
 * a file: the panel's feed table and the console's feeds list (docs/console.md "Feeds").
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog
 */
export async function feedsWithRuns(knex: Knex, scope: Scope, catalogId: string): Promise<PanelFeed[]> {
  const feeds = await listFeeds(knex, scope, catalogId);
  const ids = feeds.map((f) => f.id);
  const [latest, completed] = await Promise.all([latestRuns(knex, ids), latestRuns(knex, ids, 'completed')]);
  return feeds.map((feed) => ({ feed, latest: latest.get(feed.id) ?? null, latestCompleted: completed.get(feed.id) ?? null }));
}

/**
 * Loads the panel's data. `channel` is the `?channel=` query value (empty or absent: no report).
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog; ValidationError (422) for an unknown channel
 */
export async function loadChannelPanel(deps: CatalogDeps, scope: Scope, catalogId: string, channel: unknown): Promise<ChannelPanelData> {
  const chosen = typeof channel === 'string' && channel !== '' ? channel : null;
  const report = chosen ? await channelReadiness(deps, scope, catalogId, chosen) : null;
  const grid = report ? await loadGridCatalog(deps, scope, catalogId) : null;
  const gaps = report && grid ? gapAttributesOf(report).map((attribute) => ({ attribute, ...fieldOfAttribute(grid, report.mapping, attribute) })) : [];
  const feeds = await feedsWithRuns(deps.knex, scope, catalogId);
  return {
    catalogId,
    channels: CHANNELS.map((c) => ({ id: c.id, name: c.name })),
    channel: report?.channel ?? null,
    report,
    gaps,
    feeds,
  };
}
