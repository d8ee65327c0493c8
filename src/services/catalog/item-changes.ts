/**
 * Which items of a catalog changed since a time, for the readers that keep state derived from
 * the items and refresh it by the changes (docs/feeds.md "Delta runs", docs/channels.md
 * "Readiness"). Every insert, update and delete of items leaves a record in
 * `catalog_item_changes` (statement triggers; the writing transaction's start as `changed_at`),
 * kept {@link CHANGE_RETENTION_DAYS} days. A log, not an index on `updated_at`, which would make
 * every item update non-HOT (migration 20261203090000_feed_delta_changes). A snapshot restore
 * makes readers read everything again ({@link restoredSince}); its writes leave no per-item
 * records (`catalog_items.change_records_supplied`, migration 20261209090000): its `safety`
 * snapshot, which is never deleted while the catalog exists, is the record readers look for.
 */
import type { Knex } from 'knex';

/**
 * How long change records are kept (days). A reader whose watermark is older reads everything
 * again, as the records of changes before it may be gone.
 */
export const CHANGE_RETENTION_DAYS = 30;

/**
 * SQL of a watermark: the time from which a read that starts now is complete. It is the
 * earliest start of a client transaction open now (an item written by one has a change record
 * stamped with its start and may commit while the read runs), or now. Items changed after a read
 * that took its watermark this way have a change record at or after the watermark.
 */
export const ITEMS_WATERMARK_SQL = `LEAST(now(), (SELECT min(xact_start) FROM pg_stat_activity
  WHERE datname = current_database() AND backend_type = 'client backend' AND xact_start IS NOT NULL))`;

/**
 * SQL of the ids touched since `since`, with bindings (catalog and since, three times): the
 * items written or deleted since, their products (a product that gained or lost a variant turns
 * into a group or back into a row of its own; a moved variant's old product is recorded too),
 * and the variants of written products (they inherit its values).
 */
export function touchedIdsSql(catalogId: string, since: Date): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `SELECT item_id AS id FROM catalog_item_changes WHERE catalog_id = ? AND changed_at >= ?
      UNION SELECT parent_id FROM catalog_item_changes WHERE catalog_id = ? AND changed_at >= ? AND parent_id IS NOT NULL
      UNION SELECT v.id FROM catalog_item_changes c JOIN catalog_items v ON v.parent_id = c.item_id WHERE c.catalog_id = ? AND c.changed_at >= ?`,
    bindings: [catalogId, since, catalogId, since, catalogId, since],
  };
}

/**
 * Runs a touched-ids query in a transaction (the caller's, or one of its own) that plans without
 * parallel workers or JIT compilation (`SET LOCAL`, so only for that transaction). The planner
 * estimates the variants of the change records from the `parent_id` statistics at tens of
 * thousands of rows, so it started parallel workers and compiled the query: 60–100 ms of start-up
 * on a loaded machine for a query that reads a few index entries (a readiness call that found
 * nothing touched took 100 ms, all of it this query; docs/benchmarks.md "Feeds").
 */
async function withSerialPlan<T>(knex: Knex, query: (db: Knex) => Promise<T>): Promise<T> {
  const run = async (trx: Knex.Transaction) => {
    await trx.raw('SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off');
    return query(trx);
  };
  return knex.isTransaction ? run(knex as Knex.Transaction) : knex.transaction(run);
}

/** The next touched ids (see {@link touchedIdsSql}) after the keyset cursor `after`, in id order, at most `limit`. */
export async function touchedIdsAfter(knex: Knex, catalogId: string, since: Date, after: string | null, limit: number): Promise<string[]> {
  const t = touchedIdsSql(catalogId, since);
  const { rows } = await withSerialPlan(knex, (db) =>
    db.raw(`SELECT id FROM (${t.sql}) t WHERE id IS NOT NULL ${after ? 'AND id > ?' : ''} ORDER BY id LIMIT ?`, [
      ...t.bindings,
      ...(after ? [after] : []),
      limit,
    ]),
  );
  return rows.map((r: { id: string }) => r.id);
}

/** How many ids were touched since `since` (see {@link touchedIdsSql}). */
export async function countTouched(knex: Knex, catalogId: string, since: Date): Promise<number> {
  const t = touchedIdsSql(catalogId, since);
  const { rows } = await withSerialPlan(knex, (db) => db.raw(`SELECT count(*)::int AS n FROM (${t.sql}) t WHERE id IS NOT NULL`, t.bindings));
  return rows[0].n;
}

/**
 * Whether a reader with watermark `since` must read everything again: a snapshot restore of
 * the catalog since (its safety snapshot is taken in the restore's transaction and stamped with
 * its start, as a change record would be; the restore writes no per-item records), or `since`
 * older than the change records' retention.
 */
export async function restoredSince(knex: Knex, catalogId: string, since: Date): Promise<boolean> {
  const { rows } = await knex.raw(
    `SELECT (?::timestamptz < now() - make_interval(days => ?))
       OR EXISTS (SELECT 1 FROM catalog_snapshots WHERE catalog_id = ? AND snapshot_type = 'safety' AND created_at >= ?) AS stale`,
    [since, CHANGE_RETENTION_DAYS, catalogId, since],
  );
  return rows[0].stale === true;
}

/** Drops change records older than {@link CHANGE_RETENTION_DAYS}. */
export async function pruneItemChanges(knex: Knex): Promise<void> {
  await knex.raw('DELETE FROM catalog_item_changes WHERE changed_at < now() - make_interval(days => ?)', [CHANGE_RETENTION_DAYS]);
}
