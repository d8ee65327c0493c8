/**
 * Grid field indexes (every grid page ≤ 300 ms server time at 1,000,000 items; docs/console.md
 * "Grid field indexes").
 *
 * A data-field sort or a rare filter of a large catalog's grid reads every item of the catalog
 * without an index on that field (sorted by price: 1.7 s; a filter matching nothing: 2.9 s at
 * 1,000,000 items, docs/benchmarks.md "console-grid"). Indexing every field of every catalog up
 * front would slow every write, so the grid asks for a field the first time a large catalog
 * (`Config.gridIndexes.minItems`) is sorted or filtered on it, and a durable Temporal workflow
 * (workflows/grid-index.ts) builds it without blocking reads or writes. Until it is ready the
 * page says so ({@link GridIndexNotice}).
 *
 * A grid field index is the field's keys in `catalog_sort_keys` (one row per item, kept by the
 * items' triggers, src/services/catalog/items/sort-keys.ts), read by the grid through
 * grid-keys.ts: no index on `catalog_items` reads `data`, so updates of `data` stay heap-only
 * (docs/large-catalogs.md "Restores of large catalogs"). Each row of `catalog_field_indexes`
 * (migration 20261130090000) names one (catalog, kind, field), with its state:
 * - `key`: the sort key, also equality of numbers and booleans and number ranges;
 * - `text`: equality, `in` lists and text ranges of the other fields.
 * Both kinds of a field read the same keys. With each (kind, field) goes an extended statistics
 * object on the filter's expression over `catalog_items` ({@link gridStatsName}), shared by the
 * catalogs using it: without them the planner cannot tell a value matching nothing from a common
 * one, and the grid's counts rest on its estimates. A row's name derives from catalog id, kind and
 * a hash of the field ({@link gridIndexName}), so building is idempotent; the keys and statistics
 * of a removed field or a deleted catalog are dropped with its row, and a catalog holds at most
 * `maxPerCatalog` rows. Conditions that no B-tree answers (`contains`, `empty`, list fields) are
 * never indexed.
 *
 * SQL safety: field names are schema fields checked by the grid's parser; the DDL is written by
 * PostgreSQL's `format()` (`%I` identifiers, `%L` literals), never by string concatenation.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { BoundedCache } from '../../../lib/bounded-cache';
import { logger } from '../../../lib/logger';
import type { JobRunner } from '../../job-runner';
import { buildSortKeys, type SortKeysBuilt } from '../items/sort-keys';
import type { GridQuery } from './item-grid-query';

/** The kinds of grid field index (see the module comment). */
export type GridIndexKind = 'key' | 'text';

/** States of a `catalog_field_indexes` row. */
export type GridIndexState = 'building' | 'ready' | 'failed' | 'dropping';

/** Settings of grid field indexes (`Config.gridIndexes`). */
export interface GridIndexSettings {
  /** Catalogs with fewer items are never indexed: a sort of them reads ≤ this many rows (env GRID_INDEX_MIN_ITEMS, default 100,000). */
  minItems: number;
  /** Most indexes a catalog holds (building or ready); beyond, the page says the field is not indexed (env GRID_INDEX_MAX_PER_CATALOG, default 8). */
  maxPerCatalog: number;
}

/** An index the grid's query would use. */
export interface GridIndexNeed {
  field: string;
  kind: GridIndexKind;
  /** What the page uses it for (the notice says "sorting by" or "filtering on"). */
  use: 'sort' | 'filter';
}

/** What the page says about an index it would use that is not ready. */
export interface GridIndexNotice extends GridIndexNeed {
  /** `building` (asked for, being built), `failed` (with the error), `capped` (the catalog holds its maximum). */
  state: 'building' | 'failed' | 'capped';
  error?: string;
}

/** A row of `catalog_field_indexes`. */
export interface GridIndexRow {
  index_name: string;
  catalog_id: string;
  organization_id: string;
  field: string;
  kind: GridIndexKind;
  state: GridIndexState;
  error: string | null;
  build_ms: number | null;
}

/** Prefix of every grid field index name (the maintenance sweep drops `catalog_items` indexes of that prefix: the form these took before migration 20261208090000). */
export const GRID_INDEX_PREFIX = 'cgi_';

/**
 * The index name of (catalog, kind, field): `cgi_<catalog id hex>_<k|t>_<12 hex of sha-256(field)>`,
 * 52 characters (PostgreSQL's limit is 63), the same wherever and whenever it is computed.
 */
