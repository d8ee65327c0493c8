import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError } from '../../../lib/errors';
import { isUuid, newId } from '../../../lib/ids';
import { Catalog } from '../../../models/catalog';
import { CatalogMdVersion } from '../../../models/catalog-md-version';
import { CatalogSchema } from '../../../models/catalog-schema';
import { CatalogSnapshot, SnapshotType } from '../../../models/catalog-snapshot';
import { actorId } from '../../access/auth';
import type { CatalogDeps } from '../catalog-caches';
import { lockCatalog } from '../schema/schema';
import { loadCatalogOwned } from '../catalogs';
import type { Scope } from '../../access/scope';
import { requestSearchIndexBuild, type SearchIndexBuilds } from '../search/search-index-requests';
import { markWordsPending, SEARCH_WORDS_DEFER_MIN_ITEMS, wordsColumn } from '../search/search-words';
import { restoreSnapshotFillCounts, storeSnapshotFillCounts } from '../grid/completeness-counters';
import { newestFirstPage } from '../../../models/newest-first';
import { assertRole } from '../../access/roles';

/**
 * Catalog snapshots (docs/api-reference.md "Snapshots"). A snapshot stores the catalog's items (row copies
 * in `catalog_snapshot_items`, written with one `INSERT … SELECT`), its schema version string
 * with that version's taxonomy, its catalog_md and its quality prompt.
 *
 * Restore brings all of them back:
 * - items: exactly the snapshot's rows (same ids, data, versions, timestamps), so staged
 *   changes and pulled `__catalog_item_id`s keep pointing at the same items;
 * - schema and taxonomy: `catalogs.current_schema_version` points back to the snapshot's
 *   version. Versions are never deleted and each carries its taxonomy, so pointing back also
 *   restores the taxonomy; no new schema version is created even when the taxonomy differs
 *   now (the stored `taxonomy` is a record of what the snapshot saw);
 * - catalog_md: versions of catalog_md are a linear counter (docs/api-reference.md "Catalog context and quality prompt"), so when the text differs a
 *   new catalog_md version holding the snapshot's text is appended rather than rewinding the
 *   counter;
 * - quality prompt: set back with its `updated_at`.
 */

const ITEM_COLUMNS = 'id, entity_type, parent_id, business_key, data, search_text, search_tsv, source_info, current_version, created_at, updated_at';

/**
 * What a snapshot records about why it was taken: the review activity whose apply took a
 * `pre_apply` snapshot, the snapshot a restore's `safety` snapshot was taken before restoring.
 */
export interface SnapshotLinks {
  activity_id?: string;
  restored_snapshot_id?: string;
}

/**
 * Takes a snapshot of a catalog inside `trx` (for manual, safety and pre-apply snapshots), with
 * its {@link SnapshotLinks}. Locks the catalog exclusive (schema.ts lockCatalog: it waits for
 * the item writers in flight, later ones wait for it) so the copy is consistent with concurrent
 * item writers.
 * @returns the stored snapshot row
 * @throws NotFoundError (404) when the catalog does not exist
 */
