import type { Knex } from 'knex';
import { ConflictError, errorFields, ForbiddenError, NotFoundError, ValidationDetail, ValidationError } from '../../lib/errors';
import { isUuid, newId } from '../../lib/ids';
import type { Catalog } from '../../models/catalog';
import { evolveSchema, getCurrentSchema, itemValidator, lockCatalog } from './schema';
import { wordsColumn, wordsPending } from './search-words';
import { loadOwned } from '../access/ownership';
import type { Scope } from '../access/scope';
import { countWithSearchIndex, requestSearchIndexBuild, SEARCH_INDEX_MIN_ITEMS, SearchIndexBuilds } from './search-count-index';

/**
 * Catalog items, products and variants (decisions.md §3, G6–G10, G12). Every write runs in one
 * transaction that locks the catalog row, so identity look-ups and `catalogs.item_count` stay
 * exact under concurrent writers; batches are written with one set-based statement.
 */

/** A stored item row (table `catalog_items`, without the derived `search_text`). */
export interface ItemRow {
  id: string;
  catalog_id: string;
  entity_type: 'product' | 'variant';
  parent_id: string | null;
  business_key: string | null;
  data: Record<string, unknown>;
  source_info: Record<string, unknown> | null;
  current_version: number;
  created_at: Date;
  updated_at: Date;
}

/** The key flattened clients use for an item's database id inside `data` (decisions.md §3). */
export const ITEM_ID_KEY = '__catalog_item_id';

/** Most items per bulk request (interface-spec.md, Limits); more is a 413. */
export const BULK_ITEMS_LIMIT = 1000;

/** Sort direction of list and raw-item queries. */
export type SortOrder = 'asc' | 'desc';

/** Column sorts; any other sort field is a top-level key of `data`, passed as a bound parameter. */
const SORT_COLUMNS: Record<string, string> = { created_at: 'created_at', updated_at: 'updated_at', id: 'id' };

/**
 * Loads a catalog of the scope's organization (decisions.md §1).
 * @throws NotFoundError (404) unknown catalog; ForbiddenError (403) another organization's
 */
export function loadCatalog(knex: Knex | Knex.Transaction, scope: Scope, catalogId: string): Promise<Catalog> {
  return loadOwned<Catalog>(knex, 'catalogs', catalogId, scope, 'Catalog not found');
}

/** True when the catalog groups variants under products (decisions.md §3). */
export function isGrouped(catalog: Pick<Catalog, 'product_enabled' | 'product_id_field'>): boolean {
  return catalog.product_enabled || Boolean(catalog.product_id_field);
}

/**
 * The business key of item data: the value of the catalog's `unique_id_field` as text, or null
 * when absent, empty or not a string/number (decisions.md §3, item identity).
 */
export function businessKeyOf(data: Record<string, unknown>, field: string): string | null {
  const value = data[field];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value;
  return null;
}

/**
 * The search text of item data: its string and number values at any depth, lower-cased and
 * joined by spaces (the same rule as the SQL function `catalog_item_search_text`, which fills
 * the column for writers that do not supply it).
 */
export function searchTextOf(data: unknown): string {
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (typeof v === 'number') parts.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(data);
  return parts.join(' ').toLowerCase();
}

/** Largest word the SQL function `catalog_item_search_tsv` keeps (tsvector lexemes are < 2047 bytes). */
const MAX_WORD_BYTES = 2046;

/**
 * The words of a search text as `catalog_item_search_tsv` splits them (maximal runs of
 * `[[:alnum:]]`, distinct, shorter than 2047 bytes), for the INSERT to build `search_tsv` with
 * `array_to_tsvector` instead of the trigger's SQL regexp split (~40 µs a row). Only for
 * ASCII text, where `[[:alnum:]]` is `[A-Za-z0-9]` in every locale; for other text it returns
 * null and the trigger computes the vector in PostgreSQL, so both paths give the same lexemes.
 */
export function searchWordsOf(text: string): string[] | null {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(text)) return null;
  const words = new Set<string>();
  for (const w of text.split(/[^A-Za-z0-9]+/)) if (w !== '' && w.length <= MAX_WORD_BYTES) words.add(w);
  return [...words];
}

/**
 * Loads one item by database id after checking the catalog: 404 when the item is unknown or in
 * another catalog of the organization, 403 when it belongs to another organization.
 */
export async function loadItem(knex: Knex | Knex.Transaction, scope: Scope, catalogId: string, itemId: string, notFound = 'Item not found'): Promise<ItemRow> {
  await loadCatalog(knex, scope, catalogId);
  if (!isUuid(itemId)) throw new NotFoundError(notFound);
  const row = await knex('catalog_items as ci')
    .join('catalogs as c', 'c.id', 'ci.catalog_id')
    .where('ci.id', itemId)
    .first('ci.id', 'ci.catalog_id', 'ci.entity_type', 'ci.parent_id', 'ci.business_key', 'ci.data', 'ci.source_info', 'ci.current_version', 'ci.created_at', 'ci.updated_at', 'c.organization_id');
  if (!row) throw new NotFoundError(notFound);
  if (row.organization_id !== scope.organizationId) throw new ForbiddenError();
  if (row.catalog_id !== catalogId) throw new NotFoundError(notFound);
  delete row.organization_id;
  return row as ItemRow;
}

