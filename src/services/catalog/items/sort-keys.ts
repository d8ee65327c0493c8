/**
 * Sort keys of data fields (docs/large-catalogs.md "Sorting by a data field"): which fields of a
 * catalog keep their keys in `catalog_sort_keys` (migration 20261205100000), asking for them,
 * and building them for the existing items.
 *
 * A list of a large catalog (≥ {@link SORT_KEYS_MIN_ITEMS} items) sorted by a data field records
 * the field in `catalog_sort_fields` (at most {@link SORT_KEYS_MAX_FIELDS} per catalog): from that
 * commit on, the triggers of `catalog_items` keep the field's key for every item written. The
 * catalog's field index workflow (workflows/grid-index.ts, asked without waiting) then copies the
 * keys of the items written before ({@link buildSortKeys}) and marks the field ready; until then,
 * and whenever it cannot be asked, the list sorts the plain way (every match read), as before.
 */
import type { Knex } from 'knex';
import { logger } from '../../../lib/logger';
import type { JobRunner } from '../../job-runner';
import type { BoundedCache } from '../../../lib/bounded-cache';

/** Catalogs with fewer items never keep sort keys: their plain sort reads at most this many rows. */
export const SORT_KEYS_MIN_ITEMS = 10_000;

/** Most data fields whose keys one catalog keeps (each adds a key row and two B-tree entries to every item write). */
export const SORT_KEYS_MAX_FIELDS = 8;

/** Items copied per transaction by {@link buildSortKeys}. */
const BUILD_BATCH = 10_000;

/** What a list needs to ask for sort keys: the job runner (the field index workflow) and the catalog caches (request throttle). */
export interface SortKeyRequester {
  jobRunner: Partial<Pick<JobRunner, 'startGridIndexes'>>;
  /** The app's catalog caches' request throttle (CatalogCaches.gridIndexRequests, catalog-caches.ts). */
  caches: { gridIndexRequests: BoundedCache<true> };
}

/**
 * Makes sure the keys of `field` are kept for a large catalog: records the field (when the
 * catalog has fewer than {@link SORT_KEYS_MAX_FIELDS}) and asks the catalog's field index
 * workflow to build them, without waiting and never failing the list (an unreachable Temporal is
 * a logged warning; a later list asks again, at most once per catalog per 30 s from this app
 * unless the field was just recorded). A runner without `startGridIndexes` asks nothing.
 * @returns whether the field is recorded and ready (its keys complete) when read
 */
export async function ensureSortKeys(
  knex: Knex,
  r: SortKeyRequester,
  catalog: { id: string; organization_id: string; item_count: number },
  field: string,
): Promise<boolean> {
  const row = await knex('catalog_sort_fields').where({ catalog_id: catalog.id, field }).first('ready');
  if (row?.ready) return true;
  let recorded = false;
  if (!row) {
    if (catalog.item_count < SORT_KEYS_MIN_ITEMS) return false;
    // One statement: the cap holds under concurrent lists (a lost race only skips the field).
    const { rowCount } = await knex.raw(
      `INSERT INTO catalog_sort_fields (catalog_id, field)
       SELECT ?, ? WHERE (SELECT count(*) FROM catalog_sort_fields WHERE catalog_id = ?) < ?
       ON CONFLICT DO NOTHING`,
      [catalog.id, field, catalog.id, SORT_KEYS_MAX_FIELDS],
    );
    if (!rowCount) return false;
    recorded = true;
  }
  const start = r.jobRunner.startGridIndexes?.bind(r.jobRunner);
  if (!start || (!recorded && r.caches.gridIndexRequests.has(catalog.id))) return false;
  r.caches.gridIndexRequests.set(catalog.id, true);
  Promise.resolve()
    .then(() => start({ id: catalog.id, organization_id: catalog.organization_id }))
    .then(
      () => logger.info({ catalog_id: catalog.id, field }, 'sort keys asked for'),
      (err) => logger.warn({ catalog_id: catalog.id, field, err }, 'sort keys could not be asked for (the list sorts every match until they are)'),
    );
  return false;
}