export function gridIndexName(catalogId: string, kind: GridIndexKind, field: string): string {
  const hash = crypto.createHash('sha256').update(field, 'utf8').digest('hex').slice(0, 12);
  return `${GRID_INDEX_PREFIX}${catalogId.replace(/-/g, '').toLowerCase()}_${kind === 'key' ? 'k' : 't'}_${hash}`;
}

/** Prefix of the statistics objects of grid field indexes. */
export const GRID_STATS_PREFIX = 'cgs_';

/**
 * The name of the extended statistics object on the expression of (kind, field), shared by every
 * catalog's index of it: `cgs_<k|t>_<12 hex of sha-256(field)>`. PostgreSQL reads no statistics
 * of a partial index's expression, so without these the planner guesses 0.5 % of the rows for
 * any value (a filter matching nothing then walks the catalog in date order instead of one probe).
 */
export function gridStatsName(kind: GridIndexKind, field: string): string {
  const hash = crypto.createHash('sha256').update(field, 'utf8').digest('hex').slice(0, 12);
  return `${GRID_STATS_PREFIX}${kind === 'key' ? 'k' : 't'}_${hash}`;
}

/**
 * The indexes a grid query would use: the sort field (`key`), and each `eq`, `in` or `range`
 * filter (`key` for number / boolean equality and number ranges, `text` otherwise; list fields
 * none). Deduplicated, sort first.
 * @param types field → schema type (GridCatalog.types)
 */
export function neededGridIndexes(q: Pick<GridQuery, 'sort' | 'filters'>, types: Record<string, string>): GridIndexNeed[] {
  const out: GridIndexNeed[] = [];
  const add = (n: GridIndexNeed) => {
    if (!out.some((o) => o.field === n.field && o.kind === n.kind)) out.push(n);
  };
  if (q.sort && q.sort !== 'created_at' && q.sort !== 'updated_at' && Object.hasOwn(types, q.sort)) add({ field: q.sort, kind: 'key', use: 'sort' });
  for (const f of q.filters) {
    const type = types[f.field] ?? 'string';
    if (type === 'array' || type === 'object' || !['eq', 'in', 'range'].includes(f.op)) continue;
    const numeric = type === 'number' || type === 'integer';
    const keyed = (f.op === 'eq' && (numeric || type === 'boolean')) || (f.op === 'range' && numeric);
    add({ field: f.field, kind: keyed ? 'key' : 'text', use: 'filter' });
  }
  return out;
}

/**
 * Checks the indexes a grid page of a catalog would use (see the module comment): nothing for a
 * catalog under `settings.minItems` items; otherwise records each missing one as `building`
 * (while the catalog holds fewer than `settings.maxPerCatalog`) and asks the job runner for the
 * catalog's index workflow, without waiting ({@link requestGridIndexWork}; also when an index of
 * the catalog is waiting to be dropped).
 * @param known the catalog's rows when the caller read them already ({@link gridIndexRows})
 * @returns a notice per index the page would use that is not ready (the page may be slow)
 */
export async function ensureGridIndexes(
  knex: Knex,
  catalog: { id: string; organization_id: string; item_count: number },
  needs: GridIndexNeed[],
  settings: GridIndexSettings,
  requester?: GridIndexRequester,
  known?: GridIndexRow[],
): Promise<GridIndexNotice[]> {
  if (catalog.item_count < settings.minItems) return [];
  const rows = known ?? (await gridIndexRows(knex, catalog.id));
  if (!needs.length && !rows.some((r) => r.state === 'dropping')) return [];
  const notices: GridIndexNotice[] = [];
  let held = rows.filter((r) => r.state === 'building' || r.state === 'ready').length;
  let request = rows.some((r) => r.state === 'dropping');
  let added = false;
  for (const need of needs) {
    const row = rows.find((r) => r.field === need.field && r.kind === need.kind);
    if (row?.state === 'ready') continue;
    if (row?.state === 'failed') {
      notices.push({ ...need, state: 'failed', error: row.error ?? 'unknown error' });
      continue;
    }
    if (row) {
      // building, or dropping (the field was removed and added again): the workflow builds it next.
      if (row.state === 'dropping')
        await knex('catalog_field_indexes').where('index_name', row.index_name).update({ state: 'building', requested_at: knex.fn.now() });
      notices.push({ ...need, state: 'building' });
      request = true;
      continue;
    }
    if (held >= settings.maxPerCatalog) {
      notices.push({ ...need, state: 'capped' });
      continue;
    }
    await knex('catalog_field_indexes')
      .insert({
        index_name: gridIndexName(catalog.id, need.kind, need.field),
        catalog_id: catalog.id,
        organization_id: catalog.organization_id,
        field: need.field,
        kind: need.kind,
        state: 'building',
      })
      .onConflict('index_name')
      .ignore();
    held += 1;
    added = true;
    request = true;
    notices.push({ ...need, state: 'building' });
  }
  if (request && requester) requestGridIndexWork(requester.jobRunner, requester.caches, catalog, { now: added });
  return notices;
}

