/**
 * The item grid of the catalog console: one page of a catalog's items under the
 * grid's query (src/services/catalog/grid/item-grid-query.ts) with each item's completeness (and, for
 * products, how many variants are complete), keyset paging with the items API's cursor
 * (items-sql.ts: the same order and `afterCursorSql`), a count that is exact up to
 * {@link COUNT_CAP} and said to be more beyond it, or the planner's estimate when that is far above
 * the cap ({@link ESTIMATE_FACTOR}), and the taxonomy tree's item counts.
 */
import type { Knex } from 'knex';
import { ValidationError } from '../../../lib/errors';
import type { Catalog } from '../../../models/catalog';
import type { CatalogSchema } from '../../../models/catalog-schema';
import type { ReadinessProfile } from '../../../models/readiness-profile';
import type { Scope } from '../../access/scope';
import type { CatalogDeps } from '../catalog-caches';
import { getCatalog } from '../catalogs';
import {
  CATEGORY_FIELD,
  CATEGORY_SQL,
  completeSql,
  completenessOf,
  readySql,
  requiredFields,
  subtreeIds,
  type Completeness,
  type RequiredRules,
} from './completeness';
import { gridIndexRows, neededGridIndexes, type GridIndexRow } from './grid-indexes';
import { keyCandidateSql, keyedFields, keyedSortedRows, ROW_COLUMNS, type PageRows, type RawRow } from './grid-keys';
import { emptySql, filterConditionSql, GRID_KEY_SQL, rangeBounds, readWithoutJit, type GridQuery, type SqlPart } from './item-grid-query';
import { isGrouped } from '../items/items-keys';
import { afterCursorSql, filterSql, FORCE_WALK_SQL, isWordsOnlyTerm, orderSql, walkReadsFewer, type ItemCursor, type SortOrder } from '../items/items-sql';
import { countBySearchIndex, type SearchTotalDeps } from '../search/items-search-totals';
import { searchWordsState, type SearchWordsState } from '../search/search-words';
import { fieldTypeOf } from '../schema/schema';
import { taxonomyOf, type EnrichedTaxonomy } from '../taxonomy';

/** Counts above this are shown as "10,000+" (counting further would read every match). */
export const COUNT_CAP = 10_000;
/**
 * A count is estimated instead of counted when the planner expects at least this many times
 * {@link COUNT_CAP} matches ({@link ESTIMATE_ABOVE}, 50,000). Below it the capped count runs (it
 * reads at most 10,001 matches). The margin: the planner's estimate of one `eq`/`in`/`range`
 * condition from the grid's statistics (grid-indexes.ts) is typically within tens of percent; a
 * conjunction of conditions (assumed independent) or a value whose share in this catalog differs
 * from the table's can be off a few times; only an estimate five times too high could show
 * "about 50,000" for fewer than 10,000 matches, and the page still says it is an estimate.
 * ("counts exact where cheap, otherwise capped and said so".)
 */
export const ESTIMATE_FACTOR = 5;
/** Planner estimates at or above this many matches are shown as estimates (5 × {@link COUNT_CAP}). */
export const ESTIMATE_ABOVE = ESTIMATE_FACTOR * COUNT_CAP;
/** Catalogs up to this many items get exact taxonomy tree counts (one grouped scan); larger ones capped per node. */
export const EXACT_TREE_ITEMS = 100_000;
/** Per-node cap of the tree counts of larger catalogs. */
export const TREE_COUNT_CAP = 1_000;
/** Nodes counted in larger catalogs (one index probe each); beyond, nodes show no count. */
const TREE_COUNTED_NODES = 200;

/** What every grid and completeness read needs of a catalog: the catalog, its schema and taxonomy, its required rules, field types. */
export interface GridCatalog {
  catalog: Catalog;
  schema: CatalogSchema;
  taxonomy: EnrichedTaxonomy | null;
  rules: RequiredRules;
  /** Field → its type: the schema's properties (fieldTypeOf), then the taxonomy's attributes. */
  types: Record<string, string>;
  /** Whether the list is product-grouped (top-level items, variants under their product). */
  grouped: boolean;
}