/** Filters of list and raw-item queries. */
export interface ItemFilter {
  search?: string;
  entity_type?: 'product' | 'variant';
  /** Only items without a parent (product-grouped list view); search then also matches through variants. */
  top_level?: boolean;
  /**
   * The catalog's `search_words_pending`, read in the query's snapshot: words are then matched
   * without the word index (src/services/catalog/search-words.ts).
   */
  words_pending?: boolean;
}

/**
 * The search condition of a term over `search_tsv`/`search_text` (see {@link filterSql}):
 * word-prefix match of every word, plus a literal substring match when the term holds
 * characters other than letters, digits and white space. `wordsPending`: the catalog's word
 * index is behind a restore, so the words are matched against each row's current vector
 * (src/services/catalog/search-words.ts).
 */
export function searchSql(term: string, wordsPending = false): { sql: string; bindings: Knex.RawBinding[] } {
  const lowered = term.toLowerCase();
  const literal = "search_text LIKE ? ESCAPE '\\'";
  const pattern = '%' + lowered.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
  const words = `${wordsColumn(wordsPending)} @@ catalog_item_search_query(?)`;
  const hasWord = /[\p{L}\p{N}]/u.test(lowered);
  const hasOther = /[^\p{L}\p{N}\s]/u.test(lowered);
  if (!hasWord) return { sql: literal, bindings: [pattern] };
  if (!hasOther) return { sql: words, bindings: [lowered] };
  return { sql: `(${words} AND ${literal})`, bindings: [lowered, pattern] };
}

/**
 * True when a search term is matched by its words alone (letters, digits and white space, at
 * least one word): {@link searchSql} then adds no literal `LIKE` condition.
 */
export function isWordsOnlyTerm(term: string): boolean {
  return /[\p{L}\p{N}]/u.test(term) && !/[^\p{L}\p{N}\s]/u.test(term);
}

/** A `WHERE` clause with its bindings (always scoped to one catalog). */
export function filterSql(catalogId: string, f: ItemFilter): { sql: string; bindings: Knex.RawBinding[] } {
  const parts = ['catalog_id = ?'];
  const bindings: Knex.RawBinding[] = [catalogId];
  if (f.entity_type) {
    parts.push('entity_type = ?');
    bindings.push(f.entity_type);
  }
  if (f.top_level) parts.push('parent_id IS NULL');
  if (f.search !== undefined && f.search !== '') {
    // Word search (decisions.md §3, G6, case-insensitive over the item's text values): every
    // word of the term (a run of letters/digits) must start a word of the item's text values,
    // in any order (`search_tsv`, GIN over (catalog_id, search_tsv), exact without recheck;
    // counting through it still reads every matching heap page, so large catalogs count
    // words-only terms with the search count index, see searchTotal). A term with other
    // characters (identifiers such as `sku-123`, URLs, `100%`) must also occur literally
    // (`search_text LIKE`, wildcards matched literally); a term without any word is only that
    // literal match. In the grouped (top-level) view a product also matches through any of
    // its variants.
    const { sql, bindings: b } = searchSql(f.search, f.words_pending);
    if (f.top_level) {
      parts.push(`(${sql} OR id IN (SELECT v.parent_id FROM catalog_items v
                  WHERE v.catalog_id = ? AND v.parent_id IS NOT NULL AND ${sql.replace(/search_(tsv|text)/g, 'v.search_$1')}))`);
      bindings.push(...b, catalogId, ...b);
    } else {
      parts.push(sql);
      bindings.push(...b);
    }
  }
  return { sql: parts.join(' AND '), bindings };
}

/**
 * An `ORDER BY` list: the sort field (a column, or `data -> <bound key>`, so a field name can
 * never inject SQL), then `id` so ties are stable and offset pages never overlap (G6, G12).
 * Missing values sort last in both directions.
 */
export function orderSql(field: string | undefined, order: SortOrder, fallback: 'created_at' | 'id'): { sql: string; bindings: Knex.RawBinding[] } {
  const dir = order === 'desc' ? 'DESC' : 'ASC';
  if (!field) return fallback === 'id' ? { sql: `id ${dir}`, bindings: [] } : { sql: `created_at ${dir}, id ${dir}`, bindings: [] };
  const column = SORT_COLUMNS[field];
  if (column === 'id') return { sql: `id ${dir}`, bindings: [] };
  if (column) return { sql: `${column} ${dir}, id ASC`, bindings: [] };
  return { sql: `data -> ? ${dir} NULLS LAST, id ASC`, bindings: [field] };
}

/** Query of `GET …/items` (G6), after validation. */
export interface ListItemsQuery {
  limit: number;
  offset: number;
  search?: string;
  sort_field?: string;
  sort_order: SortOrder;
}