/** Every `catalog_field_indexes` row of a catalog (at most a few: `maxPerCatalog`, and those being dropped). */
export async function gridIndexRows(knex: Knex, catalogId: string): Promise<GridIndexRow[]> {
  return (await knex('catalog_field_indexes').where('catalog_id', catalogId).select('*')) as GridIndexRow[];
}

/**
 * The part of the app's catalog caches (CatalogCaches, src/services/catalog/catalog-caches.ts) the
 * requests use: the catalogs this app asked the workflow for in the last
 * INDEX_REQUEST_INTERVAL_MS (30 s), unless a new index was recorded.
 */
export interface GridIndexRequestCache {
  gridIndexRequests: BoundedCache<true>;
}

/** What {@link ensureGridIndexes} needs to ask for the workflow: the app's job runner and catalog caches. */
export interface GridIndexRequester {
  jobRunner: Pick<JobRunner, 'startGridIndexes'>;
  caches: GridIndexRequestCache;
}

/**
 * Asks Temporal for the catalog's grid index workflow (`grid-index-<catalog_id>`, started or
 * signalled), without waiting and never failing the page: an unreachable Temporal is a logged
 * warning, and the next page asks again (at most once per catalog per 30 s from this app, unless
 * `opts.now`). A runner without `startGridIndexes` (benchmarks, API tests) asks nothing.
 */
export function requestGridIndexWork(
  jobRunner: Pick<JobRunner, 'startGridIndexes'>,
  caches: GridIndexRequestCache,
  catalog: { id: string; organization_id: string },
  opts: { now?: boolean } = {},
): void {
  const start = jobRunner.startGridIndexes?.bind(jobRunner);
  if (!start) return;
  const requested = caches.gridIndexRequests;
  if (!opts.now && requested.has(catalog.id)) return;
  requested.set(catalog.id, true);
  Promise.resolve()
    .then(() => start({ id: catalog.id, organization_id: catalog.organization_id }))
    .then(
      () => logger.info({ catalog_id: catalog.id }, 'grid index workflow asked'),
      (err) => logger.warn({ catalog_id: catalog.id, err }, 'grid index workflow could not be asked (the page stays slow until it is)'),
    );
}

/**
 * Marks the grid indexes of fields no longer in the catalog (`fields`: the new schema version's
 * fields and taxonomy attributes), or every one of the catalog when `fields` is null (the catalog
 * is being deleted), as `dropping`. Runs in the caller's transaction; the drop itself is the
 * index workflow's ({@link reconcileGridIndexes}), asked by the route or the next grid page, or
 * the hourly maintenance sweep ({@link sweepGridIndexes}).
 * @returns how many indexes were marked
 */
export async function markGridIndexesDropping(trx: Knex | Knex.Transaction, catalogId: string, fields: string[] | null): Promise<number> {
  const q = trx('catalog_field_indexes').where('catalog_id', catalogId).whereNot('state', 'dropping');
  if (fields) q.whereNotIn('field', fields);
  return q.update({ state: 'dropping' });
}

/** What one {@link reconcileGridIndexes} pass did. */
export interface GridIndexReconcile {
  catalog_id: string;
  built: Array<{ index: string; field: string; kind: GridIndexKind; build_ms: number }>;
  failed: Array<{ index: string; field: string; error: string }>;
  dropped: string[];
  /** The fields whose keys the builds made ready (buildSortKeys: a grid row's field, and any other field of the catalog waiting for its keys then). */
  sort_keys: SortKeysBuilt[];
}

/** PostgreSQL error classes a rebuild would hit again (data and program-limit errors, e.g. an index row too large): the row is `failed`, not retried. */
function permanent(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('22') || code.startsWith('54') || code === '42P17';
}

/** The one row of the catalog still to build or drop, oldest request first. */
async function nextPending(knex: Knex, catalogId: string): Promise<GridIndexRow | undefined> {
  return (await knex('catalog_field_indexes').where('catalog_id', catalogId).whereIn('state', ['building', 'dropping']).orderBy('requested_at').first('*')) as
    GridIndexRow | undefined;
}

