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
import { filterSql } from '../catalog/items/items-sql';
import { getCurrentSchema } from '../catalog/schema/schema';
import { countTouched, touchedIdsAfter } from '../catalog/item-changes';
import { chooseDeltaMode, deltaSince } from './delta';
import { feedContextOf, feedRowOf, rendererOf, rowIssues, type FeedContext, type FeedRow, type RowIssue } from './channel-port';
import { readGroupedPage, renderGroupedPart } from './group-pages';

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

/** The feed's item filter over unqualified `catalog_items` columns. */
function feedFilter(feed: Feed, catalog: CatalogState): { sql: string; bindings: Knex.RawBinding[] } {
  return filterSql(feed.catalog_id, { search: feed.filter.search, entity_type: feed.filter.entity_type, words_pending: catalog.search_words_pending === true });
}

/** The `WHERE` of a feed's exportable items: its filter, and no product that has variants. */
function exportableWhere(feed: Feed, catalog: CatalogState): { sql: string; bindings: Knex.RawBinding[] } {
  const f = feedFilter(feed, catalog);
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
 * First step of a run: fixes a delta run's mode once (docs/feeds.md "Delta runs"; a retry keeps
 * the first choice) and counts the items it will read (`total`): the touched ids of a `changed`
 * delta, else the exportable items.
 * @returns false when the run is no longer running (cancelled before it began)
 * @throws FeedRunNotRunnable when the feed was deleted
 */
export async function beginFeedRun(knex: Knex, runId: string): Promise<boolean> {
  const { run, feed } = await runAndFeed(knex, runId);
  if (run.status !== 'running') return false;
  if (run.delta && !run.delta_mode) {
    const base = run.base_run_id ? await FeedRun.query(knex).findById(run.base_run_id) : undefined;
    const mode = await chooseDeltaMode(knex, feed, base);
    await knex('feed_runs').where('id', runId).whereNull('delta_mode').update({ delta_mode: mode });
  }
  const mode = run.delta ? (await knex('feed_runs').where('id', runId).first('delta_mode')).delta_mode : null;
  let total: number;
  if (mode === 'changed') total = await countTouched(knex, feed.catalog_id, await deltaSince(knex, run));
  else {
    const where = exportableWhere(feed, await catalogStateOf(knex, feed));
    const { rows } = await knex.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings);
    total = rows[0].n;
  }
  await knex('feed_runs').where({ id: runId, status: 'running' }).update({ total });
  return true;
}

