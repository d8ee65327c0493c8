/**
 * Reading items (docs/api-reference.md "Items"): one item by id, a page of the list view with its
 * exact total, and raw pages for full pulls. Single rows are read through the CatalogItem
 * model; pages and totals are set-based SQL (src/services/catalog/items/items-sql.ts).
 */
import type { Knex } from 'knex';
import { errorFields, ForbiddenError, NotFoundError, ValidationError } from '../../../lib/errors';
import { isUuid } from '../../../lib/ids';
import type { Catalog } from '../../../models/catalog';
import { CatalogItem } from '../../../models/catalog-item';
import type { Scope } from '../../access/scope';
import type { CatalogDeps } from '../catalog-caches';
import { loadCatalogOwned } from '../catalogs';
import { isGrouped } from './items-keys';
import { afterCursorSql, filterSql, FORCE_WALK_SQL, ItemCursor, orderSql, SortOrder, walkReadsFewer } from './items-sql';
import { ensureSortKeys, type SortKeyRequester } from './sort-keys';
import { walkSortKeys } from './sorted-walk';
import { listTotal, searchTotal } from '../search/items-search-totals';
import type { SearchIndexBuilds } from '../search/search-index-requests';
import { searchWordsState, type SearchWordsState } from '../search/search-words';

/** The columns of an item as the item routes read it (every column but the derived search ones). */
const ITEM_COLUMNS = [
  'id',
  'catalog_id',
  'entity_type',
  'parent_id',
  'business_key',
  'data',
  'source_info',
  'current_version',
  'created_at',
  'updated_at',
] as const;

/**
 * Loads one item by database id after checking the catalog: 404 when the item is unknown or in
 * another catalog of the organization, 403 when it belongs to another organization.
 */
export async function loadItem(
  knex: Knex | Knex.Transaction,
  scope: Scope,
  catalogId: string,
  itemId: string,
  notFound = 'Item not found',
): Promise<CatalogItem> {
  await loadCatalogOwned(knex, scope, catalogId);
  if (!isUuid(itemId)) throw new NotFoundError(notFound);
  const row = (await CatalogItem.query(knex)
    .alias('ci')
    .join('catalogs as c', 'c.id', 'ci.catalog_id')
    .where('ci.id', itemId)
    .select(...ITEM_COLUMNS.map((c) => `ci.${c}`), 'c.organization_id')
    .first()) as (CatalogItem & { organization_id?: string }) | undefined;
  if (!row) throw new NotFoundError(notFound);
  if (row.organization_id !== scope.organizationId) throw new ForbiddenError();
  if (row.catalog_id !== catalogId) throw new NotFoundError(notFound);
  delete row.organization_id;
  return row;
}

/** Reads one item by id (after a write in the same transaction); undefined when there is none. */
export async function readItem(knex: Knex | Knex.Transaction, id: string): Promise<CatalogItem | undefined> {
  return CatalogItem.query(knex)
    .select(...ITEM_COLUMNS)
    .findById(id);
}

/** Query of `GET …/items` (docs/api-reference.md "Items"), after validation. */
export interface ListItemsQuery {
  limit: number;
  offset: number;
  /** Start after this position instead of at `offset` (keyset paging; offset is then 0). */
  cursor?: ItemCursor;
  search?: string;
  sort_field?: string;
  sort_order: SortOrder;
}

/** One item of a page (before presentation) plus, in grouped catalogs, its variants' data. */
export interface ListedItem extends Pick<CatalogItem, 'id' | 'entity_type' | 'data' | 'current_version'> {
  /** A Date, or an ISO string when the page was assembled as JSON by PostgreSQL. */
  created_at: Date | string;
  updated_at: Date | string;
  variants?: Array<Record<string, unknown>>;
}

/** What listing items needs: the database, the caches and the job runner (search count index builds; sort keys through the field index workflow when it has one). */
export interface ListItemsDeps extends CatalogDeps {
  jobRunner: SearchIndexBuilds & SortKeyRequester['jobRunner'];
}

/** A page of items with its exact total. */
interface ItemPage {
  items: ListedItem[];
  total: number;
  /** The position after the page's last row when the page is full (more may follow), else null. */
  next_cursor?: ItemCursor | null;
}

/** The columns of a list page (docs/api-reference.md "Items"). */
const LIST_COLUMNS = 'id, entity_type, data, created_at, updated_at, current_version';