/** One item of a page (before presentation) plus, in grouped catalogs, its variants' data. */
export interface ListedItem extends Pick<ItemRow, 'id' | 'entity_type' | 'data' | 'current_version'> {
  /** A Date, or an ISO string when the page was assembled as JSON by PostgreSQL. */
  created_at: Date | string;
  updated_at: Date | string;
  variants?: Array<Record<string, unknown>>;
}

/** Most entries of the search count cache (an entry is ~200 bytes). */
const SEARCH_TOTALS_MAX = 20000;

/**
 * Search count cache: exact totals by (catalog, grouped view, lower-cased term), each stored
 * with the catalog's `items_rev` it was counted at. `items_rev` is bumped by statement
 * triggers in the same statement as every INSERT/UPDATE/DELETE of the catalog's items
 * (migration 20261121170000), and the counter and the count are read in one snapshot, so an
 * entry whose counter equals the current one is the exact total of that snapshot; any write
 * makes every entry of the catalog miss. Per process, least recently used evicted.
 */
const searchTotals = new Map<string, { rev: string; total: number }>();

/** Hits and misses of the search count cache since start (benchmarks report them). */
export const searchTotalStats = { hits: 0, misses: 0 };

/** Empties the search count cache (tests, benchmarks measuring cold requests). */
export function clearSearchTotals(): void {
  searchTotals.clear();
}

/** Search totals counted since start, by how (benchmarks report them). */
export const searchCountStats = { index: 0, rare: 0, gin: 0 };

/**
 * The exact number of items matching a search filter, from the count cache when still valid,
 * else counted and cached. A words-only term in a catalog that is not product-grouped is
 * counted by the search count index when the catalog has one (src/services/catalog/search-count-index.ts:
 * postings for frequent words, the GIN index for rare ones, without reading the heap per
 * match); otherwise, or when the index is missing or too many items changed since it was built,
 * by a GIN bitmap count, which reads every matching heap page, and a large catalog's index is
 * (re)built by a Temporal workflow that this asks for without waiting
 * ({@link requestSearchIndexBuild}; if Temporal is unreachable the total is still the GIN
 * count). Call inside a REPEATABLE READ transaction: the counter read (`rev`, the catalog's
 * `items_rev` read in it) and the count then share the snapshot of the page read that follows.
 */