/**
 * Loads a catalog for the grid or the completeness page.
 * @throws NotFoundError (404) / ForbiddenError (403) for an unknown or foreign catalog
 */
export async function loadGridCatalog(deps: CatalogDeps, scope: Scope, catalogId: string): Promise<GridCatalog> {
  const { catalog, schema } = await getCatalog(deps.knex, scope, catalogId);
  const taxonomy = taxonomyOf(deps.caches.catalog.taxonomies, schema).taxonomy;
  const properties = schema.schema_definition.properties ?? {};
  const types: Record<string, string> = Object.fromEntries(Object.entries(properties).map(([f, p]) => [f, fieldTypeOf(p)]));
  // Taxonomy attributes are fields of the items too (docs/api-reference.md "Taxonomy"): filterable and shown as columns.
  for (const node of Object.values(taxonomy?.nodes ?? {}))
    for (const a of node.attributes) if (!Object.hasOwn(types, a.name)) types[a.name] = typeof a.type === 'string' ? a.type : 'string';
  const schemaRequired = (schema.schema_definition.required ?? []).filter((f) => typeof f === 'string');
  return { catalog, schema, taxonomy, rules: { schemaRequired, taxonomy }, types, grouped: isGrouped(catalog) };
}

/** One row of the grid. */
export interface GridRow {
  id: string;
  entity_type: string;
  data: Record<string, unknown>;
  updated_at: string;
  completeness: Completeness;
  /** Products of a grouped catalog: their variants, and how many are complete (variant values over the product's). */
  variants?: { total: number; complete: number };
}

/**
 * How a grid page's `count` was found: `exact` (counted, or the catalog's item count), `capped`
 * (more than {@link COUNT_CAP} matches; `count` is the cap), `estimated` (the planner's row
 * estimate, at least {@link ESTIMATE_ABOVE}; not counted).
 */
export type GridCountKind = 'exact' | 'capped' | 'estimated';

/** A grid page. */
export interface GridPage {
  rows: GridRow[];
  /** Matching items: exact, the cap, or the planner's estimate, as `count_kind` says. */
  count: number;
  count_kind: GridCountKind;
  /** The cursor of the next page, or null on the last. */
  next_cursor: ItemCursor | null;
}

/** SQL: the item's category is none of the taxonomy's nodes (missing, blank or unknown). */
function unclassifiedSql(taxonomy: EnrichedTaxonomy | null): SqlPart {
  const ids = Object.keys(taxonomy?.nodes ?? {});
  if (!ids.length) return { sql: 'true', bindings: [] };
  return { sql: `coalesce(${CATEGORY_SQL}, '') NOT IN (${ids.map(() => '?').join(', ')})`, bindings: ids };
}

/**
 * The `WHERE` of a grid query: the catalog (top-level items when grouped), the search, the
 * taxonomy node (its subtree) or `unclassified`, the missing field, the filters, completeness, the readiness
 * state under `profile` (required when the query names one).
 * @throws ValidationError (422) for a taxonomy node the catalog does not have
 */
export function gridWhereSql(c: GridCatalog, q: Omit<GridQuery, 'dir'>, profile?: ReadinessProfile, words?: SearchWordsState): SqlPart {
  const base = filterSql(c.catalog.id, { search: q.q, top_level: c.grouped, ...(words ?? { words_pending: c.catalog.search_words_pending }) });
  const parts: SqlPart[] = [base];
  if (q.category === 'unclassified') parts.push(unclassifiedSql(c.taxonomy));
  else if (q.category) {
    const ids = subtreeIds(c.taxonomy, q.category);
    if (!ids.length) throw ValidationError.at(['query', 'category'], `No taxonomy node "${q.category}" in this catalog`);
    parts.push({ sql: `${CATEGORY_SQL} IN (${ids.map(() => '?').join(', ')})`, bindings: ids });
  }
  if (q.missing) parts.push(emptySql(q.missing));
  for (const f of q.filters) parts.push(filterConditionSql(f, c.types[f.field] ?? 'string'));
  if (q.complete) {
    const cs = completeSql(c.rules);
    parts.push(q.complete === 'yes' ? cs : { sql: `NOT ${cs.sql}`, bindings: cs.bindings });
  }
  if (q.readiness && profile) {
    const r = readySql(profile, c.types);
    parts.push(q.readiness.state === 'ready' ? r : { sql: `NOT ${r.sql}`, bindings: r.bindings });
  }
  return { sql: parts.map((p) => p.sql).join(' AND '), bindings: parts.flatMap((p) => p.bindings) };
}