export async function takeSnapshot(
  trx: Knex.Transaction,
  scope: Scope,
  catalogId: string,
  type: SnapshotType,
  reason: string | null,
  links: SnapshotLinks = {},
): Promise<CatalogSnapshot> {
  await lockCatalog(trx, catalogId);
  // JIT compiles these large set-based statements (the copy, a restore's joins) for tens of ms
  // (measured 40 ms on comparable statements) and saves less than that on them.
  await trx.raw('SET LOCAL jit = off');
  const catalog = (await Catalog.query(trx)
    .select('current_schema_version', 'catalog_md', 'catalog_md_version', 'quality_prompt', 'quality_prompt_updated_at')
    .findById(catalogId)) as Catalog;
  const schema = await CatalogSchema.query(trx).select('taxonomy').where({ catalog_id: catalogId, version: catalog.current_schema_version }).first();
  const id = newId();
  await CatalogSnapshot.query(trx).insert({
    id,
    catalog_id: catalogId,
    snapshot_type: type,
    reason,
    item_count: 0,
    schema_version: catalog.current_schema_version,
    taxonomy: schema?.taxonomy ?? null,
    catalog_md: catalog.catalog_md,
    catalog_md_version: catalog.catalog_md_version,
    quality_prompt: catalog.quality_prompt,
    quality_prompt_updated_at: catalog.quality_prompt_updated_at,
    created_by: actorId(scope),
    activity_id: links.activity_id ?? null,
    restored_snapshot_id: links.restored_snapshot_id ?? null,
  });
  // A row whose word index is behind (search-words.ts) is stored with its current vector.
  const copied = await trx.raw(
    `INSERT INTO catalog_snapshot_items (snapshot_id, ${ITEM_COLUMNS})
     SELECT ?, ${ITEM_COLUMNS.replace('search_tsv', `${wordsColumn(true)} AS search_tsv`)} FROM catalog_items WHERE catalog_id = ?`,
    [id, catalogId],
  );
  await storeSnapshotFillCounts(trx, catalogId, id);
  const [row] = await CatalogSnapshot.query(trx).where('id', id).patch({ item_count: copied.rowCount, fill_counted: true }).returning('*');
  return row;
}

/**
 * `POST …/snapshots` (docs/api-reference.md "Snapshots"): a manual snapshot.
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function createSnapshot(knex: Knex, scope: Scope, catalogId: string, reason: string | null): Promise<CatalogSnapshot> {
  return knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    return takeSnapshot(trx, scope, catalogId, 'manual', reason);
  });
}

/**
 * `GET …/snapshots` (docs/api-reference.md "Snapshots"): newest first, optionally of one type.
 * @returns `{snapshots, total}` (total of the filtered list)
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function listSnapshots(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  q: { snapshot_type?: SnapshotType; limit: number; offset: number },
): Promise<{ snapshots: CatalogSnapshot[]; total: number }> {
  await loadCatalogOwned(knex, scope, catalogId);
  const base = CatalogSnapshot.query(knex)
    .where('catalog_id', catalogId)
    .modify((b) => {
      if (q.snapshot_type) b.where('snapshot_type', q.snapshot_type);
    });
  const { rows: snapshots, total } = await newestFirstPage(base, q);
  return { snapshots, total };
}

/** Loads a snapshot of the catalog: unknown → 404, another organization's → 403 (also ./snapshot-compare.ts). */
export async function loadSnapshot(trx: Knex | Knex.Transaction, scope: Scope, catalogId: string, snapshotId: string): Promise<CatalogSnapshot> {
  if (!isUuid(snapshotId)) throw new NotFoundError('Snapshot not found');
  const row = (await CatalogSnapshot.query(trx)
    .alias('s')
    .join('catalogs as c', 'c.id', 's.catalog_id')
    .where('s.id', snapshotId)
    .select('s.*', 'c.organization_id')
    .first()) as (CatalogSnapshot & { organization_id?: string }) | undefined;
  if (!row) throw new NotFoundError('Snapshot not found');
  if (row.organization_id !== scope.organizationId) throw new ForbiddenError();
  if (row.catalog_id !== catalogId) throw new NotFoundError('Snapshot not found');
  delete row.organization_id;
  return row;
}

const SNAP_COLUMNS = ITEM_COLUMNS.split(', ')
  .map((c) => `s.${c}`)
  .join(', ');

/**
 * The settings a restore's item statements run under (see {@link restoreItems}): planner
 * settings for its joins, and the `catalog_items.*_supplied` settings that tell the row and
 * statement triggers the restore supplies their work itself.
 */