/**
 * A page of items with the exact total (docs/api-reference.md "Items"). In a product-grouped catalog the page lists
 * top-level items (products and stand-alone items) and each product carries its variants'
 * data, oldest first.
 * @param deps the database, the caches (search totals) and the job runner a search uses to ask
 *   for a search count index build (never awaited: a search does not fail when Temporal is
 *   unreachable)
 * @throws NotFoundError / ForbiddenError for an unknown or foreign catalog
 */
export async function listItems(deps: ListItemsDeps, scope: Scope, catalogId: string, q: ListItemsQuery): Promise<ItemPage> {
  const catalog = await loadCatalogOwned(deps.knex, scope, catalogId);
  const grouped = isGrouped(catalog);
  // A data-field sort of a large catalog: its sort keys asked for (docs/large-catalogs.md "Sorting by a data field").
  const keyed =
    dataSortField(q.sort_field) !== null &&
    (await ensureSortKeys(deps.knex, { jobRunner: deps.jobRunner, caches: deps.caches.catalog }, catalog, q.sort_field!));
  let page: ItemPage;
  try {
    page = q.search ? await searchPage(deps, catalog, grouped, q.search, q, keyed) : await plainPage(deps, catalog, grouped, q, keyed);
  } catch (err) {
    // A forged cursor whose key is no timestamp / JSON value: PostgreSQL's data exception (class 22).
    if (q.cursor && String(errorFields(err).code ?? '').startsWith('22'))
      throw ValidationError.at(['query', 'cursor'], 'Not a cursor of this list: pass the next_cursor of the previous page');
    throw err;
  }
  if (grouped) await attachVariants(deps.knex, page.items);
  return { ...page, next_cursor: page.items.length === q.limit ? await cursorAfter(deps.knex, page.items[page.items.length - 1], q.sort_field) : null };
}

/**
 * The keyset position after `last` for the list's sort: its data value for a data field, else
 * the sort column read back as PostgreSQL text (timestamps keep their microseconds, which a
 * JavaScript Date would drop and so break ties).
 */
async function cursorAfter(knex: Knex, last: ListedItem, sortField: string | undefined): Promise<ItemCursor> {
  if (sortField === 'id') return { k: null, id: last.id };
  const column = !sortField ? 'created_at' : sortField === 'created_at' || sortField === 'updated_at' ? sortField : null;
  if (!column) return { k: Object.hasOwn(last.data, sortField!) ? last.data[sortField!] : null, id: last.id };
  const { rows } = await knex.raw(`SELECT ${column}::text AS k FROM catalog_items WHERE id = ?`, [last.id]);
  return { k: rows[0]?.k ?? null, id: last.id };
}

/** `filter` narrowed to the rows after `q.cursor`, when the query has one. */
function withCursor(filter: { sql: string; bindings: Knex.RawBinding[] }, q: ListItemsQuery): { sql: string; bindings: Knex.RawBinding[] } {
  if (!q.cursor) return filter;
  const after = afterCursorSql(q.sort_field, q.sort_order, 'created_at', q.cursor);
  return { sql: `${filter.sql} AND ${after.sql}`, bindings: [...filter.bindings, ...after.bindings] };
}

/** The data field a list sorts by, or null for a column sort (`created_at`, `updated_at`, `id`) or the default order. */
function dataSortField(field: string | undefined): string | null {
  return field && !['created_at', 'updated_at', 'id'].includes(field) ? field : null;
}

/** Key rows a walk reads at least before it gives up (src/services/catalog/items/sorted-walk.ts). */
const WALK_MIN_BUDGET = 10_000;

/**
 * A page sorted by a data field, read by walking its sort keys when that reads fewer rows than
 * the plain sort (about (offset + limit) × items / matches against every match), in `trx`.
 * @param matches the list's exact total, or the catalog's item count when not yet counted
 * @returns the page, or null when the caller sorts the plain way (keys not ready, walk too long)
 */
