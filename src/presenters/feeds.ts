/** Feeds and their runs as the API shows them (docs/feeds.md; schemas in src/schemas/feeds.ts). */
import type { Feed } from '../models/feed';
import type { FeedRun } from '../models/feed-run';
import type { FeedRunIssue } from '../services/feeds/runs';

/** Path of a feed's public URL (outside `/api`, no API key). */
export function publicFeedPath(token: string): string {
  return `/feeds/public/${token}`;
}

/**
 * A feed: settings, mapping (with the reasons of a proposal when given), public URL (absolute
 * when `baseUrl` is known), notices.
 */
export function presentFeed(feed: Feed, opts: { baseUrl?: string; reasons?: Record<string, string>; notices?: string[] } = {}) {
  return {
    id: feed.id,
    catalog_id: feed.catalog_id,
    channel: feed.channel,
    format: feed.format,
    target_country: feed.target_country,
    language: feed.language,
    currency: feed.currency,
    mapping: feed.mapping,
    mapping_suggested: feed.mapping_suggested,
    ...(opts.reasons && Object.keys(opts.reasons).length ? { mapping_reasons: opts.reasons } : {}),
    filter: feed.filter,
    schedule: feed.schedule,
    public_url: `${opts.baseUrl ?? ''}${publicFeedPath(feed.public_token)}`,
    ...(opts.notices?.length ? { notices: opts.notices } : {}),
    created_at: new Date(feed.created_at).toISOString(),
    updated_at: new Date(feed.updated_at).toISOString(),
  };
}

/** A run: status, progress, counts and where its file and issues are. */
export function presentFeedRun(run: FeedRun) {
  const base = `/api/public/feeds/${run.feed_id}/runs/${run.id}`;
  return {
    id: run.id,
    feed_id: run.feed_id,
    status: run.status,
    delta: run.delta,
    progress: { items_read: run.items_read, total: run.total },
    counts: { items: run.items, exported: run.exported, excluded: run.excluded, warnings: run.warnings },
    file_url: run.file_key ? `${base}/file` : null,
    issues_url: `${base}/issues`,
    error: run.error,
    started_at: run.started_at ? new Date(run.started_at).toISOString() : null,
    completed_at: run.completed_at ? new Date(run.completed_at).toISOString() : null,
  };
}

/** A page of issues (`value` left out when the attribute was empty). */
export function presentIssuePage(items: FeedRunIssue[], total: number, page: number, pageSize: number) {
  return {
    items: items.map((i) => ({
      item_id: i.item_id,
      sku: i.sku,
      attribute: i.attribute,
      severity: i.severity,
      code: i.code,
      message: i.message,
      ...(i.value !== null ? { value: i.value } : {}),
    })),
    total,
    page,
    page_size: pageSize,
    total_pages: Math.ceil(total / pageSize),
  };
}
