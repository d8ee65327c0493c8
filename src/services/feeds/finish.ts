/**
 * The end of a feed run (docs/feeds.md, "Files" and "Delta"): the parts of its pages
 * concatenated into its file (header, parts in page order, footer; a delta run's removed items
 * last), then the run marked completed; or the run marked failed or cancelled.
 */
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { BlobStore } from '../../lib/blob-store';
import { bufferOf } from '../../lib/blob-store';
import { Feed } from '../../models/feed';
import { FeedRun } from '../../models/feed-run';
import { rendererOf } from './channel-port';
import { pruneItemChanges } from '../catalog/item-changes';
import { applyDeltaToState, dropStaleState } from './item-state';

/** Removed items listed per JSONL line of a delta file. */
const REMOVED_PER_LINE = 1000;

/** Blob key of a run's finished file. */
export function feedFileKey(run: Pick<FeedRun, 'id' | 'feed_id' | 'delta'>, format: string): string {
  return `feeds/${run.feed_id}/runs/${run.id}/feed.${run.delta ? 'jsonl' : format}`;
}

/**
 * The lines `{"changed": [], "removed": [{item_id, id}]}` of the items the feed's item state
 * holds and this run does not export (deleted, filtered out or now excluded by an error), as its
 * pages recorded them (`feed_run_removals`), by keyset pages.
 */
async function* removedLines(knex: Knex, run: FeedRun): AsyncGenerator<string> {
  let after: string | null = null;
  for (;;) {
    const { rows } = (await knex.raw(
      `SELECT b.item_id, b.offer_id FROM feed_run_removals b WHERE b.run_id = ? ${after ? 'AND b.item_id > ?' : ''} ORDER BY b.item_id LIMIT ?`,
      [run.id, ...(after ? [after] : []), REMOVED_PER_LINE],
    )) as { rows: Array<{ item_id: string; offer_id: string | null }> };
    if (rows.length === 0) return;
    yield JSON.stringify({ changed: [], removed: rows.map((r) => ({ item_id: r.item_id, id: r.offer_id })) }) + '\n';
    after = rows[rows.length - 1].item_id;
  }
}

/** The file's bytes in order, streamed: header, every page's part (`partKeys` in page order), (delta) removed lines, footer. */
async function* fileChunks(knex: Knex, blobs: BlobStore, run: FeedRun, feed: Feed, partKeys: string[]): AsyncGenerator<Buffer> {
  const renderer = rendererOf(feed);
  if (!run.delta) yield Buffer.from(renderer.header(), 'utf8');
  for (const key of partKeys) {
    const part = await blobs.get(key);
    if (!part) throw new Error(`The part ${key} of feed run ${run.id} is missing`);
    yield await bufferOf(part);
  }
  if (run.delta) for await (const line of removedLines(knex, run)) yield Buffer.from(line, 'utf8');
  else yield Buffer.from(renderer.footer(), 'utf8');
}

/**
 * Writes the run's file and marks the run completed (idempotent: a completed run is left alone;
 * the file is the same bytes on every attempt, as it is made only of recorded pages). The
 * transaction that marks it completed (the feed's row locked, so completions of one feed take
 * turns) makes a full run's generation the feed's current item state, or writes a delta run's
 * changed and removed rows into the current one (./item-state.ts). Then drops what is no longer
 * needed: the part blobs, older generations, applied delta rows and expired change records.
 * @returns false when the run is no longer running (cancelled meanwhile)
 */
export async function finishFeedRun(knex: Knex, blobs: BlobStore, runId: string): Promise<boolean> {
  const run = await FeedRun.query(knex).findById(runId);
  if (!run || run.status !== 'running') return false;
  const feed = await Feed.query(knex).findById(run.feed_id).throwIfNotFound();
  const key = feedFileKey(run, feed.format);
  const partKeys: string[] = await knex('feed_run_pages').where('run_id', runId).orderBy('page_index').pluck('part_key');
  await blobs.put(key, Readable.from(fileChunks(knex, blobs, run, feed, partKeys)));
  const done = await knex.transaction(async (trx): Promise<number> => {
    await trx('feeds').where('id', run.feed_id).forUpdate().first('id');
    const current = await trx('feed_runs').where('id', runId).first('status');
    if (current?.status !== 'running') return 0;
    const stateId = run.delta ? await applyDeltaToState(trx, run.feed_id, runId) : (run.state_id ?? runId);
    return trx('feed_runs')
      .where({ id: runId, status: 'running' })
      .update({ status: 'completed', file_key: key, completed_at: trx.fn.now(), state_id: stateId });
  });
  if (done === 0) return false;
  for (const partKey of partKeys) await blobs.delete(partKey);
  await dropStaleState(knex, run.feed_id);
  await pruneItemChanges(knex);
  return true;
}

/**
 * Records that a run ended without a file: `failed` with the error, or `cancelled`. A run that
 * already ended keeps its status (a cancel the API recorded stays a cancel). Drops the item state
 * rows its pages wrote (a full run's generation, a delta's changed and removed rows).
 */
export async function endFeedRun(knex: Knex, runId: string, status: 'failed' | 'cancelled', error?: string): Promise<void> {
  await knex('feed_runs')
    .where('id', runId)
    .whereIn('status', ['queued', 'running'])
    .update({ status, error: error ?? null, completed_at: knex.fn.now() });
  // The rows its pages wrote for the item state are never applied (a full run's generation is not current).
  await knex.raw(`DELETE FROM feed_item_state WHERE state_id = ? AND EXISTS (SELECT 1 FROM feed_runs WHERE id = ? AND status IN ('failed', 'cancelled'))`, [
    runId,
    runId,
  ]);
  for (const table of ['feed_run_items', 'feed_run_removals']) await knex(table).where('run_id', runId).delete();
}
