/**
 * The work of a feed run, page by page (docs/feeds.md, "Runs" and "Durability"); the feed
 * activities (activities/feeds.ts) are thin adapters over these functions and ./stream.ts.
 *
 * A page is the next {@link FEED_PAGE_ITEMS} exportable items after a keyset cursor (item id):
 * products without variants and variants (one row each; a variant inherits its product's values
 * and gets `item_group_id` = the product's id). A page is read ({@link readPageInput}), built in
 * memory ({@link buildPageOutput}) and recorded ({@link commitPage}): its rendered rows go to a
 * part blob keyed by the page's index, then the page, its issues and its item state rows are
 * recorded in ONE transaction keyed by (run, page): a retried page rewrites the same part and
 * records nothing twice. The last step concatenates the parts into the run's file.
 *
 * A full run of a writer that folds variants into their product (schema.org) reads whole
 * products instead (./group-pages.ts): `after` is then a product's id, the part holds one line
 * per product, and the page row's `last_id` is the next cursor (null after the last product).
 */
import type { Knex } from 'knex';
import type { BlobStore } from '../../lib/blob-store';
import { FEED_PAGE_ITEMS, type FeedPageResult } from '../../contracts/feed-workflows';
import { Feed } from '../../models/feed';
import { FeedRun } from '../../models/feed-run';
import { filterSql } from '../catalog/items/items-sql';
import { getCurrentSchema } from '../catalog/schema/schema';
import { countTouched, touchedIdsAfter } from '../catalog/item-changes';
import { chooseDeltaMode, deltaSince } from './delta';
import { feedContextOf, feedRowOf, rendererOf, rowIssues, type FeedContext, type FeedRenderer, type FeedRow, type RowIssue } from './channel-port';
import { readGroupedPage, renderGroupedPart, type PageItem, type PageRead } from './group-pages';
import { insertStateRows, rowHasher, textArray, stateRowsBetween, stateRowsOf, type StateRow } from './item-state';

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

/**
 * The `WHERE` of a feed's exportable items: its filter, and no product that has variants. With
 * a keyset cursor `after` (the rows read have ids above it), the variant probe is bounded by it
 * too: the result is the same (a variant of such a row has a `parent_id` above `after`), but the
 * merge anti-join then starts its scan of the `parent_id` index at the cursor instead of at its
 * first entry for every page, which cost a page at the end of a 1,000,000-item catalog 210 ms
 * of its 310 ms (docs/benchmarks.md, "Feeds").
 */
function exportableWhere(feed: Feed, catalog: CatalogState, after: string | null = null): { sql: string; bindings: Knex.RawBinding[] } {
  const f = feedFilter(feed, catalog);
  return {
    sql: `${f.sql} AND NOT EXISTS (SELECT 1 FROM catalog_items v WHERE v.parent_id = catalog_items.id ${after ? 'AND v.parent_id > ?' : ''})`,
    bindings: [...f.bindings, ...(after ? [after] : [])],
  };
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
  // A full run writes a generation of its own (runs inserted before the item state had none).
  if (!run.delta && !run.state_id) await knex('feed_runs').where('id', runId).update({ state_id: runId });
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
  const bounded = exportableWhere(feed, catalog, after);
  const { rows } = (await knex.raw(
    `SELECT id, entity_type, parent_id, business_key, data FROM catalog_items WHERE ${bounded.sql} ${after ? 'AND id > ?' : ''} ORDER BY id LIMIT ?`,
    [...bounded.bindings, ...(after ? [after] : []), pageItems],
  )) as { rows: PageItem[] };
  return { items: rows, ids: rows.map((r) => r.id), last: rows.length ? rows[rows.length - 1].id : after };
}

/**
 * What every page of a run shares, loaded once per activity: the run and its live feed, the
 * catalog's state, the mapping context over the catalog's current schema, the format's writer,
 * the run's row hasher, and whether its pages are of whole products (a full run of a writer that
 * folds variants: ./group-pages.ts).
 */
