import type { Knex } from 'knex';

/**
 * The per-feed item state that replaces the per-run item lists (docs/feeds.md, "Item state and
 * delta runs"):
 *
 * - `feed_item_state`: for each item a feed last sent, the hash of its row and its offer id, in
 *   one **generation** (`state_id`): the id of the full run that wrote it. A full run writes all
 *   its exported rows into a generation of its own, page by page in each page's transaction; the
 *   transaction that marks it completed makes it the feed's current one (`feed_runs.state_id` of
 *   the latest completed run) and older generations are dropped afterwards. A delta run compares
 *   with the current generation and, when it completes, updates it in place with only its
 *   changed and removed rows, so no run copies the unchanged rows forward. No foreign key: its
 *   check per row would cost a full run more than the insert itself; the rows of deleted runs
 *   go with them through the `feed_runs` delete trigger below.
 * - `feed_runs.state_id`: the generation a run writes (a full run: its own id) or compares with
 *   and updates (a delta: the feed's current one when it began, then the one it updated).
 * - `feed_run_items` now holds only a delta run's changed rows (its new hash and offer id), which
 *   its completion writes into the generation; `feed_run_removals` its removed ones.
 *
 * The item list of each feed's latest completed run moves into a generation of that run (same
 * hashes: the row hash is unchanged). Apply while no delta run is in flight.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('feed_item_state', (t) => {
    t.uuid('state_id').notNullable();
    t.uuid('item_id').notNullable();
    /** The row's `id` attribute (the channel's offer id), what a delta's `removed` names. */
    t.text('offer_id');
    t.string('row_hash', 64).notNullable();
    t.primary(['state_id', 'item_id']);
  });
  await knex.schema.alterTable('feed_runs', (t) => {
    t.uuid('state_id');
  });
  await knex.raw(`
    CREATE FUNCTION feed_item_state_drop_trg() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM feed_item_state WHERE state_id IN (SELECT o.id FROM old_runs o);
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER feed_item_state_drop AFTER DELETE ON feed_runs
    REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION feed_item_state_drop_trg()`);
  // Each feed's latest completed run with an item list becomes its current generation.
  await knex.raw(`
    WITH latest AS (
      SELECT DISTINCT ON (r.feed_id) r.id FROM feed_runs r
      WHERE r.status = 'completed' ORDER BY r.feed_id, r.completed_at DESC, r.id
    )
    INSERT INTO feed_item_state (state_id, item_id, offer_id, row_hash)
    SELECT i.run_id, i.item_id, i.offer_id, i.row_hash FROM feed_run_items i JOIN latest l ON l.id = i.run_id`);
  await knex.raw('UPDATE feed_runs r SET state_id = r.id WHERE EXISTS (SELECT 1 FROM feed_item_state s WHERE s.state_id = r.id)');
  await knex.raw('DELETE FROM feed_run_items');
}

/** Reverts `up` (the generations' rows go back to their runs' item lists). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    INSERT INTO feed_run_items (run_id, item_id, offer_id, row_hash)
    SELECT r.id, s.item_id, s.offer_id, s.row_hash FROM feed_runs r JOIN feed_item_state s ON s.state_id = r.state_id
    WHERE r.status = 'completed' ON CONFLICT (run_id, item_id) DO NOTHING`);
  await knex.raw('DROP TRIGGER IF EXISTS feed_item_state_drop ON feed_runs');
  await knex.raw('DROP FUNCTION IF EXISTS feed_item_state_drop_trg()');
  await knex.schema.alterTable('feed_runs', (t) => {
    t.dropColumn('state_id');
  });
  await knex.schema.dropTableIfExists('feed_item_state');
}
