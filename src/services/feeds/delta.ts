/**
 * Delta runs that read only what changed (docs/feeds.md, "Delta runs"). A delta
 * run in mode `changed` reads the **touched** items of its catalog since its base run's
 * watermark, pages them by id like a full run, compares their rows with the feed's item state
 * (./item-state.ts), records its changed rows (`feed_run_items`) and the state's items it read
 * and did not export (`feed_run_removals`); when it completes, those rows alone update the state
 * in place. A delta in mode `compare` reads every item and compares each row hash (the rule the
 * `changed` mode reproduces); it is used when a change may reach rows without touching items
 * (see {@link chooseDeltaMode}). Which items changed: src/services/catalog/item-changes.ts.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Feed } from '../../models/feed';
import type { FeedRun } from '../../models/feed-run';
import { restoredSince } from '../catalog/item-changes';

/** How a delta run finds its changes: the items written since the base (`changed`), or every item's row hash (`compare`). */
export type DeltaMode = 'changed' | 'compare';

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
 * Chooses how a delta run finds its changes. `changed` needs a base with a watermark `W` and an
 * item state generation, the
 * same settings key as now ({@link feedSettingsKey}: no change of mapping, currency, filter,
 * product id field or schema version since), no snapshot restore of the catalog since `W` (a
 * restore writes no change records, see item-changes.ts `restoredSince`, and replaces so many
 * items that reading all is as cheap) and `W` within the change records' retention.
 * Otherwise `compare`.
 */
export async function chooseDeltaMode(knex: Knex, feed: Feed, base: FeedRun | undefined): Promise<DeltaMode> {
  const since = base?.items_watermark ?? null;
  if (!base || !since || !base.state_id || !base.settings_key || base.settings_key !== (await feedSettingsKey(knex, feed))) return 'compare';
  return (await restoredSince(knex, feed.catalog_id, since)) ? 'compare' : 'changed';
}

/** The watermark a `changed` delta reads from: its base's. @throws Error when the base has none (the mode would not be `changed`) */
export async function deltaSince(knex: Knex, run: FeedRun): Promise<Date> {
  const row = await knex('feed_runs').select('items_watermark').where('id', run.base_run_id).first();
  if (!row?.items_watermark) throw new Error(`The base of delta run ${run.id} has no watermark`);
  return row.items_watermark as Date;
}
