/**
 * The work of a feed run, page by page (docs/feeds.md, "Runs" and "Durability"); the feed
 * activities (activities/feeds.ts) are thin adapters over these functions.
 *
 * A page is the next {@link FEED_PAGE_ITEMS} exportable items after a keyset cursor (item id):
 * products without variants and variants (one row each; a variant inherits its product's values
 * and gets `item_group_id` = the product's id). Each page writes its rendered rows to a part blob
 * keyed by the page's index, then records the page, its issues and its exported items in ONE
 * transaction keyed by (run, page): a retried page rewrites the same part and records nothing
 * twice. The last step concatenates the parts into the run's file.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { BlobStore } from '../../lib/blob-store';
import { FEED_PAGE_ITEMS, type FeedPageResult } from '../../contracts/feed-workflows';
import { Feed } from '../../models/feed';
import { FeedRun } from '../../models/feed-run';
import { filterSql } from '../catalog/items-sql';
import { getCurrentSchema } from '../catalog/schema';
import { feedContextOf, feedRowOf, rendererOf, rowIssues, type FeedContext, type FeedRow, type RowIssue } from './channel-port';

/** A page of exportable items: the item, and its product for a variant. */
interface PageItem {
  id: string;
  entity_type: 'product' | 'variant';
  parent_id: string | null;
  business_key: string | null;
  data: Record<string, unknown>;
}

/** Why a run cannot go on (its feed deleted): the workflow stops without retrying. */
export class FeedRunNotRunnable extends Error {}

/** Blob key of a run's part of one page. */
export function feedPartKey(run: Pick<FeedRun, 'id' | 'feed_id'>, pageIndex: number): string {
  return `feeds/${run.feed_id}/runs/${run.id}/parts/${String(pageIndex).padStart(8, '0')}`;
}

/** What a page reads of the feed's catalog, in one query: the search-words state of its filter and the product id field. */
interface CatalogState {
  search_words_pending: boolean | null;
  product_id_field: string | null;
}

/** The feed's catalog's {@link CatalogState} (all null when the catalog is gone). */
async function catalogStateOf(knex: Knex, feed: Feed): Promise<CatalogState> {
  const row = (await knex('catalogs').select('search_words_pending', 'product_id_field').where('id', feed.catalog_id).first()) as CatalogState | undefined;
  return row ?? { search_words_pending: null, product_id_field: null };
}

/** The `WHERE` of a feed's exportable items: its filter, and no product that has variants. */
function exportableWhere(feed: Feed, catalog: CatalogState): { sql: string; bindings: Knex.RawBinding[] } {
  const f = filterSql(feed.catalog_id, {
    search: feed.filter.search,
    entity_type: feed.filter.entity_type,
    words_pending: catalog.search_words_pending === true,
  });
  return { sql: `${f.sql} AND NOT EXISTS (SELECT 1 FROM catalog_items v WHERE v.parent_id = catalog_items.id)`, bindings: f.bindings };
}

/** Loads a run and its live feed. @throws FeedRunNotRunnable when either is gone */
async function runAndFeed(knex: Knex, runId: string): Promise<{ run: FeedRun; feed: Feed }> {
  const run = await FeedRun.query(knex).findById(runId);
  const feed = run ? await Feed.query(knex).findById(run.feed_id) : undefined;
  if (!run || !feed || feed.deleted) throw new FeedRunNotRunnable(`The feed of run ${runId} was deleted`);
  return { run, feed };
}

/**
 * First step of a run: counts the items it will read (`total`), once.
 * @returns false when the run is no longer running (cancelled before it began)
 * @throws FeedRunNotRunnable when the feed was deleted
 */
export async function beginFeedRun(knex: Knex, runId: string): Promise<boolean> {
  const { run, feed } = await runAndFeed(knex, runId);
  if (run.status !== 'running') return false;
  const where = exportableWhere(feed, await catalogStateOf(knex, feed));
  const { rows } = await knex.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings);
  await knex('feed_runs').where({ id: runId, status: 'running' }).update({ total: rows[0].n });
  return true;
}