const RESTORE_SETTINGS: Record<string, string> = {
  work_mem: "'256MB'",
  enable_nestloop: 'off',
  enable_indexscan: 'off',
  'catalog_items.search_columns_supplied': 'on',
  'catalog_items.fill_counts_supplied': 'on',
  'catalog_items.change_records_supplied': 'on',
};

/** One statement string of `SET LOCAL` for every {@link RESTORE_SETTINGS} name: its restore value, or `DEFAULT` to reset it. */
function settingsSql(reset: boolean): string {
  return Object.entries(RESTORE_SETTINGS)
    .map(([name, value]) => `SET LOCAL ${name} = ${reset ? 'DEFAULT' : value}`)
    .join('; ');
}

/**
 * Makes the catalog's items exactly the snapshot's rows, with two set-based statements and as
 * little index and constraint work as the differences need:
 * 1. DELETE the rows that are not in the snapshot or whose identity columns (entity type,
 *    parent, business key) differ from it (rare; deleting them first means the MERGE cannot
 *    collide on the business-key index or point a parent link at a missing row);
 * 2. MERGE the snapshot's rows in one join: INSERT those now missing (deleted since, or by step
 *    1, or by the parent cascade of step 1) with their original ids and stored search columns;
 *    UPDATE in place the rows whose content differs (data, search columns, source_info, version,
 *    timestamps) from the snapshot's copy. An update that keeps `catalog_id` and `parent_id`
 *    runs no foreign-key check, and the row triggers are skipped
 *    (`catalog_items.search_columns_supplied`): the stored search columns come along. (A
 *    separate anti-join INSERT read both sides once more: 0.5 s of the every-row-changed bench.)
 * Rows unchanged since the snapshot are not touched.
 * 3. The completeness counters (docs/large-catalogs.md "Completeness counters"): the counter
 *    triggers are skipped for steps 1 and 2 (`catalog_items.fill_counts_supplied`; they joined
 *    the old and new rows and computed both filled-key sets, two thirds of the MERGE's time when
 *    every row changed) and `restoreSnapshotFillCounts` (grid/completeness-counters.ts) brings the
 *    counts to the snapshot's in one statement. Exact because the restore holds the catalog lock
 *    exclusive (no other item writer of the catalog is in flight: docs/architecture.md "Catalog
 *    write locks").
 * 4. No per-item change records (`catalog_items.change_records_supplied`): every reader of the
 *    change log reads the whole catalog again after a restore, which the `safety` snapshot
 *    taken in this transaction records (item-changes.ts `restoredSince`; docs/feeds.md "Delta
 *    runs"). Writing them was 0.18–0.64 s of the every-row-changed MERGE.
 *
 * With `deferWords` (large catalogs, see restoreSnapshot) the update leaves the indexed
 * `search_tsv` as it is and writes the snapshot's word vector to `search_tsv_pending` where
 * they differ (src/services/catalog/search/search-words.ts): the update then changes no indexed column and,
 * with the table's fillfactor of 50, finds room on the row's page, so it is heap-only (HOT): no
 * index entry at all. Measured on 100,000 rows that all changed (EXPLAIN ANALYZE): 98.6–99.8 %
 * of the updates HOT, 1.7 s on a quiet database instead of ~6.5 s for one new version per row
 * with ~31 word-index entries and four btree entries.
 *
 * Plans: the planner estimates a snapshot's rows from `catalog_snapshot_items` statistics,
 * which do not know a snapshot taken since the last ANALYZE (1 row estimated for 100,000).
 * With that estimate it chose a nested-loop anti-join over a materialized scan, 100,000 ×
 * 100,000 comparisons (the bench's restore ran for over 5 minutes), and read the snapshot's
 * rows by primary-key index scans in id order, i.e. in random heap order (0.2–0.3 s per
 * statement). So these statements run without nested loops and plain index scans: hash joins
 * (the same cost at 40 rows, linear at 100,000) over bitmap scans (heap read in page order).
 * Every side is restricted to the catalog or the snapshot, so a hash never covers other
 * catalogs' rows (the statements' triggers look up `catalogs` rows, a small table). The
 * settings go back to their defaults afterwards.
 * @param snapshot the snapshot to restore
 * @param deferWords leave the word index behind (pending vectors) instead of updating it
 * @returns true when the catalog may now hold pending word vectors (`deferWords` and some row
 *   was written; MERGE has no RETURNING before PostgreSQL 17, so inserted rows count too)
 */