/** One field whose keys {@link buildSortKeys} copied. */
export interface SortKeysBuilt {
  field: string;
  /** Items read (each key copied unless the triggers wrote it first). */
  items: number;
  build_ms: number;
}

/**
 * Builds the keys of every recorded, not yet ready field of a catalog for its existing items, then
 * marks the field ready. Steps: wait until every transaction that started before this build has
 * ended (a writer that did not yet see the field's row wrote no key; after it, every write keeps
 * the key); copy the keys in batches of {@link BUILD_BATCH} items in `(created_at, id)` order, each
 * its own transaction, keeping a key a trigger wrote (ON CONFLICT DO NOTHING: the trigger's is
 * newer); delete key rows whose item was deleted meanwhile; mark the field ready. Idempotent: a
 * retry copies again what is missing. `heartbeat` is called before each step.
 * @returns the fields made ready
 * @throws the database's error (the workflow retries)
 */
export async function buildSortKeys(knex: Knex, catalogId: string, heartbeat: (detail: unknown) => void = () => {}): Promise<SortKeysBuilt[]> {
  const fields = (await knex('catalog_sort_fields').where({ catalog_id: catalogId, ready: false }).pluck('field')) as string[];
  if (fields.length === 0) return [];
  await waitForOlderTransactions(knex, heartbeat);
  const out: SortKeysBuilt[] = [];
  for (const field of fields) {
    const started = Date.now();
    let items = 0;
    let after: { created_at: string; id: string } | null = null;
    for (;;) {
      heartbeat({ field, items });
      const { rows }: { rows: Array<{ n: number; created_at: string; id: string }> } = await knex.raw(
        `WITH b AS (SELECT id, created_at, data FROM catalog_items
                    WHERE catalog_id = ? ${after ? 'AND (created_at, id) > (?::timestamptz, ?::uuid)' : ''}
                    ORDER BY created_at, id LIMIT ?),
              ins AS (INSERT INTO catalog_sort_keys (catalog_id, field, item_id, k, oversize)
                      SELECT ?, ?, b.id, (catalog_sort_key(b.data -> ?::text)).* FROM b
                      ON CONFLICT (catalog_id, field, item_id) DO NOTHING)
         SELECT count(*)::int AS n, (SELECT created_at::text FROM b ORDER BY created_at DESC, id DESC LIMIT 1) AS created_at,
                (SELECT id FROM b ORDER BY created_at DESC, id DESC LIMIT 1) AS id FROM b`,
        [catalogId, ...(after ? [after.created_at, after.id] : []), BUILD_BATCH, catalogId, field, field],
      );
      items += rows[0].n;
      if (rows[0].n < BUILD_BATCH) break;
      after = { created_at: rows[0].created_at, id: rows[0].id };
    }
    heartbeat({ field, items, step: 'sweep' });
    await knex.raw(
      `DELETE FROM catalog_sort_keys s WHERE s.catalog_id = ? AND s.field = ?
         AND NOT EXISTS (SELECT 1 FROM catalog_items ci WHERE ci.id = s.item_id AND ci.catalog_id = s.catalog_id)`,
      [catalogId, field],
    );
    const buildMs = Date.now() - started;
    const updated = await knex('catalog_sort_fields')
      .where({ catalog_id: catalogId, field, ready: false })
      .update({ ready: true, ready_at: knex.fn.now(), build_ms: buildMs });
    if (updated) out.push({ field, items, build_ms: buildMs });
  }
  await knex.raw('ANALYZE catalog_sort_keys');
  return out;
}

/**
 * Waits until every transaction of this database that started before now has ended (other than
 * this session's), polling every 250 ms: the barrier CREATE INDEX CONCURRENTLY uses too.
 */
async function waitForOlderTransactions(knex: Knex, heartbeat: (detail: unknown) => void): Promise<void> {
  const {
    rows: [{ t }],
  } = await knex.raw('SELECT clock_timestamp()::text AS t');
  for (;;) {
    const { rows } = await knex.raw(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start < ?::timestamptz
         AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL)`,
      [t],
    );
    if (rows[0].n === 0) return;
    heartbeat({ step: 'waiting for older transactions', transactions: rows[0].n });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