/** True when the query narrows nothing (the catalog's own item count is then the exact count). */
function unfiltered(q: Omit<GridQuery, 'dir'>): boolean {
  return !q.q && !q.category && !q.missing && !q.filters.length && !q.readiness && !q.complete;
}

/**
 * A page's own part of its statement, written over the matches' columns `id`, `created_at`,
 * `updated_at` and `k` (`key`: the data sort key, when the page has one): `rest`, its conditions
 * (the cursor, the key's presence), and `order`.
 */
interface PagePart {
  key: SqlPart | null;
  rest: SqlPart;
  order: string;
}

/**
 * The `want` rows of a page: the rows matching `where` and then `part.rest`, in `part.order`.
 * Plain, one statement over a sub-select the planner merges into it, so it may walk the index of
 * the order and filter row by row, expecting the matches early in it; that holds for matches
 * spread evenly, but matches the order keeps for last (a filter correlated with the sort: a price
 * range sorted by stock) make the walk read most of the catalog (180,096 rows, 0.7 s at 1,000,000
 * items, docs/benchmarks.md "console-grid"). `matchesFirst` (queries whose planner estimate,
 * resting on statistics, is small; {@link gridPage}): every match is read first through its own
 * index (a sub-select with a window function is never merged into the ordered walk), counted
 * (`total`: exact, so the page needs no second read for its count) and its ids and sort keys
 * sorted, a cost bounded by the number of matches; then the page's rows are read by id.
 */
async function pageRows(knex: Knex, where: SqlPart, part: PagePart, want: number, matchesFirst: boolean): Promise<PageRows> {
  const k = part.key ? `, ${part.key.sql} AS k` : '';
  const bindings = [...(part.key?.bindings ?? []), ...where.bindings, ...part.rest.bindings, want];
  if (!matchesFirst) {
    const sql = `SELECT ${ROW_COLUMNS} FROM (SELECT id, entity_type, data, created_at, updated_at${k} FROM catalog_items WHERE ${where.sql}) m
                 WHERE ${part.rest.sql} ORDER BY ${part.order} LIMIT ?`;
    return { rows: (await readWithoutJit<RawRow>(knex, sql, bindings)).rows };
  }
  const sql = `SELECT id, total FROM (SELECT id, created_at, updated_at${k}, (count(*) OVER ())::int AS total FROM catalog_items WHERE ${where.sql}) m
               WHERE ${part.rest.sql} ORDER BY ${part.order} LIMIT ?`;
  const page = (await readWithoutJit<{ id: string; total: number }>(knex, sql, bindings)).rows;
  if (!page.length) return { rows: [] };
  const rows = (await knex.raw(
    `SELECT ${ROW_COLUMNS} FROM unnest(?::uuid[]) WITH ORDINALITY AS p(page_id, ord) JOIN catalog_items ON id = p.page_id ORDER BY p.ord`,
    [page.map((r) => r.id)],
  )) as { rows: RawRow[] };
  return { rows: rows.rows, total: page[0].total };
}

/** True when `sort` is a data field (not a column sort, nor the default order). */
function dataSort(sort: string | undefined): sort is string {
  return Boolean(sort) && sort !== 'created_at' && sort !== 'updated_at';
}

/**
 * The rows of a page sorted by a data field: those with a value in the sort direction (ties by
 * id in the same direction), then the missing values (and JSON nulls) by id ascending, as two
 * statements that sort the matching rows (the plain way: small catalogs, a field whose keys are
 * not ready, or the matches read first; a keyed field walks its keys, grid-keys.ts).
 */
