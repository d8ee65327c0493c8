/**
 * Delta runs that read only what changed (docs/feeds.md, "Delta runs"). A delta run in mode
 * `changed` reads the **touched** items of its catalog since its base run's watermark, pages
 * them by id like a full run, compares their rows with the base's row hashes, records the
 * base's items it read and did not export (`feed_run_removals`) and, when it finishes, carries
 * the base's rows of every item it did not read into its own `feed_run_items` in one
 * `INSERT … SELECT`, so the next delta has a complete base. A delta in mode `compare` reads
 * every item and compares each row hash (the rule the `changed` mode reproduces); it is used
 * when a change may reach rows without touching items (see {@link chooseDeltaMode}).
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Feed } from '../../models/feed';
import type { FeedRun } from '../../models/feed-run';

/** How a delta run finds its changes: the items written since the base (`changed`), or every item's row hash (`compare`). */
export type DeltaMode = 'changed' | 'compare';

/**
 * How long deletion records are kept (days). A delta whose base's watermark is older compares
 * every item, as the records of deletions before it may be gone.
 */
export const DELETION_RETENTION_DAYS = 30;

/**
 * SQL of the time a new run's reads are complete from: the earliest start of a client
 * transaction open now (an item written by one has `updated_at` = its start and may commit
 * while the run reads), or now. Used as `feed_runs.items_watermark` at the run's creation.
 */
export const ITEMS_WATERMARK_SQL = `LEAST(now(), (SELECT min(xact_start) FROM pg_stat_activity
  WHERE datname = current_database() AND backend_type = 'client backend' AND xact_start IS NOT NULL))`;

/**
 * SQL of the ids a `changed` delta must look at, with bindings (catalog, since ×5):
 * the items written since `since`, the products of written variants (a product that gained a
 * variant is no longer exported), the variants of written products (they inherit its values),
 * the items deleted since (from `catalog_item_deletions`) and the products of deleted variants
 * (a product that lost its last variant is exported again).
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

/**
 * The hash of what turns a feed's items into rows besides the items themselves: the feed's
 * channel, format, mapping, currency and filter, and its catalog's product id field and current
 * schema version (taxonomy). Stored on every run (`feed_runs.settings_key`).
 */
export async function feedSettingsKey(knex: Knex, feed: Feed): Promise<string> {
  const catalog = (await knex('catalogs').where('id', feed.catalog_id).first('product_id_field', 'current_schema_version')) as
    { product_id_field: string | null; current_schema_version: string | number | null } | undefined;
  const parts = [
    feed.channel,
    feed.format,
    feed.mapping,
    feed.currency,
    feed.filter,
    catalog?.product_id_field ?? null,
    catalog?.current_schema_version ?? null,
  ];
  return crypto.createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * Chooses how a delta run finds its changes. `changed` needs a base with a watermark `W`, the
 * same settings key as now ({@link feedSettingsKey}: no change of mapping, currency, filter,
 * product id field or schema version since), no snapshot restore of the catalog since `W` (it
 * writes items with their old `updated_at`) and `W` within the deletion records' retention.
 * Otherwise `compare`.
 */
export async function chooseDeltaMode(knex: Knex, feed: Feed, base: FeedRun | undefined): Promise<DeltaMode> {
  const since = base?.items_watermark ?? null;
  if (!base || !since || !base.settings_key || base.settings_key !== (await feedSettingsKey(knex, feed))) return 'compare';
  const { rows } = await knex.raw(
    `SELECT (?::timestamptz < now() - make_interval(days => ?))
       OR EXISTS (SELECT 1 FROM catalog_snapshots WHERE catalog_id = ? AND snapshot_type = 'safety' AND created_at >= ?)
       AS compare`,
    [since, DELETION_RETENTION_DAYS, feed.catalog_id, since],
  );
  return rows[0].compare ? 'compare' : 'changed';
}

/** The watermark a `changed` delta reads from: its base's. @throws Error when the base has none (the mode would not be `changed`) */
export async function deltaSince(knex: Knex, run: FeedRun): Promise<Date> {
  const row = await knex('feed_runs').select('items_watermark').where('id', run.base_run_id).first();
  if (!row?.items_watermark) throw new Error(`The base of delta run ${run.id} has no watermark`);
  return row.items_watermark as Date;
}

/**
 * The next ids of a `changed` delta after the keyset cursor `after`, in id order (at most
 * `limit`): touched items (see {@link touchedIdsSql}), existing or deleted.
 */
export async function touchedIdsAfter(knex: Knex, catalogId: string, since: Date, after: string | null, limit: number): Promise<string[]> {
  const t = touchedIdsSql(catalogId, since);
  const { rows } = await knex.raw(`SELECT id FROM (${t.sql}) t WHERE id IS NOT NULL ${after ? 'AND id > ?' : ''} ORDER BY id LIMIT ?`, [
    ...t.bindings,
    ...(after ? [after] : []),
    limit,
  ]);
  return rows.map((r: { id: string }) => r.id);
}

/** How many ids a `changed` delta will look at (its `total`). */
export async function countTouched(knex: Knex, catalogId: string, since: Date): Promise<number> {
  const t = touchedIdsSql(catalogId, since);
  const { rows } = await knex.raw(`SELECT count(*)::int AS n FROM (${t.sql}) t WHERE id IS NOT NULL`, t.bindings);
  return rows[0].n;
}

/**
 * Completes a finished `changed` delta run's item list (idempotent): the base's rows of the
 * items the run neither exported nor recorded as removed are copied with their hash and offer
 * id, in SQL, so the next delta compares with what was last sent.
 */
export async function carryForwardItems(knex: Knex, run: FeedRun): Promise<void> {
  await knex.raw(
    `INSERT INTO feed_run_items (run_id, item_id, offer_id, row_hash)
     SELECT ?, b.item_id, b.offer_id, b.row_hash FROM feed_run_items b
     WHERE b.run_id = ?
       AND NOT EXISTS (SELECT 1 FROM feed_run_items c WHERE c.run_id = ? AND c.item_id = b.item_id)
       AND NOT EXISTS (SELECT 1 FROM feed_run_removals r WHERE r.run_id = ? AND r.item_id = b.item_id)
     ON CONFLICT (run_id, item_id) DO NOTHING`,
    [run.id, run.base_run_id, run.id, run.id],
  );
}

/** Drops deletion records older than {@link DELETION_RETENTION_DAYS}. */
export async function pruneDeletions(knex: Knex): Promise<void> {
  await knex.raw('DELETE FROM catalog_item_deletions WHERE deleted_at < now() - make_interval(days => ?)', [DELETION_RETENTION_DAYS]);
}
