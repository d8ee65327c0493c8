/**
 * Which items of a catalog changed since a time, for the readers that keep state derived from
 * the items and refresh it by the changes (docs/feeds.md "Delta runs", docs/channels.md
 * "Readiness"). Every item writer sets `updated_at = now()` (its transaction's start; index
 * `(catalog_id, updated_at)`), and every deletion leaves a record in `catalog_item_deletions`
 * (a statement trigger), kept {@link DELETION_RETENTION_DAYS} days. A snapshot restore writes
 * items with their old `updated_at`: readers fall back to a full read after one
 * ({@link restoredSince}).
 */
import type { Knex } from 'knex';

/**
 * How long deletion records are kept (days). A reader whose watermark is older reads
 * everything again, as the records of deletions before it may be gone.
 */
export const DELETION_RETENTION_DAYS = 30;

/**
 * SQL of a watermark: the time from which a read that starts now is complete. It is the
 * earliest start of a client transaction open now (an item written by one has `updated_at` =
 * its start and may commit while the read runs), or now. Items changed after a read that took
 * its watermark this way have `updated_at` (or a deletion record) at or after the watermark.
 */
export const ITEMS_WATERMARK_SQL = `LEAST(now(), (SELECT min(xact_start) FROM pg_stat_activity
  WHERE datname = current_database() AND backend_type = 'client backend' AND xact_start IS NOT NULL))`;

/**
 * SQL of the ids touched since `since`, with bindings (catalog and since, five times): the
 * items written since, the products of written variants (a product that gained a variant is no
 * longer a row of its own), the variants of written products (they inherit its values), the
 * items deleted since and the products of deleted variants (a product that lost its last
 * variant is a row again).
 */
export function touchedIdsSql(catalogId: string, since: Date): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `SELECT id FROM catalog_items WHERE catalog_id = ? AND updated_at >= ?
      UNION SELECT parent_id FROM catalog_items WHERE catalog_id = ? AND updated_at >= ? AND parent_id IS NOT NULL
      UNION SELECT v.id FROM catalog_items p JOIN catalog_items v ON v.parent_id = p.id WHERE p.catalog_id = ? AND p.updated_at >= ?
      UNION SELECT item_id FROM catalog_item_deletions WHERE catalog_id = ? AND deleted_at >= ?
      UNION SELECT parent_id FROM catalog_item_deletions WHERE catalog_id = ? AND deleted_at >= ? AND parent_id IS NOT NULL`,
    bindings: [catalogId, since, catalogId, since, catalogId, since, catalogId, since, catalogId, since],
  };
}

/** The next touched ids (see {@link touchedIdsSql}) after the keyset cursor `after`, in id order, at most `limit`. */
export async function touchedIdsAfter(knex: Knex, catalogId: string, since: Date, after: string | null, limit: number): Promise<string[]> {
  const t = touchedIdsSql(catalogId, since);
  const { rows } = await knex.raw(`SELECT id FROM (${t.sql}) t WHERE id IS NOT NULL ${after ? 'AND id > ?' : ''} ORDER BY id LIMIT ?`, [
    ...t.bindings,
    ...(after ? [after] : []),
    limit,
  ]);
  return rows.map((r: { id: string }) => r.id);
}

/** How many ids were touched since `since` (see {@link touchedIdsSql}). */
export async function countTouched(knex: Knex, catalogId: string, since: Date): Promise<number> {
  const t = touchedIdsSql(catalogId, since);
  const { rows } = await knex.raw(`SELECT count(*)::int AS n FROM (${t.sql}) t WHERE id IS NOT NULL`, t.bindings);
  return rows[0].n;
}

/**
 * Whether a reader with watermark `since` must read everything again: a snapshot restore of
 * the catalog since (its safety snapshot is taken in the restore's transaction), or `since`
 * older than the deletion records' retention.
 */
export async function restoredSince(knex: Knex, catalogId: string, since: Date): Promise<boolean> {
  const { rows } = await knex.raw(
    `SELECT (?::timestamptz < now() - make_interval(days => ?))
       OR EXISTS (SELECT 1 FROM catalog_snapshots WHERE catalog_id = ? AND snapshot_type = 'safety' AND created_at >= ?) AS stale`,
    [since, DELETION_RETENTION_DAYS, catalogId, since],
  );
  return rows[0].stale === true;
}

/** Drops deletion records older than {@link DELETION_RETENTION_DAYS}. */
export async function pruneDeletions(knex: Knex): Promise<void> {
  await knex.raw('DELETE FROM catalog_item_deletions WHERE deleted_at < now() - make_interval(days => ?)', [DELETION_RETENTION_DAYS]);
}