async function searchTotal(jobRunner: SearchIndexBuilds, trx: Knex.Transaction, catalog: Catalog, rev: string | undefined, grouped: boolean, search: string, where: { sql: string; bindings: Knex.RawBinding[] }): Promise<number> {
  const catalogId = catalog.id;
  const key = `${catalogId}\u0000${grouped ? 'g' : 'f'}\u0000${search.toLowerCase()}`;
  const hit = searchTotals.get(key);
  if (rev !== undefined && hit && hit.rev === rev) {
    searchTotals.delete(key);
    searchTotals.set(key, hit);
    searchTotalStats.hits++;
    return hit.total;
  }
  searchTotalStats.misses++;
  let total: number | null = null;
  if (!grouped && isWordsOnlyTerm(search.toLowerCase())) {
    const counted = await countWithSearchIndex(trx, catalogId, search.toLowerCase());
    if ('total' in counted) {
      total = counted.total;
      searchCountStats[counted.path]++;
    } else if (counted.fallback === 'words_pending' || (counted.fallback !== 'no_words' && catalog.item_count >= SEARCH_INDEX_MIN_ITEMS)) {
      // Behind a restore: the same workflow catches the word index up first (search-words.ts).
      requestSearchIndexBuild(jobRunner, catalog, { wordsPending: counted.fallback === 'words_pending' });
    }
  }
  if (total === null) {
    total = (await trx.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows[0].n as number;
    searchCountStats.gin++;
  }
  if (rev !== undefined) {
    searchTotals.delete(key);
    if (searchTotals.size >= SEARCH_TOTALS_MAX) searchTotals.delete(searchTotals.keys().next().value as string);
    searchTotals.set(key, { rev, total });
  }
  return total;
}

/**
 * A page of items with the exact total (G6). In a product-grouped catalog the page lists
 * top-level items (products and stand-alone items) and each product carries its variants'
 * data, oldest first.
 * @param deps the database, and the job runner a search uses to ask for a search count index
 *   build (never awaited: a search does not fail when Temporal is unreachable)
 * @throws NotFoundError / ForbiddenError for an unknown or foreign catalog
 */
export async function listItems(deps: { knex: Knex; jobRunner: SearchIndexBuilds }, scope: Scope, catalogId: string, q: ListItemsQuery): Promise<{ items: ListedItem[]; total: number }> {
  const { knex, jobRunner } = deps;
  const catalog = await loadCatalog(knex, scope, catalogId);
  const grouped = isGrouped(catalog);
  const order = orderSql(q.sort_field, q.sort_order, 'created_at');
  let items: ListedItem[];
  let total: number;
  const columns = 'id, entity_type, data, created_at, updated_at, current_version';
  if (q.search) {
    // Search, in one REPEATABLE READ read-only transaction so the total and the page see the
    // same snapshot. The exact total comes from the count cache when the catalog's change
    // counter is the one it was counted at, else from the search count index or a GIN bitmap
    // count (see searchTotal; the bitmap of a broad term needs more than the default 4 MB
    // work_mem to stay exact per row, else it turns lossy and every page is rechecked). Then
    // the page by whichever read
    // touches fewer rows: all matches through the bitmap (sorted in memory), or the
    // (catalog_id, created_at, id) index walked in order until the page is full, which visits
    // about (offset + limit) × items / total rows. JIT is off: these statements cost enough
    // to trigger it and its compile time (20–45 ms) is more than it saves on them.
    const search = q.search;
    ({ items, total } = await knex.transaction(async (trx) => {
      await trx.raw("SET LOCAL work_mem = '64MB'; SET LOCAL jit = off");
      // The change counter (search count cache) and the word index's state, in the page's snapshot.
      const { rows: [state] } = await trx.raw('SELECT items_rev::text AS rev, search_words_pending FROM catalogs WHERE id = ?', [catalogId]);
      const where = filterSql(catalogId, { search, top_level: grouped, words_pending: state?.search_words_pending === true });
      const n = await searchTotal(jobRunner, trx, catalog, state?.rev, grouped, search, where);
      if (n === 0 || q.offset >= n) return { items: [] as ListedItem[], total: n };
      const walkable = !q.sort_field || q.sort_field === 'created_at';
      const walkRows = ((q.offset + q.limit) * Math.max(catalog.item_count, n)) / n;
      if (walkable && walkRows < n) {
        // The planner may not know how common the words are; the exact count says the walk wins.
        await trx.raw('SET LOCAL enable_bitmapscan = off');
        const page = await trx.raw(`SELECT ${columns} FROM catalog_items WHERE ${where.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`, [...where.bindings, ...order.bindings, q.limit, q.offset]);
        return { items: page.rows as ListedItem[], total: n };
      }
      const page = await trx.raw(
        `WITH m AS MATERIALIZED (SELECT ${columns} FROM catalog_items WHERE ${where.sql})
         SELECT * FROM m ORDER BY ${order.sql} LIMIT ? OFFSET ?`,
        [...where.bindings, ...order.bindings, q.limit, q.offset],
      );
      return { items: page.rows as ListedItem[], total: n };
    }, { isolationLevel: 'repeatable read', readOnly: true }));
  } else {
    const where = filterSql(catalogId, { top_level: grouped });
    const [page, count] = await Promise.all([
      knex.raw(
        `SELECT ${columns} FROM catalog_items WHERE ${where.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`,
        [...where.bindings, ...order.bindings, q.limit, q.offset],
      ),
      knex.raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings),
    ]);
    items = page.rows as ListedItem[];
    total = count.rows[0].n;
  }
  const productIds = items.filter((i) => i.entity_type === 'product').map((i) => i.id);
  if (grouped && productIds.length > 0) {
    const variants = await knex('catalog_items').whereIn('parent_id', productIds).orderBy([{ column: 'created_at' }, { column: 'id' }]).select('parent_id', 'data');
    const byParent = new Map<string, Array<Record<string, unknown>>>();
    for (const v of variants) {
      let list = byParent.get(v.parent_id);
      if (!list) byParent.set(v.parent_id, (list = []));
      list.push(v.data);
    }
    for (const item of items) if (item.entity_type === 'product') item.variants = byParent.get(item.id) ?? [];
  }
  return { items, total };
}