export interface RunContext {
  run: FeedRun;
  feed: Feed;
  catalog: CatalogState;
  fc: FeedContext;
  renderer: FeedRenderer;
  hash: (row: FeedRow) => string;
  grouped: boolean;
}

/** Loads a run's {@link RunContext}. @throws FeedRunNotRunnable when the run or its feed is gone */
export async function runContext(knex: Knex, runId: string): Promise<RunContext> {
  const { run, feed } = await runAndFeed(knex, runId);
  const catalog = await catalogStateOf(knex, feed);
  const fc = feedContextOf(feed, await getCurrentSchema(knex, feed.catalog_id), catalog.product_id_field);
  const renderer = rendererOf(feed);
  return { run, feed, catalog, fc, renderer, hash: rowHasher(), grouped: !run.delta && renderer.groupsVariants };
}

/** A page read with all its work needs from the database: the items, their products' data and (a delta run) the item state rows it compares with. */
export interface PageInput {
  read: PageRead;
  parents: Map<string, Record<string, unknown>>;
  /** The rows of the run's base generation among the ids read (`changed`) or in the page's id range (`compare`); null for a full run. */
  base: StateRow[] | null;
}

/**
 * Reads page input after the keyset cursor `after` (see {@link PageInput}). A `compare` delta's
 * range is (`after`, last id read], open-ended on the last page (fewer than `pageItems` read),
 * so the base's items between two exported ids that are not exported now are found as removed.
 */
export async function readPageInput(knex: Knex, rc: RunContext, after: string | null, pageItems: number): Promise<PageInput> {
  const read = rc.grouped
    ? await readGroupedPage(knex, rc.feed.catalog_id, feedFilter(rc.feed, rc.catalog), after, pageItems)
    : await readPage(knex, rc.run, rc.feed, rc.catalog, after, pageItems);
  const parentIds = [...new Set(read.items.map((i) => i.parent_id).filter((p): p is string => p !== null))];
  const parentRows: Array<{ id: string; data: Record<string, unknown> }> = parentIds.length
    ? (await knex.raw('SELECT id, data FROM catalog_items WHERE id = ANY(?::uuid[])', [parentIds])).rows
    : [];
  let base: StateRow[] | null = null;
  if (rc.run.delta) {
    const stateId = rc.run.state_id;
    if (!stateId) base = [];
    else if (rc.run.delta_mode === 'changed') base = await stateRowsOf(knex, stateId, read.ids);
    else base = await stateRowsBetween(knex, stateId, after, read.ids.length < pageItems ? null : read.last);
  }
  return { read, parents: new Map(parentRows.map((p) => [p.id, p.data])), base };
}

/** An item a page exports: its row and the row's hash. */
interface ExportedRow {
  item: PageItem;
  row: FeedRow;
  hash: string;
}

/** What a page writes: its exported rows, issues and counters; a delta page's changed and removed rows; the part's text. */
export interface PageOutput {
  exported: ExportedRow[];
  issues: Array<RowIssue & { item_id: string; sku: string | null }>;
  excluded: number;
  warned: number;
  /** A delta page's rows that are new or differ from the base's (null for a full run). */
  changed: ExportedRow[] | null;
  removed: Array<{ item_id: string; offer_id: string | null }>;
  text: string;
}

/**
 * Maps, checks, hashes and renders a page (pure, no I/O). A delta run's part holds one JSONL
 * line `{"changed": [rows], "removed": []}` of the rows new or different from the base's; the
 * base's items among those compared that are not exported now are its removed ones.
 */