/** Drops an index by name (a `cgi_` index built on `catalog_items` before the keys moved to `catalog_sort_keys`), if it exists. */
async function dropIndex(knex: Knex, name: string): Promise<void> {
  const { rows } = await knex.raw('SELECT format(?, ?::text) AS ddl', ['DROP INDEX CONCURRENTLY IF EXISTS %I', name]);
  await knex.raw(rows[0].ddl);
}

/**
 * Stops keeping the keys of (catalog, field) unless another grid index row of the catalog still
 * uses that field (`key` and `text` share the field's keys); deleting the `catalog_sort_fields`
 * row deletes its keys (its trigger).
 */
async function dropKeysIfUnused(knex: Knex, row: GridIndexRow): Promise<void> {
  await knex.raw(
    `DELETE FROM catalog_sort_fields f WHERE f.catalog_id = ? AND f.field = ?
       AND NOT EXISTS (SELECT 1 FROM catalog_field_indexes i WHERE i.catalog_id = f.catalog_id AND i.field = f.field AND i.index_name <> ? AND i.state <> 'dropping')`,
    [row.catalog_id, row.field, row.index_name],
  );
}

/** Drops the statistics object of (kind, field) once no catalog's index of it is left but `leaving` (the index being dropped). */
async function dropStatsIfUnused(knex: Knex, kind: GridIndexKind, field: string, leaving: string): Promise<void> {
  if (await knex('catalog_field_indexes').where({ kind, field }).whereNot('index_name', leaving).first('index_name')) return;
  const { rows } = await knex.raw('SELECT format(?, ?::text) AS ddl', ['DROP STATISTICS IF EXISTS %I', gridStatsName(kind, field)]);
  await knex.raw(rows[0].ddl);
}

/** The indexed expression of a kind over a field, written by PostgreSQL's format() (`%L`: the field as a literal). */
function expressionSql(kind: GridIndexKind): string {
  return kind === 'key' ? "format('NULLIF(data -> %L, %L::jsonb)', ?::text, 'null')" : "format('data ->> %L', ?::text)";
}

/**
 * Builds and drops what the catalog's `catalog_field_indexes` rows ask for, one row at a time
 * until none is pending (rows recorded meanwhile included): a `building` row gets its statistics
 * object, its field's `catalog_sort_fields` row and the keys of the existing items
 * (buildSortKeys: waits for older writers, copies in batches, marks the field ready), then the
 * table's statistics (ANALYZE, so the planner knows the values), and becomes `ready`; a
 * `dropping` row, or one whose catalog is gone, loses its keys (unless another row of the catalog
 * uses the field), its statistics (unless another catalog uses them) and its row. Idempotent and
 * safe to repeat after a crash: every step checks what exists, and a key copied twice is kept once.
 * `heartbeat` is called before each step (the activity's liveness).
 * @returns what was built, failed (data or size errors, recorded on the row) and dropped, and the
 *   fields whose keys were made ready on the way
 * @throws the database's error for anything else (the workflow retries)
 */
export async function reconcileGridIndexes(knex: Knex, catalogId: string, heartbeat: (detail: unknown) => void = () => {}): Promise<GridIndexReconcile> {
  const out: GridIndexReconcile = { catalog_id: catalogId, built: [], failed: [], dropped: [], sort_keys: [] };
  const catalogExists = async () => Boolean(await knex('catalogs').where('id', catalogId).first('id'));
  for (let row = await nextPending(knex, catalogId); row; row = await nextPending(knex, catalogId)) {
    heartbeat({ index: row.index_name, state: row.state });
    if (row.state === 'dropping' || !(await catalogExists())) {
      await dropKeysIfUnused(knex, row);
      await dropStatsIfUnused(knex, row.kind, row.field, row.index_name);
      // The row goes last: once it is gone, so are the keys and (if no other catalog uses them) the statistics.
      await knex('catalog_field_indexes').where('index_name', row.index_name).whereIn('state', ['dropping', 'building']).delete();
      out.dropped.push(row.index_name);
      continue;
    }
    const started = Date.now();
    try {
      const { rows } = await knex.raw(
        `SELECT format('CREATE STATISTICS IF NOT EXISTS %I ON (%s) FROM catalog_items', ?::text, ${expressionSql(row.kind)}) AS stats,
                EXISTS (SELECT 1 FROM pg_statistic_ext WHERE stxname = ?) AS has_stats`,
        [gridStatsName(row.kind, row.field), row.field, gridStatsName(row.kind, row.field)],
      );
      if (!rows[0].has_stats) await knex.raw(rows[0].stats);
      // The field's keys: kept by the items' triggers from this commit on, copied for the items
      // written before by buildSortKeys (which waits for older writers first), then ready.
      await knex.raw('INSERT INTO catalog_sort_fields (catalog_id, field) VALUES (?, ?) ON CONFLICT DO NOTHING', [catalogId, row.field]);
      out.sort_keys.push(...(await buildSortKeys(knex, catalogId, heartbeat)));
      // Statistics of the new expression, so the planner sees how rare a filtered value is.
      if (!rows[0].has_stats) await knex.raw('ANALYZE catalog_items');
      const keys = await knex('catalog_sort_fields').where({ catalog_id: catalogId, field: row.field }).first('ready');
      if (!keys?.ready) throw new Error(`the keys of "${row.field}" are not ready after their build (dropped meanwhile?): the workflow retries`);
      const buildMs = Date.now() - started;
      const updated = await knex('catalog_field_indexes')
        .where({ index_name: row.index_name, state: 'building' })
        .update({ state: 'ready', ready_at: knex.fn.now(), build_ms: buildMs, error: null });
      if (updated) out.built.push({ index: row.index_name, field: row.field, kind: row.kind, build_ms: buildMs });
    } catch (err) {
      if (!permanent(err)) throw err;
      const error = (err as Error).message.slice(0, 500);
      await knex('catalog_field_indexes').where({ index_name: row.index_name, state: 'building' }).update({ state: 'failed', error });
      out.failed.push({ index: row.index_name, field: row.field, error });
    }
  }
  return out;
}