/** The stable text of a row for hashing: keys sorted. */
function rowHash(row: FeedRow): string {
  const sorted = Object.fromEntries(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return crypto.createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** Rows, issues and counters of one page (pure once the items are read). */
function buildPage(fc: FeedContext, feed: Feed, items: PageItem[], parents: Map<string, Record<string, unknown>>) {
  const exported: Array<{ item: PageItem; row: FeedRow; hash: string }> = [];
  const issues: Array<RowIssue & { item_id: string; sku: string | null }> = [];
  let excluded = 0;
  let warned = 0;
  for (const item of items) {
    const parent = item.parent_id ? (parents.get(item.parent_id) ?? null) : null;
    const row = feedRowOf(fc, feed, item.data, parent);
    const found = rowIssues(fc, row, item.data, parent);
    const sku = item.business_key ?? (typeof item.data.sku === 'string' ? item.data.sku : null);
    for (const i of found) issues.push({ ...i, item_id: item.id, sku });
    if (found.some((i) => i.severity === 'error')) excluded += 1;
    else {
      if (found.length > 0) warned += 1;
      exported.push({ item, row, hash: rowHash(row) });
    }
  }
  return { exported, issues, excluded, warned };
}

/**
 * Writes page `pageIndex` of a run: the items after `after`, their rows rendered into the page's
 * part blob, then the page row, issues and exported items in one transaction (`ON CONFLICT DO
 * NOTHING` on every key), and the run's counters moved by the page's counts only when the page
 * row was new. A page already recorded (a retry after its commit) answers what it recorded.
 * A delta run's part holds one JSONL line `{"changed": [rows], "removed": []}` of the rows that
 * are new or differ from the base run's.
 * @returns the page's counters and the cursor of the next page (null after the last);
 *   `stopped` when the run is no longer running (cancelled)
 * @throws FeedRunNotRunnable when the feed was deleted; database or blob store errors (retried)
 */
export async function writeFeedPage(
  knex: Knex,
  blobs: BlobStore,
  runId: string,
  pageIndex: number,
  after: string | null,
  pageItems = FEED_PAGE_ITEMS,
): Promise<FeedPageResult & { stopped?: boolean }> {
  const { run, feed } = await runAndFeed(knex, runId);
  const recorded = await knex('feed_run_pages').where({ run_id: runId, page_index: pageIndex }).first();
  if (recorded) return pageResult(recorded, pageItems);
  if (run.status !== 'running') return { items_read: 0, exported: 0, excluded: 0, warnings: 0, next: null, stopped: true };
  const catalog = await catalogStateOf(knex, feed);
  const where = exportableWhere(feed, catalog);
  const { rows: items } = (await knex.raw(
    `SELECT id, entity_type, parent_id, business_key, data FROM catalog_items WHERE ${where.sql} ${after ? 'AND id > ?' : ''} ORDER BY id LIMIT ?`,
    [...where.bindings, ...(after ? [after] : []), pageItems],
  )) as { rows: PageItem[] };
  const parentIds = [...new Set(items.map((i) => i.parent_id).filter((p): p is string => p !== null))];
  const parentRows: Array<{ id: string; data: Record<string, unknown> }> = parentIds.length
    ? await knex('catalog_items').select('id', 'data').whereIn('id', parentIds)
    : [];
  const fc = feedContextOf(feed, await getCurrentSchema(knex, feed.catalog_id), catalog.product_id_field);
  const page = buildPage(fc, feed, items, new Map(parentRows.map((p) => [p.id, p.data])));
  let rendered = page.exported;
  if (run.delta) {
    const base = run.base_run_id
      ? await knex('feed_run_items')
          .select('item_id', 'row_hash')
          .where('run_id', run.base_run_id)
          .whereIn(
            'item_id',
            rendered.map((e) => e.item.id),
          )
      : [];
    const before = new Map(base.map((b: { item_id: string; row_hash: string }) => [b.item_id, b.row_hash]));
    rendered = rendered.filter((e) => before.get(e.item.id) !== e.hash);
  }
  const renderer = rendererOf(feed);
  const text = run.delta
    ? rendered.length
      ? JSON.stringify({ changed: rendered.map((e) => e.row), removed: [] }) + '\n'
      : ''
    : rendered.map((e) => renderer.row(e.row)).join('');
  const partKey = feedPartKey(run, pageIndex);
  await blobs.put(partKey, Buffer.from(text, 'utf8'));
  const last = items.length ? items[items.length - 1].id : after;
  // A delta run's `exported` counts the rows its file carries (new or changed).
  const counts = { items_read: items.length, items: items.length, exported: rendered.length, excluded: page.excluded, warnings: page.warned };
  return knex.transaction(async (trx) => {
    const inserted = await trx('feed_run_pages')
      .insert({ run_id: runId, page_index: pageIndex, after_id: after, last_id: last, part_key: partKey, ...counts })
      .onConflict(['run_id', 'page_index'])
      .ignore()
      .returning('page_index');
    if (inserted.length === 0) return pageResult(await trx('feed_run_pages').where({ run_id: runId, page_index: pageIndex }).first(), pageItems);
    if (page.issues.length) {
      await trx('feed_run_issues')
        .insert(
          page.issues.map((i) => ({
            run_id: runId,
            item_id: i.item_id,
            sku: i.sku,
            attribute: i.attribute,
            severity: i.severity,
            code: i.code,
            message: i.message,
            value: i.value ?? null,
          })),
        )
        .onConflict(['run_id', 'item_id', 'attribute', 'code'])
        .ignore();
    }
    if (page.exported.length) {
      await trx('feed_run_items')
        .insert(page.exported.map((e) => ({ run_id: runId, item_id: e.item.id, offer_id: typeof e.row.id === 'string' ? e.row.id : null, row_hash: e.hash })))
        .onConflict(['run_id', 'item_id'])
        .ignore();
    }
    await trx('feed_runs')
      .where('id', runId)
      .increment({ items_read: counts.items_read, items: counts.items, exported: counts.exported, excluded: counts.excluded, warnings: counts.warnings });
    return pageResult(counts, pageItems, last);
  });
}

/** A page's answer from its counters: the next cursor is its last id unless it was short (the last page). */
function pageResult(
  p: { items_read: number; exported: number; excluded: number; warnings: number; last_id?: string | null },
  pageItems: number,
  last?: string | null,
): FeedPageResult {
  const lastId = last !== undefined ? last : (p.last_id ?? null);
  return { items_read: p.items_read, exported: p.exported, excluded: p.excluded, warnings: p.warnings, next: p.items_read < pageItems ? null : lastId };
}