export function buildPageOutput(rc: RunContext, input: PageInput): PageOutput {
  const exported: ExportedRow[] = [];
  const issues: PageOutput['issues'] = [];
  let excluded = 0;
  let warned = 0;
  for (const item of input.read.items) {
    const parent = item.parent_id ? (input.parents.get(item.parent_id) ?? null) : null;
    const row = feedRowOf(rc.fc, rc.feed, item.data, parent);
    const found = rowIssues(rc.fc, row, item.data, parent);
    const sku = item.business_key ?? (typeof item.data.sku === 'string' ? item.data.sku : null);
    for (const i of found) issues.push({ ...i, item_id: item.id, sku });
    if (found.some((i) => i.severity === 'error')) excluded += 1;
    else {
      if (found.length > 0) warned += 1;
      exported.push({ item, row, hash: rc.hash(row) });
    }
  }
  if (!input.base) {
    const text = rc.grouped
      ? renderGroupedPart(rc.renderer, exported, (productId) => feedRowOf(rc.fc, rc.feed, input.parents.get(productId) ?? {}, null))
      : exported.map((e) => rc.renderer.row(e.row)).join('');
    return { exported, issues, excluded, warned, changed: null, removed: [], text };
  }
  const before = new Map(input.base.map((b) => [b.item_id, b.row_hash]));
  const now = new Set(exported.map((e) => e.item.id));
  const changed = exported.filter((e) => before.get(e.item.id) !== e.hash);
  const removed = input.base.filter((b) => !now.has(b.item_id)).map((b) => ({ item_id: b.item_id, offer_id: b.offer_id }));
  const text = changed.length ? JSON.stringify({ changed: changed.map((e) => e.row), removed: [] }) + '\n' : '';
  return { exported, issues, excluded, warned, changed, removed, text };
}

/** Thrown inside a page's transaction when the run is no longer running, to roll the page back. */
class RunStopped extends Error {}

/** A page's answer when the run is no longer running (cancelled). */
const STOPPED = { items_read: 0, exported: 0, excluded: 0, warnings: 0, next: null, stopped: true } as const;

/**
 * Records page `pageIndex` (read after `after`): its part blob first, then in ONE transaction
 * the page row (`ON CONFLICT DO NOTHING` on (run, page)), the run's counters (only while the
 * run is running), its issues and its item state rows: a full run's exported rows into its own
 * generation, a delta's changed rows (`feed_run_items`) and removed ones (`feed_run_removals`).
 * A page already recorded (a retry after its commit) answers what it recorded; a run no longer
 * running rolls the page back and answers `stopped`.
 * @returns the page's counters and the cursor of the next page (null after the last)
 * @throws database or blob store errors (the page is retried)
 */
export async function commitPage(
  knex: Knex,
  blobs: BlobStore,
  rc: RunContext,
  pageIndex: number,
  after: string | null,
  input: PageInput,
  out: PageOutput,
  pageItems: number,
): Promise<FeedPageResult & { stopped?: boolean }> {
  const { run } = rc;
  const partKey = feedPartKey(run, pageIndex);
  await blobs.put(partKey, Buffer.from(out.text, 'utf8'));
  // A delta run's `exported` counts the rows its file carries (new or changed); a `changed`
  // delta's `items_read` counts the ids it looked at, `items` the exportable items among them.
  const counts = {
    items_read: input.read.ids.length,
    items: input.read.items.length,
    exported: out.changed ? out.changed.length : out.exported.length,
    excluded: out.excluded,
    warnings: out.warned,
  };
  const stateRows = (rows: ExportedRow[]): StateRow[] =>
    rows.map((e) => ({ item_id: e.item.id, offer_id: typeof e.row.id === 'string' ? e.row.id : null, row_hash: e.hash }));
  try {
    return await knex.transaction(async (trx) => {
      const inserted = await trx('feed_run_pages')
        .insert({ run_id: run.id, page_index: pageIndex, after_id: after, last_id: input.read.last, part_key: partKey, ...counts })
        .onConflict(['run_id', 'page_index'])
        .ignore()
        .returning('page_index');
      if (inserted.length === 0) return pageResult(await trx('feed_run_pages').where({ run_id: run.id, page_index: pageIndex }).first(), pageItems, rc.grouped);
      const moved = await trx('feed_runs')
        .where({ id: run.id, status: 'running' })
        .increment({ items_read: counts.items_read, items: counts.items, exported: counts.exported, excluded: counts.excluded, warnings: counts.warnings });
      if (moved === 0) throw new RunStopped();
      await insertIssues(trx, run.id, out.issues);
      if (out.changed) {
        await insertStateRows(trx, 'feed_run_items', run.id, stateRows(out.changed));
        await insertRemovals(trx, run.id, out.removed);
      } else await insertStateRows(trx, 'feed_item_state', run.state_id ?? run.id, stateRows(out.exported));
      return pageResult({ ...counts, last_id: input.read.last }, pageItems, rc.grouped);
    });
  } catch (err) {
    if (err instanceof RunStopped) return { ...STOPPED };
    throw err;
  }
}