async function dataSortedRows(
  knex: Knex,
  where: SqlPart,
  field: string,
  dir: SortOrder,
  cursor: ItemCursor | undefined,
  want: number,
  matchesFirst: boolean,
): Promise<PageRows> {
  const d = dir === 'desc' ? 'DESC' : 'ASC';
  const key = { sql: GRID_KEY_SQL, bindings: [field] };
  const inTail = cursor !== undefined && (cursor.k === null || cursor.k === undefined);
  const head: PageRows = inTail
    ? { rows: [] }
    : await pageRows(
        knex,
        where,
        {
          key,
          rest: cursor
            ? { sql: `k IS NOT NULL AND (k, id) ${dir === 'desc' ? '<' : '>'} (?::jsonb, ?::uuid)`, bindings: [JSON.stringify(cursor.k), cursor.id] }
            : { sql: 'k IS NOT NULL', bindings: [] },
          order: `k ${d}, id ${d}`,
        },
        want,
        matchesFirst,
      );
  if (head.rows.length >= want) return head;
  const tail = await pageRows(
    knex,
    where,
    { key, rest: inTail ? { sql: 'k IS NULL AND id > ?::uuid', bindings: [cursor.id] } : { sql: 'k IS NULL', bindings: [] }, order: 'id' },
    want - head.rows.length,
    matchesFirst,
  );
  return { rows: [...head.rows, ...tail.rows], total: head.total ?? tail.total };
}

/** Options of {@link gridPage}. */
export interface GridPageOptions {
  /** Planner estimates at or above this many matches are shown as estimates (default {@link ESTIMATE_ABOVE}; tests lower it). */
  estimateAbove?: number;
  /**
   * The app's catalog caches and job runner: a words-only search is counted by the catalog's
   * search count index, whose (re)build is asked for when it is missing or stale, as the items
   * API's searches do ({@link searchIndexCount}).
   */
  searchTotals: SearchTotalDeps;
  /**
   * The catalog's grid index rows when the caller read them already (the console page, which
   * asked for the missing ones first; grid-indexes.ts gridIndexRows); else read when needed.
   */
  gridIndexes?: ReadonlyArray<Pick<GridIndexRow, 'field' | 'kind' | 'state'>>;
}

/**
 * Whether statistics estimate a filter's range: any bound of a text range, a lower bound of a
 * number range (an upper bound alone keeps a type test no statistics cover, item-grid-query.ts);
 * `..` alone means "not empty", which none estimate. Other operators: true.
 */
function rangeEstimable(f: GridQuery['filters'][number], type: string | undefined): boolean {
  if (f.op !== 'range') return true;
  const { lo, hi } = rangeBounds(f);
  return type === 'number' || type === 'integer' ? Boolean(lo) : Boolean(lo || hi);
}

/**
 * Whether the planner's row estimate of a grid query rests on statistics: the catalog, the
 * top-level test and the word search (column statistics of `catalog_id`, `parent_id`,
 * `search_tsv`), a taxonomy node (statistics of the expression index
 * `catalog_items_category_id`), and `eq` / `in` / `range` filters ({@link rangeEstimable})
 * whose grid field index is ready in this catalog (it comes with an extended statistics object
 * on its expression, grid-indexes.ts). Anything else the planner only guesses (half the rows for a boolean
 * expression, 0.5 % for an unknown value, 99.5 % for its negation, 1 − 0.5 % per value for a
 * `NOT IN`): `missing`, `empty`, `notempty`, `contains`, `not.` filters, completeness,
 * readiness, `unclassified` (a `NOT IN` over another expression), a search of a grouped catalog
 * (an `OR` with a sub-select over the variants, not left to the planner's guess), a field
 * without its index. Those are counted, never estimated.
 */