async function restoreItems(trx: Knex.Transaction, catalogId: string, snapshot: CatalogSnapshot, deferWords: boolean): Promise<boolean> {
  // The joins below hash 100,000 snapshot rows (~120 MB) and the UPDATE's transition table
  // (items_rev trigger) holds as much again: in memory rather than in temp files.
  await trx.raw(settingsSql(false));
  await trx.raw(
    `DELETE FROM catalog_items ci WHERE ci.catalog_id = ? AND NOT EXISTS (
       SELECT 1 FROM catalog_snapshot_items s
       WHERE s.snapshot_id = ? AND s.id = ci.id AND s.entity_type = ci.entity_type
         AND s.parent_id IS NOT DISTINCT FROM ci.parent_id AND s.business_key IS NOT DISTINCT FROM ci.business_key)`,
    [catalogId, snapshot.id],
  );
  const merged = await trx.raw(
    `MERGE INTO catalog_items ci
     USING (SELECT ${SNAP_COLUMNS} FROM catalog_snapshot_items s WHERE s.snapshot_id = ?) s ON ci.id = s.id AND ci.catalog_id = ?
     WHEN MATCHED AND ((ci.current_version, ci.created_at, ci.updated_at) IS DISTINCT FROM (s.current_version, s.created_at, s.updated_at)
          OR ci.data IS DISTINCT FROM s.data OR ci.source_info IS DISTINCT FROM s.source_info
          OR ci.search_text IS DISTINCT FROM s.search_text OR ${wordsColumn(true, 'ci')} IS DISTINCT FROM s.search_tsv) THEN
       UPDATE SET data = s.data, search_text = s.search_text,
         search_tsv = CASE WHEN ?::boolean THEN ci.search_tsv ELSE s.search_tsv END,
         search_tsv_pending = CASE WHEN ?::boolean AND ci.search_tsv IS DISTINCT FROM s.search_tsv THEN s.search_tsv END,
         source_info = s.source_info, current_version = s.current_version, created_at = s.created_at, updated_at = s.updated_at
     WHEN NOT MATCHED THEN
       INSERT (catalog_id, ${ITEM_COLUMNS}) VALUES (?, ${SNAP_COLUMNS})`,
    [snapshot.id, catalogId, deferWords, deferWords, catalogId],
  );
  await restoreSnapshotFillCounts(trx, catalogId, snapshot);
  await trx.raw(settingsSql(true));
  return deferWords && merged.rowCount > 0;
}

/** Outcome of a restore (docs/api-reference.md "Snapshots"; the route adds the response's `message`). */
export interface RestoreResult {
  snapshot_id: string;
  safety_snapshot_id: string;
  items_restored: number;
  schema_version: string;
}

/** What a restore needs besides the database and caches: the runner that starts the word-index catch-up. */
export interface RestoreDeps extends CatalogDeps {
  jobRunner: SearchIndexBuilds;
  /** Snapshots of at least this many items defer the word index (default {@link SEARCH_WORDS_DEFER_MIN_ITEMS}). */
  searchWordsDeferMinItems?: number;
}

/**
 * `POST …/snapshots/{snapshot_id}/restore` (docs/api-reference.md "Snapshots"), one transaction: a `safety` snapshot of the
 * current state first, then the catalog's items, schema version (with its taxonomy),
 * catalog_md and quality prompt exactly as in the snapshot (see the module comment).
 * Items are restored set-based by {@link restoreItems}; a snapshot of at least
 * `searchWordsDeferMinItems` items leaves the word index behind (`catalogs.search_words_pending`,
 * searches stay exact) and, once committed, asks searchIndexBuildWorkflow to catch it up
 * (src/services/catalog/search/search-words.ts; never awaited: if Temporal is unreachable, the next search of
 * the catalog asks again).
 * @throws NotFoundError (404), ForbiddenError (403); ConflictError (409) when the snapshot's
 *   schema version no longer exists
 */