/** Inserts a page's issues in one statement, `ON CONFLICT DO NOTHING` on (run, item, attribute, code). */
async function insertIssues(trx: Knex.Transaction, runId: string, issues: PageOutput['issues']): Promise<void> {
  if (issues.length === 0) return;
  const col = <K extends keyof PageOutput['issues'][number]>(k: K) => textArray(issues.map((i) => (i[k] ?? null) as string | null));
  await trx.raw(
    `INSERT INTO feed_run_issues (run_id, item_id, sku, attribute, severity, code, message, value)
     SELECT ?, u.* FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS u
     ON CONFLICT (run_id, item_id, attribute, code) DO NOTHING`,
    [runId, col('item_id'), col('sku'), col('attribute'), col('severity'), col('code'), col('message'), col('value')],
  );
}

/** Records a `changed` or `compare` delta page's removed base items, `ON CONFLICT DO NOTHING`. */
async function insertRemovals(trx: Knex.Transaction, runId: string, removed: PageOutput['removed']): Promise<void> {
  if (removed.length === 0) return;
  await trx.raw(
    `INSERT INTO feed_run_removals (run_id, item_id, offer_id)
     SELECT ?, u.item_id, u.offer_id FROM unnest(?::uuid[], ?::text[]) AS u(item_id, offer_id)
     ON CONFLICT (run_id, item_id) DO NOTHING`,
    [runId, removed.map((r) => r.item_id), textArray(removed.map((r) => r.offer_id))],
  );
}

/**
 * Writes page `pageIndex` of a run on its own (the one-page activity of runs started before the
 * streamed pages, ./stream.ts): the items after `after`, read, built and recorded as
 * {@link commitPage} says. A page already recorded answers what it recorded.
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
  const rc = await runContext(knex, runId);
  const recorded = await knex('feed_run_pages').where({ run_id: runId, page_index: pageIndex }).first();
  if (recorded) return pageResult(recorded, pageItems, rc.grouped);
  if (rc.run.status !== 'running') return { ...STOPPED };
  const input = await readPageInput(knex, rc, after, pageItems);
  return commitPage(knex, blobs, rc, pageIndex, after, input, buildPageOutput(rc, input), pageItems);
}

/**
 * A page's answer from its counters: the next cursor is its last id, except after the last page.
 * A page by item is the last when it read fewer than `pageItems` ids; a page of whole products
 * (`grouped`) holds fewer items whenever the next product would not fit, so its recorded
 * `last_id` is the next cursor itself, null after the last product (./group-pages.ts).
 */
export function pageResult(
  p: { items_read: number; exported: number; excluded: number; warnings: number; last_id?: string | null },
  pageItems: number,
  grouped = false,
): FeedPageResult {
  const lastId = p.last_id ?? null;
  return {
    items_read: p.items_read,
    exported: p.exported,
    excluded: p.excluded,
    warnings: p.warnings,
    next: isLastPage(p.items_read, lastId, pageItems, grouped) ? null : lastId,
  };
}

/** Whether a page that read `idsRead` ids and ended at cursor `last` is its run's last (see {@link pageResult}). */
export function isLastPage(idsRead: number, last: string | null, pageItems: number, grouped: boolean): boolean {
  return grouped ? last === null : idsRead < pageItems;
}