async function estimable(
  knex: Knex,
  c: GridCatalog,
  q: GridQuery,
  known: ReadonlyArray<Pick<GridIndexRow, 'field' | 'kind' | 'state'>> | undefined,
): Promise<boolean> {
  if (q.missing || q.complete || q.readiness || q.category === 'unclassified' || (q.q && c.grouped)) return false;
  if (q.filters.some((f) => f.negate || !['eq', 'in', 'range'].includes(f.op) || !rangeEstimable(f, c.types[f.field]))) return false;
  if (!q.filters.length) return true;
  const needs = q.filters.map((f) => neededGridIndexes({ filters: [f] }, c.types)[0]);
  if (needs.some((n) => n === undefined)) return false;
  const ready = (known ?? (await gridIndexRows(knex, c.catalog.id))).filter((r) => r.state === 'ready');
  return needs.every((n) => ready.some((r) => r.field === n.field && r.kind === n.kind));
}

/**
 * The planner's estimate of the rows matching `where` (`EXPLAIN (FORMAT JSON)`, planned with the
 * bound values, not run: about a millisecond).
 */
async function plannerEstimate(knex: Knex, where: SqlPart): Promise<number> {
  const res = (await knex.raw(`EXPLAIN (FORMAT JSON) SELECT 1 FROM catalog_items WHERE ${where.sql}`, where.bindings)) as {
    rows: Array<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>;
  };
  return Number(res.rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0);
}

/**
 * The exact count of a grid query that is a words-only search and nothing else, from the
 * catalog's search count index (the one behind the items API's exact search totals,
 * search-count-index.ts: postings, not a heap read per match), or null when the query is anything
 * else, the catalog is product-grouped, or the index cannot answer (missing, stale, words
 * pending): then a large catalog's index (re)build is asked for, as the items API's searches do
 * ({@link countBySearchIndex}). Read in one REPEATABLE READ, read-only transaction.
 */
async function searchIndexCount(knex: Knex, c: GridCatalog, q: GridQuery, searchTotals: SearchTotalDeps): Promise<number | null> {
  const term = q.q?.toLowerCase();
  if (!term || c.grouped || !isWordsOnlyTerm(term) || !unfiltered({ ...q, q: undefined })) return null;
  return knex.transaction((trx) => countBySearchIndex(searchTotals, trx, c.catalog, term), { isolationLevel: 'repeatable read', readOnly: true });
}

/**
 * The count of a grid query: the catalog's item count when nothing narrows it (exact); a
 * words-only search's exact count from the search count index when it can answer
 * ({@link searchIndexCount}); the planner's estimate when the catalog holds at least `estimateAbove` items, the query is
 * {@link estimable} and the estimate reaches `estimateAbove` (at most the catalog's item count;
 * nothing read from the table); else the capped count, which reads at most {@link COUNT_CAP} + 1
 * matching rows through the same indexes as the page (a filter matching nothing is one key
 * probe once the field's grid index is built, grid-keys.ts).
 */
async function gridCount(
  knex: Knex,
  c: GridCatalog,
  q: GridQuery,
  where: SqlPart,
  estimateAbove: number,
  estimate: number | null,
  searchTotals: SearchTotalDeps,
): Promise<{ count: number; kind: GridCountKind }> {
  if (unfiltered(q) && !c.grouped) return { count: c.catalog.item_count, kind: 'exact' };
  const indexed = await searchIndexCount(knex, c, q, searchTotals);
  if (indexed !== null) return { count: indexed, kind: 'exact' };
  if (estimate !== null && estimate >= estimateAbove) return { count: Math.min(Math.round(estimate), c.catalog.item_count), kind: 'estimated' };
  const counted = countRows(
    await readWithoutJit<{ n: number }>(knex, `SELECT count(*)::int AS n FROM (SELECT 1 FROM catalog_items WHERE ${where.sql} LIMIT ?) s`, [
      ...where.bindings,
      COUNT_CAP + 1,
    ]),
  );
  return counted > COUNT_CAP ? { count: COUNT_CAP, kind: 'capped' } : { count: counted, kind: 'exact' };
}