/**
 * The maintenance sweep of grid indexes (run with the hourly search index maintenance): marks
 * the rows of deleted catalogs `dropping` and reconciles every catalog with a row to drop, then
 * drops any `cgi_` index on `catalog_items` (the form of these indexes before migration
 * 20261208090000, e.g. built by an older worker during an upgrade) and `cgs_` statistics objects
 * no row's (kind, field) uses.
 * @returns the reconcile of each catalog, and the stray indexes and statistics objects dropped
 */
export async function sweepGridIndexes(knex: Knex): Promise<{ catalogs: GridIndexReconcile[]; strays: string[] }> {
  await knex.raw(
    `UPDATE catalog_field_indexes f SET state = 'dropping' WHERE state <> 'dropping' AND NOT EXISTS (SELECT 1 FROM catalogs c WHERE c.id = f.catalog_id)`,
  );
  const ids = (await knex('catalog_field_indexes').where('state', 'dropping').distinct('catalog_id')) as Array<{ catalog_id: string }>;
  const catalogs: GridIndexReconcile[] = [];
  for (const { catalog_id } of ids) catalogs.push(await reconcileGridIndexes(knex, catalog_id));
  const { rows } = await knex.raw(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
     WHERE i.indrelid = 'catalog_items'::regclass AND c.relname LIKE ?`,
    [`${GRID_INDEX_PREFIX.replace(/_/g, '\\_')}%`],
  );
  const strays = (rows as Array<{ name: string }>).map((r) => r.name);
  for (const name of strays) await dropIndex(knex, name);
  // Statistics objects no (kind, field) of any catalog uses any more.
  const used = new Set(
    ((await knex('catalog_field_indexes').distinct('kind', 'field')) as Array<{ kind: GridIndexKind; field: string }>).map((r) =>
      gridStatsName(r.kind, r.field),
    ),
  );
  const stats = await knex.raw('SELECT stxname AS name FROM pg_statistic_ext WHERE stxname LIKE ?', [`${GRID_STATS_PREFIX.replace(/_/g, '\\_')}%`]);
  for (const { name } of stats.rows as Array<{ name: string }>) {
    if (used.has(name)) continue;
    const ddl = await knex.raw('SELECT format(?, ?::text) AS ddl', ['DROP STATISTICS IF EXISTS %I', name]);
    await knex.raw(ddl.rows[0].ddl);
    strays.push(name);
  }
  return { catalogs, strays };
}

/**
 * After a schema change or a catalog's deletion: asks for the catalog's grid index workflow when
 * one of its indexes waits to be dropped (markGridIndexesDropping), without waiting.
 * @param deps the app's database, job runner and caches
 */
export async function requestGridIndexDrops(
  deps: { knex: Knex; jobRunner: Pick<JobRunner, 'startGridIndexes'>; caches: { catalog: GridIndexRequestCache } },
  catalog: { id: string; organization_id: string },
): Promise<void> {
  const pending = await deps.knex('catalog_field_indexes').where({ catalog_id: catalog.id, state: 'dropping' }).first('index_name');
  if (pending) requestGridIndexWork(deps.jobRunner, deps.caches.catalog, catalog, { now: true });
}