/** The stable text of a row for hashing: keys sorted. */
function rowHash(row: FeedRow): string {
  const sorted = Object.fromEntries(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return crypto.createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** An item a page exports: its row and the row's hash. */
interface ExportedRow {
  item: PageItem;
  row: FeedRow;
  hash: string;
}

/** Rows, issues and counters of one page (pure once the items are read). */
function buildPage(fc: FeedContext, feed: Feed, items: PageItem[], parents: Map<string, Record<string, unknown>>) {
  const exported: ExportedRow[] = [];
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

/** The items a page reads: the page's items, how many ids it looked at and its keyset cursor. */
interface PageRead {
  items: PageItem[];
  /** Ids looked at: the items read, or (a `changed` delta) the touched ids, existing or deleted. */
  ids: string[];
  last: string | null;
}

/**
 * Reads a page: the next `pageItems` exportable items after `after`, or for a `changed` delta
 * the next `pageItems` touched ids (docs/feeds.md "Delta runs") and those of them that are
 * exportable now.
 */
async function readPage(knex: Knex, run: FeedRun, feed: Feed, catalog: CatalogState, after: string | null, pageItems: number): Promise<PageRead> {
  const where = exportableWhere(feed, catalog);
  if (run.delta_mode === 'changed') {
    const ids = await touchedIdsAfter(knex, feed.catalog_id, await deltaSince(knex, run), after, pageItems);
    const { rows } = ids.length
      ? ((await knex.raw(`SELECT id, entity_type, parent_id, business_key, data FROM catalog_items WHERE ${where.sql} AND id = ANY(?::uuid[]) ORDER BY id`, [
          ...where.bindings,
          ids,
        ])) as { rows: PageItem[] })
      : { rows: [] };
    return { items: rows, ids, last: ids.length ? ids[ids.length - 1] : after };
  }
  const { rows } = (await knex.raw(
    `SELECT id, entity_type, parent_id, business_key, data FROM catalog_items WHERE ${where.sql} ${after ? 'AND id > ?' : ''} ORDER BY id LIMIT ?`,
    [...where.bindings, ...(after ? [after] : []), pageItems],
  )) as { rows: PageItem[] };
  return { items: rows, ids: rows.map((r) => r.id), last: rows.length ? rows[rows.length - 1].id : after };
}

/**
 * A delta page's comparison with the base run: the exported rows that are new or differ, and
 * (a `changed` delta) the base's items among the ids read that are not exported now.
 */
async function compareWithBase(knex: Knex, run: FeedRun, read: PageRead, exported: ExportedRow[]) {
  const base: Array<{ item_id: string; row_hash: string; offer_id: string | null }> = run.base_run_id
    ? await knex('feed_run_items')
        .select('item_id', 'row_hash', 'offer_id')
        .where('run_id', run.base_run_id)
        .whereIn('item_id', run.delta_mode === 'changed' ? read.ids : exported.map((e) => e.item.id))
    : [];
  const before = new Map(base.map((b) => [b.item_id, b.row_hash]));
  const now = new Set(exported.map((e) => e.item.id));
  const removed = run.delta_mode === 'changed' ? base.filter((b) => !now.has(b.item_id)).map((b) => ({ item_id: b.item_id, offer_id: b.offer_id })) : [];
  return { changed: exported.filter((e) => before.get(e.item.id) !== e.hash), removed };
}

/**
 * Writes page `pageIndex` of a run: the items after `after`, their rows rendered into the page's
 * part blob, then the page row, issues and exported items in one transaction (`ON CONFLICT DO
 * NOTHING` on every key), and the run's counters moved by the page's counts only when the page
 * row was new. A page already recorded (a retry after its commit) answers what it recorded.
 * A delta run's part holds one JSONL line `{"changed": [rows], "removed": []}` of the rows that
 * are new or differ from the base run's; a `changed` delta also records the base's items it
 * read and did not export (`feed_run_removals`, listed when the run finishes).
 * A full run of a writer that folds variants into their product (schema.org) reads whole
 * products instead (./group-pages.ts): `after` is then a product's id, the part holds one line
 * per product, and the page row's `last_id` is the next cursor (null after the last product).
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
  const renderer = rendererOf(feed);
  // A full run of a writer that folds variants into their product pages by whole products (./group-pages.ts).
  const grouped = !run.delta && renderer.groupsVariants;
  const recorded = await knex('feed_run_pages').where({ run_id: runId, page_index: pageIndex }).first();
  if (recorded) return grouped ? groupedPageResult(recorded) : pageResult(recorded, pageItems);
  if (run.status !== 'running') return { items_read: 0, exported: 0, excluded: 0, warnings: 0, next: null, stopped: true };
  const catalog = await catalogStateOf(knex, feed);
  const read = grouped
    ? await readGroupedPage(knex, feed.catalog_id, feedFilter(feed, catalog), after, pageItems)
    : await readPage(knex, run, feed, catalog, after, pageItems);
  const parentIds = [...new Set(read.items.map((i) => i.parent_id).filter((p): p is string => p !== null))];
  const parentRows: Array<{ id: string; data: Record<string, unknown> }> = parentIds.length
    ? await knex('catalog_items').select('id', 'data').whereIn('id', parentIds)
    : [];
  const fc = feedContextOf(feed, await getCurrentSchema(knex, feed.catalog_id), catalog.product_id_field);
  const parents = new Map(parentRows.map((p) => [p.id, p.data]));
  const page = buildPage(fc, feed, read.items, parents);
  const delta = run.delta ? await compareWithBase(knex, run, read, page.exported) : null;
  const rendered = delta ? delta.changed : page.exported;
  const text = delta
    ? rendered.length
      ? JSON.stringify({ changed: rendered.map((e) => e.row), removed: [] }) + '\n'
      : ''
    : grouped
      ? renderGroupedPart(renderer, rendered, (productId) => feedRowOf(fc, feed, parents.get(productId) ?? {}, null))
      : rendered.map((e) => renderer.row(e.row)).join('');
  const partKey = feedPartKey(run, pageIndex);
  await blobs.put(partKey, Buffer.from(text, 'utf8'));
  // A delta run's `exported` counts the rows its file carries (new or changed); a `changed`
  // delta's `items_read` counts the ids it looked at, `items` the exportable items among them.
  const counts = { items_read: read.ids.length, items: read.items.length, exported: rendered.length, excluded: page.excluded, warnings: page.warned };
  return knex.transaction(async (trx) => {
    const inserted = await trx('feed_run_pages')
      .insert({ run_id: runId, page_index: pageIndex, after_id: after, last_id: read.last, part_key: partKey, ...counts })
      .onConflict(['run_id', 'page_index'])
      .ignore()
      .returning('page_index');
    if (inserted.length === 0) {
      const row = await trx('feed_run_pages').where({ run_id: runId, page_index: pageIndex }).first();
      return grouped ? groupedPageResult(row) : pageResult(row, pageItems);
    }
    await recordPage(trx, runId, page, delta?.removed ?? []);
    await trx('feed_runs')
      .where('id', runId)
      .increment({ items_read: counts.items_read, items: counts.items, exported: counts.exported, excluded: counts.excluded, warnings: counts.warnings });
    return grouped ? groupedPageResult({ ...counts, last_id: read.last }) : pageResult(counts, pageItems, read.last);
  });
}

/** Records a new page's issues, exported items and (a `changed` delta) removed base items, each `ON CONFLICT DO NOTHING`. */
async function recordPage(
  trx: Knex.Transaction,
  runId: string,
  page: ReturnType<typeof buildPage>,
  removed: Array<{ item_id: string; offer_id: string | null }>,
): Promise<void> {
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
  if (removed.length) {
    await trx('feed_run_removals')
      .insert(removed.map((r) => ({ run_id: runId, ...r })))
      .onConflict(['run_id', 'item_id'])
      .ignore();
  }
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

/** A grouped page's answer: its recorded `last_id` is the next cursor, null after the last group (./group-pages.ts). */
function groupedPageResult(p: { items_read: number; exported: number; excluded: number; warnings: number; last_id: string | null }): FeedPageResult {
  return { items_read: p.items_read, exported: p.exported, excluded: p.excluded, warnings: p.warnings, next: p.last_id };
}