/** Query of `GET …/raw-items` (G12), after validation. */
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
 * current_version, data}], total}` (G12). The document is built by PostgreSQL (`json_agg`) so
 * a 5000-row page costs one query and no per-row work in Node. Default order is by `id`, a
 * unique key: every row appears exactly once across offset pages while nothing writes.
 */
export async function rawItemsJson(knex: Knex, scope: Scope, catalogId: string, q: RawItemsQuery): Promise<string> {
  await loadCatalog(knex, scope, catalogId);
  if (q.search) {
    // The word index's state and the rows in one snapshot (src/services/catalog/search-words.ts).
    return knex.transaction(async (trx) => rawItemsPage(trx, catalogId, q, await wordsPending(trx, catalogId)), { isolationLevel: 'repeatable read', readOnly: true });
  }
  return rawItemsPage(knex, catalogId, q, false);
}

/** The JSON document of {@link rawItemsJson}, in one statement. */
async function rawItemsPage(knex: Knex | Knex.Transaction, catalogId: string, q: RawItemsQuery, wordsPending: boolean): Promise<string> {
  const where = filterSql(catalogId, { search: q.search, entity_type: q.entity_type, words_pending: wordsPending });
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

/** One failed entry of a batch write (G9 `errors[]`), with a kind single-item routes map to a status. */
export interface ItemError {
  index: number;
  detail: string;
  kind: 'invalid' | 'not_found' | 'conflict' | 'duplicate';
  /** Schema validation problems (strict mode), `loc` relative to the item data. */
  details?: ValidationDetail[];
}

/** Options of one batch write. */
export interface WriteOptions {
  source_info?: Record<string, unknown> | null;
  /** Overrides the catalog's `auto_evolve_schema` for this request (G9). */
  auto_evolve_schema?: boolean;
  /** Writes every item as a variant of this product, with `shared` data laid over each (G10). */
  parent?: { id: string; shared: Record<string, unknown> };
  /** Identity of item `i` is this database id (PUT …/items/{id}); else `__catalog_item_id` or the business key. */
  ids?: Array<string | undefined>;
}

/** Outcome of one batch write (the G9 counters, plus the id written for each input index). */
export interface WriteResult {
  items_processed: number;
  items_created: number;
  items_updated: number;
  items_failed: number;
  schema_evolved: boolean;
  new_schema_version?: string;
  errors: ItemError[];
  /** Database id written for each input index (undefined for failed entries). */
  ids: Array<string | undefined>;
}

interface Candidate {
  index: number;
  explicitId?: string;
  key: string | null;
  /** The product business id named by the incoming data (product-grouped catalogs, bulk writes). */
  pid: string | null;
  data: Record<string, unknown>;
}

/** Identity of a candidate inside one payload: database id, business key, or (keyless) product business id. */
function identityOf(c: Candidate): string | null {
  if (c.explicitId) return `id:${c.explicitId}`;
  if (c.key !== null) return `key:${c.key}`;
  if (c.pid !== null) return `pid:${c.pid}`;
  return null;
}

/** A row of the set-based write. */
interface WriteRow {
  id: string;
  ord: number;
  entity_type: string;
  parent_id: string | null;
  business_key: string | null;
  data: Record<string, unknown>;
  search_text: string;
  /** Words of `search_text` ({@link searchWordsOf}); null lets the trigger build `search_tsv`. */
  search_words: string[] | null;
}

/** Sets the derived search columns of a write row from its data. */
function withSearch(row: WriteRow): WriteRow {
  row.search_text = searchTextOf(row.data);
  row.search_words = searchWordsOf(row.search_text);
  return row;
}

/**
 * The products of a catalog by business id (`data[pidField]`), among product rows without a
 * business key: one set-based look-up, the word index narrowing the rows (a product's id value
 * is one of its text values; each row's current vector while the index is behind a restore,
 * read after the writer locked the catalog, see search-words.ts) and `data->>pidField`
 * deciding. The oldest wins when several products share a business id.
 */
async function productsByBusinessId(trx: Knex.Transaction, catalogId: string, pidField: string, pids: string[]): Promise<Map<string, ItemRow>> {
  if (pids.length === 0) return new Map();
  const { rows } = await trx.raw(
    `SELECT DISTINCT ON (pid) * FROM (
       SELECT data->>? AS pid, id, entity_type, parent_id, business_key, data, current_version, created_at
       FROM catalog_items
       WHERE catalog_id = ? AND entity_type = 'product' AND parent_id IS NULL AND business_key IS NULL
         AND ${wordsColumn(await wordsPending(trx, catalogId))} @@ (SELECT string_agg('(' || catalog_item_search_query(p)::text || ')', ' | ')::tsquery FROM unnest(?::text[]) AS p)
         AND data->>? = ANY(?::text[])) x
     ORDER BY pid, created_at, id`,
    [pidField, catalogId, pids, pidField, pids],
  );
  return new Map(rows.map((r: ItemRow & { pid: string }) => [r.pid, r]));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Upserts a batch of items into a catalog inside `trx` (decisions.md §3, G7/G9/G10).
 *
 * Identity per item: `opts.ids[i]`, else `__catalog_item_id` in the data (removed from the
 * stored data), else the business key (`unique_id_field`), else a new item. Updates merge the
 * given fields over the stored data (fields not given keep their values) and add 1 to
 * `current_version`. With several items of the same identity, the last wins and the earlier
 * ones are reported as `duplicate` errors. `strict_mode` validates the merged data with the
 * current schema (after auto-evolution, which runs once per call when enabled). All valid rows
 * are written by ONE `INSERT … ON CONFLICT (id) DO UPDATE`; `catalogs.item_count` grows by the
 * rows created. One bad item never fails the others.
 *
 * Product-grouped catalogs (`product_enabled` or `product_id_field` set; decisions.md §3),
 * outside the product routes (`opts.parent`): an item whose data names a product business id
 * in `data[product_id_field]` is, without a business key of its own, that product (matched to
 * the existing product row of that business id, else created), and with a business key a
 * variant linked to that product (`entity_type` variant, `parent_id` the product). Products
 * are found with one set-based look-up; a product named only by variants is created with the
 * business id and the `product_*` fields of its last variant in the payload (not validated
 * against the item schema, which describes variants; counted in `item_count` but not in
 * `items_created`). Items without the field keep their current grouping.
 * @throws NotFoundError (404) when the catalog vanished; ConflictError (409) when a concurrent
 *   writer outside this service took a business key between look-up and write
 */
export async function writeItems(trx: Knex.Transaction, scope: Scope, catalog: Catalog, input: unknown[], opts: WriteOptions = {}): Promise<WriteResult> {
  await lockCatalog(trx, catalog.id);
  // A batch may fill the word index's pending list, whose merge then runs in this statement
  // with work_mem as its sort memory: 4 MB merges it in many small passes.
  if (input.length > 100) await trx.raw("SET LOCAL work_mem = '64MB'");
  // Product-grouped catalogs (decisions.md §3): outside the product routes, an item naming a
  // product business id in data[product_id_field] is that product (no business key of its own)
  // or a variant linked to it.
  const pidField = !opts.parent && isGrouped(catalog) && catalog.product_id_field && catalog.product_id_field !== catalog.unique_id_field ? catalog.product_id_field : null;
  const errors: ItemError[] = [];
  const candidates: Candidate[] = [];
  input.forEach((raw, index) => {
    if (!isPlainObject(raw)) {
      errors.push({ index, detail: 'Item must be a JSON object', kind: 'invalid' });
      return;
    }
    const data: Record<string, unknown> = { ...raw };
    const givenId = opts.ids?.[index] ?? data[ITEM_ID_KEY];
    delete data[ITEM_ID_KEY];
    if (givenId !== undefined && (typeof givenId !== 'string' || !isUuid(givenId))) {
      errors.push({ index, detail: `Unknown ${ITEM_ID_KEY}: ${JSON.stringify(givenId)}`, kind: 'not_found' });
      return;
    }
    if (opts.parent) Object.assign(data, opts.parent.shared);
    candidates.push({ index, explicitId: givenId as string | undefined, key: businessKeyOf(data, catalog.unique_id_field), pid: pidField ? businessKeyOf(data, pidField) : null, data });
  });

  // Same identity twice in one payload: the last occurrence wins.
  const lastByIdentity = new Map<string, number>();
  for (const c of candidates) {
    const identity = identityOf(c);
    if (identity) lastByIdentity.set(identity, c.index);
  }
  const unique = candidates.filter((c) => {
    const identity = identityOf(c);
    const winner = identity ? lastByIdentity.get(identity) : c.index;
    if (winner !== c.index) errors.push({ index: c.index, detail: `Duplicate in payload: superseded by the item at index ${winner}`, kind: 'duplicate' });
    return winner === c.index;
  });

  let evolved: { evolved: boolean; new_schema_version?: string } = { evolved: false };
  if ((opts.auto_evolve_schema ?? catalog.auto_evolve_schema) && unique.length > 0) {
    evolved = await evolveSchema(trx, scope, catalog.id, unique.map((c) => c.data), 'Auto-evolved from item upsert');
  }

  const ids = unique.filter((c) => c.explicitId).map((c) => c.explicitId as string);
  const keys = unique.filter((c) => c.key !== null).map((c) => c.key as string);
  const existing: ItemRow[] = ids.length + keys.length === 0 ? [] : (await trx.raw(
    `SELECT id, entity_type, parent_id, business_key, data, current_version FROM catalog_items
     WHERE catalog_id = ? AND (id = ANY(?::uuid[]) OR business_key = ANY(?::text[]))`,
    [catalog.id, ids, keys],
  )).rows;
  const byId = new Map(existing.map((r) => [r.id, r]));
  const byKey = new Map(existing.filter((r) => r.business_key !== null).map((r) => [r.business_key as string, r]));
  const products = pidField ? await productsByBusinessId(trx, catalog.id, pidField, [...new Set(unique.filter((c) => c.pid !== null).map((c) => c.pid as string))]) : new Map<string, ItemRow>();
  /** Product row id per product business id: existing products, then the payload's own. */
  const productIds = new Map([...products].map(([pid, r]) => [pid, r.id]));
  /** Variant rows whose parent is resolved once every product of the payload is known. */
  const linkLater: Array<{ row: WriteRow; pid: string; data: Record<string, unknown> }> = [];

  const validate = catalog.strict_mode ? itemValidator(await getCurrentSchema(trx, catalog.id)) : null;
  const rows: WriteRow[] = [];
  const written = new Map<string, number>();
  for (const c of unique) {
    let current: ItemRow | undefined;
    if (c.explicitId) {
      current = byId.get(c.explicitId);
      if (!current) {
        errors.push({ index: c.index, detail: `Item ${c.explicitId} not found in this catalog`, kind: 'not_found' });
        continue;
      }
      const holder = c.key !== null ? byKey.get(c.key) : undefined;
      if (holder && holder.id !== current.id) {
        errors.push({ index: c.index, detail: `${catalog.unique_id_field} ${JSON.stringify(c.key)} already belongs to item ${holder.id}`, kind: 'conflict' });
        continue;
      }
    } else if (c.key !== null) {
      current = byKey.get(c.key);
    } else if (c.pid !== null) {
      current = products.get(c.pid);
    }
    const data = current ? { ...current.data, ...c.data } : c.data;
    const problems = validate ? validate(data) : [];
    if (problems.length > 0) {
      errors.push({ index: c.index, detail: problems.map((p) => `${p.loc.join('.') || 'data'}: ${p.msg}`).join('; '), kind: 'invalid', details: problems });
      continue;
    }
    const id = current?.id ?? newId();
    if (written.has(id)) {
      // An id-addressed item and a key-addressed item resolved to the same row: the later wins.
      const earlier = written.get(id) as number;
      errors.push({ index: earlier, detail: `Duplicate in payload: superseded by the item at index ${c.index}`, kind: 'duplicate' });
      rows.splice(rows.findIndex((r) => r.id === id), 1);
    }
    written.set(id, c.index);
    const row: WriteRow = {
      id,
      ord: c.index,
      entity_type: opts.parent ? 'variant' : current?.entity_type ?? 'product',
      parent_id: opts.parent ? opts.parent.id : current?.parent_id ?? null,
      business_key: businessKeyOf(data, catalog.unique_id_field),
      data,
      search_text: '',
      search_words: null,
    };
    withSearch(row);
    if (c.pid !== null) {
      if (row.business_key === null) {
        row.entity_type = 'product';
        row.parent_id = null;
        productIds.set(c.pid, id);
      } else {
        linkLater.push({ row, pid: c.pid, data });
      }
    }
    rows.push(row);
  }

  // Variants link to their product by business id; a product named by no row yet is created
  // (its data: the business id and the product_* fields of its last variant in the payload).
  const autoProducts = new Set<string>();
  for (const { row, pid, data } of linkLater) {
    let parent = productIds.get(pid);
    if (!parent) {
      parent = newId();
      productIds.set(pid, parent);
      autoProducts.add(parent);
      rows.push({ id: parent, ord: row.ord, entity_type: 'product', parent_id: null, business_key: null, data: { [pidField as string]: data[pidField as string] }, search_text: '', search_words: null });
    }
    if (autoProducts.has(parent)) {
      const product = rows.find((r) => r.id === parent) as WriteRow;
      for (const [k, v] of Object.entries(data)) if (k.startsWith('product_')) product.data[k] = v;
      product.ord = Math.min(product.ord, row.ord);
    }
    row.entity_type = 'variant';
    row.parent_id = parent;
  }
  for (const r of rows) if (autoProducts.has(r.id)) withSearch(r);

  let created = 0;
  let inserted = 0;
  if (rows.length > 0) {
    try {
      // created_at advances by one microsecond per payload position, so the default list order
      // (created_at, id) is the payload order.
      const { rows: out } = await trx.raw(
        `INSERT INTO catalog_items (id, catalog_id, entity_type, parent_id, business_key, data, search_text, search_tsv, source_info, current_version, created_at, updated_at)
         SELECT x.id, ?, x.entity_type, x.parent_id, x.business_key, x.data, x.search_text, array_to_tsvector(x.search_words), ?::jsonb, 1, now() + x.ord * interval '1 microsecond', now()
         FROM jsonb_to_recordset(?::jsonb) AS x(id uuid, ord int, entity_type text, parent_id uuid, business_key text, data jsonb, search_text text, search_words text[])
         ON CONFLICT (id) DO UPDATE SET entity_type = EXCLUDED.entity_type, parent_id = EXCLUDED.parent_id,
           business_key = EXCLUDED.business_key, data = EXCLUDED.data, search_text = EXCLUDED.search_text, search_tsv = EXCLUDED.search_tsv, source_info = EXCLUDED.source_info,
           current_version = catalog_items.current_version + 1, updated_at = now()
         RETURNING id, (xmax = 0) AS inserted`,
        [catalog.id, opts.source_info ? JSON.stringify(opts.source_info) : null, JSON.stringify(rows)],
      );
      inserted = out.filter((r: { inserted: boolean }) => r.inserted).length;
      created = out.filter((r: { id: string; inserted: boolean }) => r.inserted && !autoProducts.has(r.id)).length;
    } catch (err) {
      if (errorFields(err).code === '23505') throw new ConflictError(`A ${catalog.unique_id_field} in this request was written concurrently; retry the request`);
      throw err;
    }
    if (inserted > 0) await trx('catalogs').where('id', catalog.id).increment('item_count', inserted);
  }

  const idsOut: Array<string | undefined> = new Array(input.length).fill(undefined);
  for (const [id, index] of written) idsOut[index] = id;
  errors.sort((a, b) => a.index - b.index);
  return {
    items_processed: input.length,
    items_created: created,
    items_updated: rows.length - autoProducts.size - created,
    items_failed: errors.length,
    schema_evolved: evolved.evolved,
    ...(evolved.new_schema_version ? { new_schema_version: evolved.new_schema_version } : {}),
    errors,
    ids: idsOut,
  };
}

/**
 * Turns the single error of a one-item write into the HTTP error of a single-item route:
 * schema problems → 422 with `loc` under `locPrefix`; unknown id → 404; key taken → 409.
 */
export function throwSingleItemError(e: ItemError, locPrefix: Array<string | number>): never {
  if (e.kind === 'not_found') throw new NotFoundError('Item not found');
  if (e.kind === 'conflict') throw new ConflictError(e.detail);
  if (e.details) throw new ValidationError(e.details.map((d) => ({ ...d, loc: [...locPrefix, ...d.loc] })));
  throw ValidationError.at(locPrefix, e.detail);
}

/** Reads one item row by id (after a write in the same transaction). */
async function readRow(knex: Knex | Knex.Transaction, id: string): Promise<ItemRow> {
  return knex('catalog_items').where('id', id).first('id', 'catalog_id', 'entity_type', 'parent_id', 'business_key', 'data', 'source_info', 'current_version', 'created_at', 'updated_at');
}

/**
 * Upserts one item (G7): identity from `__catalog_item_id` or the business key in `data`
 * (`unique_identifier` is required by the request shape and otherwise ignored).
 * @returns the stored row
 * @throws ValidationError (422, strict mode), NotFoundError (404), ForbiddenError (403), ConflictError (409)
 */
export async function upsertItem(knex: Knex, scope: Scope, catalogId: string, data: Record<string, unknown>, sourceInfo?: Record<string, unknown>): Promise<ItemRow> {
  return knex.transaction(async (trx) => {
    const catalog = await loadCatalog(trx, scope, catalogId);
    const result = await writeItems(trx, scope, catalog, [data], { source_info: sourceInfo });
    if (result.errors.length > 0) throwSingleItemError(result.errors[0], ['body', 'data']);
    return readRow(trx, result.ids[0] as string);
  });
}

/**
 * Partial update of one item by database id (`PUT …/items/{item_id}`): only the given fields
 * change; `current_version` + 1.
 * @throws NotFoundError (404), ForbiddenError (403), ValidationError (422, strict mode), ConflictError (409, business key taken)
 */
export async function updateItem(knex: Knex, scope: Scope, catalogId: string, itemId: string, patch: Record<string, unknown>): Promise<ItemRow> {
  return knex.transaction(async (trx) => {
    const item = await loadItem(trx, scope, catalogId, itemId);
    const catalog = await loadCatalog(trx, scope, catalogId);
    const result = await writeItems(trx, scope, catalog, [patch], {
      ids: [item.id],
      ...(item.parent_id ? { parent: { id: item.parent_id, shared: {} } } : {}),
    });
    if (result.errors.length > 0) throwSingleItemError(result.errors[0], ['body']);
    return readRow(trx, item.id);
  });
}

/**
 * Deletes one item; deleting a product deletes its variants too. `item_count` drops by the
 * rows removed (G8).
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function deleteItem(knex: Knex, scope: Scope, catalogId: string, itemId: string): Promise<void> {
  await knex.transaction(async (trx) => {
    const item = await loadItem(trx, scope, catalogId, itemId);
    await lockCatalog(trx, catalogId);
    const removed = await trx('catalog_items').where('catalog_id', catalogId).andWhere((q) => q.where('id', item.id).orWhere('parent_id', item.id)).delete();
    await trx('catalogs').where('id', catalogId).decrement('item_count', removed);
  });
}

/** Body of `POST …/items/bulk` (G9). */
export interface BulkItemsInput {
  items: unknown[];
  source_info?: Record<string, unknown>;
  auto_evolve_schema?: boolean;
}

/**
 * Bulk upsert (G9), see {@link writeItems}. The caller enforces the 1000-item limit (413).
 * @returns the G9 counters without `success` and `ids`
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function bulkUpsertItems(knex: Knex, scope: Scope, catalogId: string, body: BulkItemsInput): Promise<WriteResult> {
  return knex.transaction(async (trx) => {
    const catalog = await loadCatalog(trx, scope, catalogId);
    return writeItems(trx, scope, catalog, body.items, { source_info: body.source_info, auto_evolve_schema: body.auto_evolve_schema });
  });
}

/**
 * Copies every item of one catalog into another (catalog duplicate with `include_items`, G1):
 * one `INSERT … SELECT` giving each row a new id, remapping `parent_id` to the copies, keeping
 * data, search columns (a pending word vector becomes the copy's `search_tsv`), versions and timestamps. Adds the number copied to the target catalog's
 * `item_count`.
 * @returns the number of items copied
 */
export async function copyCatalogItems(trx: Knex.Transaction, fromCatalogId: string, toCatalogId: string): Promise<number> {
  const result = await trx.raw(
    `WITH m AS (SELECT id AS old_id, gen_random_uuid() AS new_id FROM catalog_items WHERE catalog_id = ?)
     INSERT INTO catalog_items (id, catalog_id, entity_type, parent_id, business_key, data, search_text, search_tsv, source_info, current_version, created_at, updated_at)
     SELECT m.new_id, ?, ci.entity_type, pm.new_id, ci.business_key, ci.data, ci.search_text, ${wordsColumn(true, 'ci')}, ci.source_info, ci.current_version, ci.created_at, ci.updated_at
     FROM catalog_items ci JOIN m ON m.old_id = ci.id LEFT JOIN m pm ON pm.old_id = ci.parent_id`,
    [fromCatalogId, toCatalogId],
  );
  const copied = result.rowCount as number;
  if (copied > 0) await trx('catalogs').where('id', toCatalogId).increment('item_count', copied);
  return copied;
}
