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
import { carryForwardItems } from './delta';

/** Removed items listed per JSONL line of a delta file. */
const REMOVED_PER_LINE = 1000;

/** Blob key of a run's finished file. */
export function feedFileKey(run: Pick<FeedRun, 'id' | 'feed_id' | 'delta'>, format: string): string {
  return `feeds/${run.feed_id}/runs/${run.id}/feed.${run.delta ? 'jsonl' : format}`;
}

/**
 * The lines `{"changed": [], "removed": [{item_id, id}]}` of the items the base run exported
 * and this run did not (deleted, filtered out or now excluded by an error), by keyset pages:
 * for a `changed` delta the removals its pages recorded, for a `compare` delta the base's
 * items missing from this run's list.
 */
async function* removedLines(knex: Knex, run: FeedRun): AsyncGenerator<string> {
  if (!run.base_run_id) return;
  let after: string | null = null;
  for (;;) {
    const { rows } = (await knex.raw(
      run.delta_mode === 'changed'
        ? `SELECT b.item_id, b.offer_id FROM feed_run_removals b WHERE b.run_id = ? ${after ? 'AND b.item_id > ?' : ''} ORDER BY b.item_id LIMIT ?`
        : `SELECT b.item_id, b.offer_id FROM feed_run_items b
       WHERE b.run_id = ? ${after ? 'AND b.item_id > ?' : ''}
         AND NOT EXISTS (SELECT 1 FROM feed_run_items c WHERE c.run_id = ? AND c.item_id = b.item_id)
       ORDER BY b.item_id LIMIT ?`,
      run.delta_mode === 'changed'
        ? [run.id, ...(after ? [after] : []), REMOVED_PER_LINE]
        : [run.base_run_id, ...(after ? [after] : []), run.id, REMOVED_PER_LINE],
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
 * the file is the same bytes on every attempt, as it is made only of recorded pages). Then drops
 * what is no longer needed: the part blobs, the exported-item lists of the feed's older runs
 * (a delta only ever compares with the latest completed run) and expired change records.
 * A `changed` delta's item list is completed in the transaction that marks it completed.
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
    // A `changed` delta's list is completed with the base's rows of the items it did not read.
    if (run.delta_mode === 'changed') await carryForwardItems(trx, run);
    return trx('feed_runs').where({ id: runId, status: 'running' }).update({ status: 'completed', file_key: key, completed_at: trx.fn.now() });
  });
  if (done === 0) return false;
  for (const partKey of partKeys) await blobs.delete(partKey);
  await knex.raw(
    `DELETE FROM feed_run_items WHERE run_id IN (SELECT id FROM feed_runs WHERE feed_id = ? AND id <> ? AND (completed_at IS NULL OR completed_at <= (SELECT completed_at FROM feed_runs WHERE id = ?))
       AND id NOT IN (SELECT base_run_id FROM feed_runs WHERE status = 'running' AND base_run_id IS NOT NULL))`,
    [run.feed_id, runId, runId],
  );
  await pruneItemChanges(knex);
  return true;
}

/**
 * Records that a run ended without a file: `failed` with the error, or `cancelled`. A run that
 * already ended keeps its status (a cancel the API recorded stays a cancel).
 */
export async function endFeedRun(knex: Knex, runId: string, status: 'failed' | 'cancelled', error?: string): Promise<void> {
  await knex('feed_runs')
    .where('id', runId)
    .whereIn('status', ['queued', 'running'])
    .update({ status, error: error ?? null, completed_at: knex.fn.now() });
}
