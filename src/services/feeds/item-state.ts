/**
 * The per-feed item state (docs/feeds.md, "Delta runs"): for each item a feed
 * last sent, its row hash and offer id, in a **generation** (`feed_item_state.state_id`, the id
 * of the full run that wrote it). A full run writes a generation of its own page by page; when
 * it completes it becomes the feed's current one. A delta run compares with the generation it
 * began with and, when it completes, updates the current one in place by its changed and removed
 * rows only. The feed's current generation is the `state_id` of its latest completed run.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { FeedRow } from './channel-port';

/** One item of a generation: its offer id (the row's `id`) and row hash. */
export interface StateRow {
  item_id: string;
  offer_id: string | null;
  row_hash: string;
}

/**
 * Builds the row hasher of one run: SHA-256 (hex) of the row's JSON with its keys sorted, the
 * same text as `JSON.stringify` of the key-sorted row (hashes stored by earlier code stay
 * comparable). The sorted key order is kept per key set, which most rows of a feed share.
 * @returns a function of a row to its 64-character hex hash
 */
export function rowHasher(): (row: FeedRow) => string {
  const orders = new Map<string, Array<[string, string]>>();
  return (row) => {
    const keys = Object.keys(row);
    const signature = keys.join('\u0000');
    let order = orders.get(signature);
    if (!order) {
      order = keys
        .slice()
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((k): [string, string] => [k, JSON.stringify(k) + ':']);
      orders.set(signature, order);
    }
    let text = '{';
    let first = true;
    for (const [key, quoted] of order) {
      const value = row[key];
      if (value === undefined) continue;
      text += (first ? '' : ',') + quoted + JSON.stringify(value);
      first = false;
    }
    return crypto.hash('sha256', text + '}', 'hex');
  };
}

/** A text array binding that may hold nulls (`?::text[]`; knex's binding types do not allow null elements). */
export function textArray(values: Array<string | null>): Knex.RawBinding {
  return values as unknown as Knex.RawBinding;
}

/** The feed's current generation: the `state_id` of its latest completed run (null: none yet). */
export async function currentStateId(knex: Knex, feedId: string): Promise<string | null> {
  const row = await knex('feed_runs')
    .select('state_id')
    .where({ feed_id: feedId, status: 'completed' })
    .orderBy([{ column: 'completed_at', order: 'desc' }, { column: 'id' }])
    .first();
  return (row?.state_id as string | null | undefined) ?? null;
}

/** The rows of generation `stateId` among `itemIds`. */
export async function stateRowsOf(knex: Knex, stateId: string, itemIds: string[]): Promise<StateRow[]> {
  if (itemIds.length === 0) return [];
  const { rows } = await knex.raw('SELECT item_id, offer_id, row_hash FROM feed_item_state WHERE state_id = ? AND item_id = ANY(?::uuid[])', [
    stateId,
    itemIds,
  ]);
  return rows as StateRow[];
}

/** The rows of generation `stateId` with ids in (`after`, `last`]; a null bound is open. */
export async function stateRowsBetween(knex: Knex, stateId: string, after: string | null, last: string | null): Promise<StateRow[]> {
  const { rows } = await knex.raw(
    `SELECT item_id, offer_id, row_hash FROM feed_item_state WHERE state_id = ?
       ${after ? 'AND item_id > ?' : ''} ${last ? 'AND item_id <= ?' : ''} ORDER BY item_id`,
    [stateId, ...(after ? [after] : []), ...(last ? [last] : [])],
  );
  return rows as StateRow[];
}

/** Inserts rows into a generation (or a run's changed rows into `feed_run_items`) in one statement; an item already there is left as is. */
export async function insertStateRows(trx: Knex.Transaction, table: 'feed_item_state' | 'feed_run_items', key: string, rows: StateRow[]): Promise<void> {
  if (rows.length === 0) return;
  const keyColumn = table === 'feed_item_state' ? 'state_id' : 'run_id';
  await trx.raw(
    `INSERT INTO ${table} (${keyColumn}, item_id, offer_id, row_hash)
     SELECT ?, u.item_id, u.offer_id, u.row_hash FROM unnest(?::uuid[], ?::text[], ?::text[]) AS u(item_id, offer_id, row_hash)
     ON CONFLICT DO NOTHING`,
    [key, rows.map((r) => r.item_id), textArray(rows.map((r) => r.offer_id)), rows.map((r) => r.row_hash)],
  );
}

/**
 * Applies a completed delta run's changes to the feed's current generation, in the caller's
 * transaction (the one that marks the run completed): its removed items deleted, its changed
 * rows written over (or added). A feed without a generation yet gets one of this run's rows
 * (its base was empty, so its changed rows are every row it sent).
 * @returns the generation the run's rows are now in (to store as the run's `state_id`)
 */
export async function applyDeltaToState(trx: Knex.Transaction, feedId: string, runId: string): Promise<string> {
  const current = (await currentStateId(trx, feedId)) ?? runId;
  await trx.raw(
    `DELETE FROM feed_item_state s USING feed_run_removals r
     WHERE r.run_id = ? AND s.state_id = ? AND s.item_id = r.item_id`,
    [runId, current],
  );
  await trx.raw(
    `INSERT INTO feed_item_state (state_id, item_id, offer_id, row_hash)
     SELECT ?, c.item_id, c.offer_id, c.row_hash FROM feed_run_items c WHERE c.run_id = ?
     ON CONFLICT (state_id, item_id) DO UPDATE SET offer_id = EXCLUDED.offer_id, row_hash = EXCLUDED.row_hash`,
    [current, runId],
  );
  return current;
}

/**
 * Drops what a feed no longer needs once a run completed: the generations other than the
 * current one and those running runs still write or compare with, and the changed and removed
 * rows of its ended delta runs (already applied to the generation).
 */
export async function dropStaleState(knex: Knex, feedId: string): Promise<void> {
  const current = await currentStateId(knex, feedId);
  await knex.raw(
    `DELETE FROM feed_item_state WHERE state_id IN (
       SELECT r.id FROM feed_runs r WHERE r.feed_id = ? AND r.status <> 'running' AND r.id IS DISTINCT FROM ?
         AND r.id NOT IN (SELECT state_id FROM feed_runs WHERE feed_id = ? AND status = 'running' AND state_id IS NOT NULL))`,
    [feedId, current, feedId],
  );
  for (const table of ['feed_run_items', 'feed_run_removals'])
    await knex.raw(`DELETE FROM ${table} WHERE run_id IN (SELECT id FROM feed_runs WHERE feed_id = ? AND delta AND status <> 'running')`, [feedId]);
}