/**
 * One page of `limit` grid rows after `q.cursor`, sorted by `q.sort` (a schema field, `created_at`
 * or `updated_at`; default newest first) then id, and the count ({@link gridCount}: exact, capped,
 * or estimated). First the planner's estimate of the matches, when it rests on statistics
 * ({@link estimable}; a large catalog and a filtered query; about a millisecond): at or above
 * `estimateAbove` the count shows it, below it the page reads the matches first and sorts them
 * ({@link pageStatement}: the cost bounded by their number, whatever the order; not for a word
 * search or several conditions, whose estimate takes them as independent and may fall far
 * short; the page's rows then also give the exact count). Otherwise the page and the count are
 * read concurrently. A first page that is also the last holds every match: its
 * count is exact whatever the count said (a planner estimate far too high for a value rare in
 * this catalog is corrected there). A search while the catalog's word index catches up is read in
 * one snapshot with the items the delta names ({@link catchUpPage}).
 */
export async function gridPage(
  knex: Knex,
  c: GridCatalog,
  q: GridQuery,
  profile: ReadinessProfile | undefined,
  limit: number,
  options: GridPageOptions,
): Promise<GridPage> {
  const r: PageRequest = { c, q, profile, limit, options };
  // While the catalog's word index catches up, a search reads the flag, the items whose pending
  // words may match and its rows in one snapshot (docs/large-catalogs.md "Searches while the word
  // index catches up"); the flag of the catalog row loaded before only says to look.
  if (q.q && c.catalog.search_words_pending)
    return knex.transaction(
      async (trx) => {
        const words = await searchWordsState(trx, c.catalog.id, q.q as string);
        return words.pending_matches ? catchUpPage(trx, r, words) : readGridPage(trx, r, words);
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
  return readGridPage(knex, r);
}

/** The arguments of {@link gridPage} its steps read. */
interface PageRequest {
  c: GridCatalog;
  q: GridQuery;
  profile: ReadinessProfile | undefined;
  limit: number;
  options: GridPageOptions;
}

/** {@link gridPage} with the search's words matched as `words` says (default: the loaded catalog's flag). */
async function readGridPage(knex: Knex, { c, q, profile, limit, options }: PageRequest, words?: SearchWordsState): Promise<GridPage> {
  const where = gridWhereSql(c, q, profile, words);
  const estimateAbove = options.estimateAbove ?? ESTIMATE_ABOVE;
  const estimate =
    !unfiltered(q) && c.catalog.item_count >= estimateAbove && (await estimable(knex, c, q, options.gridIndexes)) ? await plannerEstimate(knex, where) : null;
  // One condition only: the planner multiplies the shares of several as if independent, and
  // an estimate too small would make the page read far more matches than it expected.
  const matchesFirst = estimate !== null && estimate < estimateAbove && !q.q && q.filters.length + (q.category ? 1 : 0) === 1;
  // The count and the rows read through the keys of keyed fields (grid-keys.ts); the estimate
  // above is the planner's over the filters alone (a candidate test would count twice in it).
  const keyed = await keyedFields(knex, c.catalog.id, { sort: dataSort(q.sort) ? q.sort : undefined, filters: q.filters });
  const read = andSql([where, ...keyCandidateSql(c.catalog.id, q.filters, c.types, keyed)]);
  const count = () => gridCount(knex, c, q, read, estimateAbove, estimate, options.searchTotals);
  // Reading the matches first counts them too; a page past the last match has no row to say so.
  // A keyed sort walks the sort key B-tree with the filters alone: their candidate tests would
  // make the planner expect few matches and read them all to sort them.
  const rows =
    dataSort(q.sort) && !matchesFirst && keyed.get(q.sort)?.sortable
      ? keyedSortedRows(knex, c.catalog.id, where, q.sort, q.dir, q.cursor, limit + 1)
      : pageOf(knex, q, read, limit, matchesFirst);
  const [page, early] = await Promise.all([rows, matchesFirst ? null : count()]);
  const counted = early ?? (page.total !== undefined ? { count: page.total, kind: 'exact' as const } : await count());
  return gridRows(knex, c, q, page, counted, limit);
}

/**
 * {@link gridPage} of a search during a word-index catch-up whose delta names the items that may
 * match (`words.pending_matches`): counted first (exact or capped, never estimated), then the
 * cheaper read by that count, as the items API's searches do (items-read.ts): the walk of the
 * page's order, each row checked against its current vector, forced when it passes fewer rows
 * than there are matches (items-sql.ts `walkReadsFewer`); else the word index's candidates plus
 * those items.
 */
async function catchUpPage(trx: Knex.Transaction, { c, q, profile, limit, options }: PageRequest, words: SearchWordsState): Promise<GridPage> {
  const where = gridWhereSql(c, q, profile, words);
  const counted = await gridCount(trx, c, q, where, ESTIMATE_ABOVE, null, options.searchTotals);
  const walk = walkReadsFewer(limit + 1, c.catalog.item_count, counted.count);
  if (walk) await trx.raw(FORCE_WALK_SQL);
  const rowWhere = walk ? gridWhereSql(c, q, profile, { ...words, pending_matches: undefined }) : where;
  return gridRows(trx, c, q, await pageOf(trx, q, rowWhere, limit, false), counted, limit);
}

/** Conditions joined by AND. */
function andSql(parts: SqlPart[]): SqlPart {
  return parts.length === 1 ? parts[0] : { sql: parts.map((p) => p.sql).join(' AND '), bindings: parts.flatMap((p) => p.bindings) };
}

/** The rows of a grid page (one more than `limit`, to tell whether another page follows) in its order after its cursor. */
function pageOf(knex: Knex, q: GridQuery, where: SqlPart, limit: number, matchesFirst: boolean): Promise<PageRows> {
  if (dataSort(q.sort)) return dataSortedRows(knex, where, q.sort, q.dir, q.cursor, limit + 1, matchesFirst);
  const order = orderSql(q.sort, q.dir, 'created_at');
  const after = q.cursor ? afterCursorSql(q.sort, q.dir, 'created_at', q.cursor) : null;
  return pageRows(knex, where, { key: null, rest: after ?? { sql: 'true', bindings: [] }, order: order.sql }, limit + 1, matchesFirst);
}

/** A {@link GridPage} from the rows read (`limit` + 1 at most) and the count: completeness, variants, the next cursor. */
async function gridRows(
  knex: Knex,
  c: GridCatalog,
  q: GridQuery,
  page: PageRows,
  counted: { count: number; kind: GridCountKind },
  limit: number,
): Promise<GridPage> {
  const raw = page.rows;
  const more = raw.length > limit;
  const rows = raw.slice(0, limit);
  const variants = c.grouped
    ? await variantsOf(
        knex,
        rows.filter((r) => r.entity_type === 'product').map((r) => r.id),
      )
    : new Map();
  const out: GridRow[] = rows.map((r) => {
    const row: GridRow = {
      id: r.id,
      entity_type: r.entity_type,
      data: r.data,
      updated_at: r.updated_key,
      completeness: completenessOf(r.data, requiredFields(c.rules, r.data[CATEGORY_FIELD])),
    };
    if (r.entity_type === 'product' && c.grouped) {
      const vs = (variants.get(r.id) ?? []).map((v: Record<string, unknown>) => ({ ...r.data, ...v }));
      row.variants = {
        total: vs.length,
        complete: vs.filter((v: Record<string, unknown>) => completenessOf(v, requiredFields(c.rules, v[CATEGORY_FIELD])).missing.length === 0).length,
      };
    }
    return row;
  });
  const whole = !q.cursor && !more;
  const last = rows[rows.length - 1];
  return {
    rows: out,
    count: whole ? rows.length : counted.count,
    count_kind: whole ? 'exact' : counted.kind,
    next_cursor: more && last ? cursorOf(last, q.sort) : null,
  };
}

function countRows(res: { rows: Array<{ n: number }> }): number {
  return res.rows[0]?.n ?? 0;
}

/** The keyset position after a row for sort `sort` (items-sql.ts ItemCursor). */
function cursorOf(row: { id: string; data: Record<string, unknown>; created_key: string; updated_key: string }, sort: string | undefined): ItemCursor {
  if (!sort || sort === 'created_at') return { k: row.created_key, id: row.id };
  if (sort === 'updated_at') return { k: row.updated_key, id: row.id };
  const v = row.data[sort];
  return { k: v === undefined ? null : v, id: row.id };
}

/** Variants' data by product id. */
async function variantsOf(knex: Knex, productIds: string[]): Promise<Map<string, Array<Record<string, unknown>>>> {
  const byParent = new Map<string, Array<Record<string, unknown>>>();
  if (!productIds.length) return byParent;
  const rows = (await knex('catalog_items').whereIn('parent_id', productIds).orderBy(['created_at', 'id']).select('parent_id', 'data')) as Array<{
    parent_id: string;
    data: Record<string, unknown>;
  }>;
  for (const v of rows) {
    let list = byParent.get(v.parent_id);
    if (!list) byParent.set(v.parent_id, (list = []));
    list.push(v.data);
  }
  return byParent;
}

/** Item counts of the taxonomy tree: per node its own items (not its subtree's), and the unclassified ones. */
export interface TreeCounts {
  /** Node id → items in that node exactly; absent when not counted. */
  own: Record<string, number>;
  unclassified: number | null;
  /** True when counts stop at {@link TREE_COUNT_CAP} ("1,000+"). */
  capped: boolean;
}

/**
 * The tree counts of a catalog, from the app's cache while the catalog's `items_rev` (bumped by
 * every item write) is the one they were counted at, else counted ({@link countTree}).
 */
export async function treeCounts(deps: CatalogDeps, c: GridCatalog): Promise<TreeCounts> {
  const cache = deps.caches.catalog.gridTreeCounts;
  const key = `${c.catalog.id}:${c.schema.id}`;
  const hit = cache.get(key);
  if (hit && hit.rev === String(c.catalog.items_rev)) return { own: hit.own, unclassified: hit.unclassified, capped: hit.capped };
  const counts = await countTree(deps.knex, c);
  cache.set(key, { rev: String(c.catalog.items_rev), ...counts });
  return counts;
}

/**
 * Counts the tree: exact (one grouped scan) up to {@link EXACT_TREE_ITEMS} items; larger catalogs
 * count each of the first nodes up to {@link TREE_COUNT_CAP} through the category index, and
 * the unclassified items likewise.
 */
async function countTree(knex: Knex, c: GridCatalog): Promise<TreeCounts> {
  const ids = Object.keys(c.taxonomy?.nodes ?? {});
  const base = filterSql(c.catalog.id, { top_level: c.grouped });
  if (c.catalog.item_count <= EXACT_TREE_ITEMS) {
    const { rows } = await knex.raw(
      `SELECT coalesce(${CATEGORY_SQL}, '') AS c, count(*)::int AS n FROM catalog_items WHERE ${base.sql} GROUP BY 1`,
      base.bindings,
    );
    const own: Record<string, number> = {};
    let unclassified = 0;
    for (const r of rows as Array<{ c: string; n: number }>) {
      if (Object.hasOwn(c.taxonomy?.nodes ?? {}, r.c)) own[r.c] = r.n;
      else unclassified += r.n;
    }
    return { own, unclassified, capped: false };
  }
  const capped = async (extra: SqlPart): Promise<number> => {
    const { rows } = await knex.raw(`SELECT count(*)::int AS n FROM (SELECT 1 FROM catalog_items WHERE ${base.sql} AND ${extra.sql} LIMIT ?) s`, [
      ...base.bindings,
      ...extra.bindings,
      TREE_COUNT_CAP + 1,
    ]);
    return rows[0].n as number;
  };
  const own: Record<string, number> = {};
  for (const id of ids.slice(0, TREE_COUNTED_NODES)) own[id] = await capped({ sql: `${CATEGORY_SQL} = ?`, bindings: [id] });
  return { own, unclassified: await capped(unclassifiedSql(c.taxonomy)), capped: true };
}