async function keyedPage(
  trx: Knex | Knex.Transaction,
  catalog: Catalog,
  where: { sql: string; bindings: Knex.RawBinding[] },
  q: ListItemsQuery,
  matches: number,
): Promise<ListedItem[] | null> {
  const share = matches / Math.max(catalog.item_count, matches, 1);
  const expected = (q.offset + q.limit) / share;
  if (expected > matches / 2) return null;
  const ids = await walkSortKeys(trx, {
    catalogId: catalog.id,
    field: q.sort_field!,
    order: q.sort_order,
    where,
    cursor: q.cursor,
    need: q.offset + q.limit,
    share,
    budget: Math.max(WALK_MIN_BUDGET, Math.ceil(4 * expected)),
  });
  if (!ids) return null;
  const pageIds = ids.slice(q.offset);
  if (pageIds.length === 0) return [];
  const { rows } = await trx.raw(`SELECT ${LIST_COLUMNS} FROM catalog_items WHERE id = ANY(?::uuid[])`, [pageIds]);
  const byId = new Map((rows as ListedItem[]).map((r) => [r.id, r]));
  return pageIds.map((id) => byId.get(id)).filter((r): r is ListedItem => r !== undefined);
}

/**
 * A page without search: the page and the total (from the completeness counters, cached while
 * the catalog is unchanged: listTotal), read concurrently. A data-field sort whose keys are ready walks them (in its own
 * REPEATABLE READ snapshot) instead of sorting every item.
 */
async function plainPage(deps: ListItemsDeps, catalog: Catalog, grouped: boolean, q: ListItemsQuery, keyed: boolean): Promise<ItemPage> {
  const knex = deps.knex;
  const where = filterSql(catalog.id, { top_level: grouped });
  const order = orderSql(q.sort_field, q.sort_order, 'created_at');
  const pageWhere = withCursor(where, q);
  const sorted = async (): Promise<ListedItem[]> => {
    const walked = keyed
      ? await knex.transaction((trx) => keyedPage(trx, catalog, where, q, catalog.item_count), { isolationLevel: 'repeatable read', readOnly: true })
      : null;
    if (walked) return walked;
    const page = await knex.raw(`SELECT ${LIST_COLUMNS} FROM catalog_items WHERE ${pageWhere.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`, [
      ...pageWhere.bindings,
      ...order.bindings,
      q.limit,
      q.offset,
    ]);
    return page.rows as ListedItem[];
  };
  const [items, total] = await Promise.all([sorted(), listTotal(deps.caches.catalog, knex, catalog.id, grouped)]);
  return { items, total };
}

/**
 * A search page, in one REPEATABLE READ read-only transaction so the total and the page see the
 * same snapshot. The exact total comes from the count cache when the catalog's change counter
 * is the one it was counted at, else from the search count index or a GIN bitmap count (see
 * searchTotal; the bitmap of a broad term needs more than the default 4 MB work_mem to stay
 * exact per row, else it turns lossy and every page is rechecked). Then the page by whichever
 * read touches fewer rows: all matches through the bitmap (sorted in memory), or the
 * (catalog_id, created_at, id) index walked in order until the page is full, which visits
 * about (offset + limit) × items / total rows; for a data-field sort whose keys are ready, the
 * keys walked the same way (keyedPage). JIT is off: these statements cost enough to
 * trigger it and its compile time (20–45 ms) is more than it saves on them.
 */