export async function restoreSnapshot(deps: RestoreDeps, scope: Scope, catalogId: string, snapshotId: string): Promise<RestoreResult> {
  assertRole(scope, 'reviewer');
  const { result, behind, catalog } = await deps.knex.transaction((trx) => restoreSnapshotIn(trx, deps, scope, catalogId, snapshotId));
  if (behind) requestSearchIndexBuild(deps.jobRunner, deps.caches.catalog, catalog, { wordsPending: true, now: true });
  return result;
}

/** What {@link restoreSnapshotIn} did: the result, whether it left the word index behind, the catalog. */
export interface RestoreDone {
  result: RestoreResult;
  /** The catalog may now hold pending word vectors (`catalogs.search_words_pending`): catch them up after commit. */
  behind: boolean;
  catalog: Catalog;
}

/**
 * The restore of {@link restoreSnapshot} inside the caller's transaction, without asking for the
 * word-index catch-up (the caller does, after commit): the snapshot restore workflow's activity
 * (./snapshot-restores.ts) records its result in the same transaction.
 * @throws NotFoundError (404), ForbiddenError (403), ConflictError (409) as restoreSnapshot
 */
export async function restoreSnapshotIn(
  trx: Knex.Transaction,
  deps: Pick<RestoreDeps, 'searchWordsDeferMinItems'>,
  scope: Scope,
  catalogId: string,
  snapshotId: string,
): Promise<RestoreDone> {
  const loaded = await loadCatalogOwned(trx, scope, catalogId);
  const snapshot = await loadSnapshot(trx, scope, catalogId, snapshotId);
  const version = await CatalogSchema.query(trx).select('id').where({ catalog_id: catalogId, version: snapshot.schema_version }).first();
  if (!version) throw new ConflictError(`Schema version ${snapshot.schema_version} of this snapshot no longer exists`);
  const safety = await takeSnapshot(trx, scope, catalogId, 'safety', `Automatic safety snapshot before restoring snapshot ${snapshot.id}`, {
    restored_snapshot_id: snapshot.id,
  });

  const deferWords = snapshot.item_count >= (deps.searchWordsDeferMinItems ?? SEARCH_WORDS_DEFER_MIN_ITEMS);
  const behind = await restoreItems(trx, catalogId, snapshot, deferWords);

  const current = (await Catalog.query(trx).select('catalog_md', 'catalog_md_version').findById(catalogId)) as Catalog;
  const patch: Record<string, unknown> = {
    current_schema_version: snapshot.schema_version,
    quality_prompt: snapshot.quality_prompt,
    quality_prompt_updated_at: snapshot.quality_prompt_updated_at,
    item_count: snapshot.item_count,
    updated_at: trx.fn.now(),
  };
  if (behind) await markWordsPending(trx, catalogId);
  if (current.catalog_md !== snapshot.catalog_md) {
    const next = Number(current.catalog_md_version) + 1;
    await CatalogMdVersion.query(trx).insert({ catalog_id: catalogId, version: next, catalog_md: snapshot.catalog_md, created_by: actorId(scope) });
    patch.catalog_md = snapshot.catalog_md;
    patch.catalog_md_version = next;
  }
  await Catalog.query(trx).where('id', catalogId).patch(patch);
  const result: RestoreResult = {
    snapshot_id: snapshot.id,
    safety_snapshot_id: safety.id,
    items_restored: snapshot.item_count,
    schema_version: snapshot.schema_version,
  };
  return { result, behind, catalog: loaded };
}