function searchPage(deps: ListItemsDeps, catalog: Catalog, grouped: boolean, search: string, q: ListItemsQuery, keyed: boolean): Promise<ItemPage> {
  const order = orderSql(q.sort_field, q.sort_order, 'created_at');
  return deps.knex.transaction(
    async (trx) => {
      await trx.raw("SET LOCAL work_mem = '64MB'; SET LOCAL jit = off");
      // The change counter (search count cache) and the word index's state, in the page's snapshot.
      const {
        rows: [state],
      } = await trx.raw('SELECT items_rev::text AS rev, search_words_pending FROM catalogs WHERE id = ?', [catalog.id]);
      const { pending_matches, ...words } = await searchWordsState(trx, catalog.id, search, state?.search_words_pending === true);
      const filter = { search, top_level: grouped, ...words };
      const where = filterSql(catalog.id, { ...filter, pending_matches });
      // A walk checks each row it passes, against its current vector alone: it needs no candidates.
      const rowWhere = pending_matches ? filterSql(catalog.id, filter) : where;
      const n = await searchTotal({ caches: deps.caches.catalog, jobRunner: deps.jobRunner }, trx, catalog, state?.rev, grouped, search, where);
      if (n === 0 || q.offset >= n) return { items: [] as ListedItem[], total: n };
      const walked = keyed ? await keyedPage(trx, catalog, rowWhere, q, n) : null;
      if (walked) return { items: walked, total: n };
      const walkable = !q.sort_field || q.sort_field === 'created_at';
      if (walkable && walkReadsFewer(q.offset + q.limit, catalog.item_count, n)) {
        // The exact count says the walk wins: the (catalog_id, created_at, id) index in order.
        await trx.raw(FORCE_WALK_SQL);
        const walkWhere = withCursor(rowWhere, q);
        const page = await trx.raw(`SELECT ${LIST_COLUMNS} FROM catalog_items WHERE ${walkWhere.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`, [
          ...walkWhere.bindings,
          ...order.bindings,
          q.limit,
          q.offset,
        ]);
        return { items: page.rows as ListedItem[], total: n };
      }
      const pageWhere = withCursor(where, q);
      const page = await trx.raw(
        `WITH m AS MATERIALIZED (SELECT ${LIST_COLUMNS} FROM catalog_items WHERE ${pageWhere.sql})
       SELECT * FROM m ORDER BY ${order.sql} LIMIT ? OFFSET ?`,
        [...pageWhere.bindings, ...order.bindings, q.limit, q.offset],
      );
      return { items: page.rows as ListedItem[], total: n };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** Sets `variants` (their data, oldest first) on every product of a page of a grouped catalog. */
async function attachVariants(knex: Knex, items: ListedItem[]): Promise<void> {
  const productIds = items.filter((i) => i.entity_type === 'product').map((i) => i.id);
  if (productIds.length === 0) return;
  const variants = await CatalogItem.query(knex)
    .whereIn('parent_id', productIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('parent_id', 'data');
  const byParent = new Map<string, Array<Record<string, unknown>>>();
  for (const v of variants) {
    let list = byParent.get(v.parent_id as string);
    if (!list) byParent.set(v.parent_id as string, (list = []));
    list.push(v.data);
  }
  for (const item of items) if (item.entity_type === 'product') item.variants = byParent.get(item.id) ?? [];
}

/** Query of `GET …/raw-items` (docs/api-reference.md "Raw items"), after validation. */
export interface RawItemsQuery {
  limit: number;
  offset: number;
  entity_type?: 'product' | 'variant';
  search?: string;
  sort_field?: string;
  sort_order: SortOrder;
}

/**
 * A page of raw rows as ready JSON text `{items: [{id, entity_type, parent_id,
 * current_version, data}], total}` (docs/api-reference.md "Raw items"). The one service that returns wire JSON, on purpose:
 * the document is built by PostgreSQL (`json_agg`) so a 5000-row page costs one query and no
 * per-row work in Node (full pulls are the heaviest reads of the API). Default order is by
 * `id`, a unique key: every row appears exactly once across offset pages while nothing writes.
 */
export async function rawItemsJson(knex: Knex, scope: Scope, catalogId: string, q: RawItemsQuery): Promise<string> {
  await loadCatalogOwned(knex, scope, catalogId);
  if (q.search) {
    // The word index's state and the rows in one snapshot (src/services/catalog/search/search-words.ts).
    return knex.transaction(
      async (trx) => {
        return rawItemsPage(trx, catalogId, q, await searchWordsState(trx, catalogId, q.search as string));
      },
      {
        isolationLevel: 'repeatable read',
        readOnly: true,
      },
    );
  }
  return rawItemsPage(knex, catalogId, q);
}

/** The JSON document of {@link rawItemsJson}, in one statement; `words`: how its search's words are matched (none: no search). */
async function rawItemsPage(knex: Knex | Knex.Transaction, catalogId: string, q: RawItemsQuery, words?: SearchWordsState): Promise<string> {
  const where = filterSql(catalogId, { search: q.search, entity_type: q.entity_type, ...words });
  const order = orderSql(q.sort_field, q.sort_order, 'id');
  const { rows } = await knex.raw(
    `SELECT json_build_object(
       'items', coalesce((
         SELECT json_agg(json_build_object('id', p.id, 'entity_type', p.entity_type, 'parent_id', p.parent_id,
                                           'current_version', p.current_version, 'data', p.data) ORDER BY p.ord)
         FROM (SELECT id, entity_type, parent_id, current_version, data, row_number() OVER (ORDER BY ${order.sql}) AS ord
               FROM catalog_items WHERE ${where.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?) p), '[]'::json),
       'total', (SELECT count(*) FROM catalog_items WHERE ${where.sql}))::text AS body`,
    [...order.bindings, ...where.bindings, ...order.bindings, q.limit, q.offset, ...where.bindings],
  );
  return rows[0].body as string;
}
