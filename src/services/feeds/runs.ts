/**
 * Runs of a feed as the API sees them (docs/feeds.md, "Runs"): start one (the durable workflow
 * `feed-run-<run_id>`), read its status and counters, page through its issues, cancel it, and
 * serve its file, also through the feed's public URL. The work itself is in ./pages.ts.
 */
import type { Knex } from 'knex';
import type { Readable } from 'node:stream';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../lib/errors';
import type { BlobStore } from '../../lib/blob-store';
import { isUuid, newId } from '../../lib/ids';
import { Feed } from '../../models/feed';
import { FeedRun } from '../../models/feed-run';
import { feedRunWorkflowId } from '../../contracts/feed-workflows';
import type { Scope } from '../access/scope';
import type { JobRunner } from '../job-runner';
import { loadFeed } from './feeds';
import { contentTypeOf, rendererOf } from './channel-port';
import { ITEMS_WATERMARK_SQL } from '../catalog/item-changes';
import { feedSettingsKey } from './delta';

/** What run use cases need. */
export interface FeedRunDeps {
  knex: Knex;
  jobRunner: JobRunner;
}

/** One issue of a run as stored (`feed_run_issues`). */
export interface FeedRunIssue {
  item_id: string;
  sku: string | null;
  attribute: string;
  severity: 'error' | 'warning';
  code: string;
  message: string;
  value: string | null;
}

/** Filters and page of an issue listing (page from 1). */
export interface IssueQuery {
  page: number;
  page_size: number;
  severity?: string;
  code?: string;
  attribute?: string;
}

/** A run's file: its bytes as a stream, its MIME type and a download name. */
export interface FeedFile {
  body: Readable;
  content_type: string;
  filename: string;
}

/**
 * Inserts a run of `feed` (status `running`, `base_run_id` the last completed run when `delta`,
 * `state_id` the item state generation it writes (a full run: its own) or compares with (a delta:
 * its base's), `items_watermark` the time its reads are complete from and `settings_key`,
 * docs/feeds.md "Delta runs").
 * Shared by the API and the scheduled start, which passes its workflow id as `scheduleKey` so a
 * retried activity finds the run it created (unique key, `ON CONFLICT DO NOTHING`).
 * @returns the run
 */
export async function insertFeedRun(knex: Knex, feed: Feed, delta: boolean, scheduleKey: string | null = null): Promise<FeedRun> {
  const base = delta
    ? await FeedRun.query(knex)
        .where({ feed_id: feed.id, status: 'completed' })
        .orderBy([{ column: 'completed_at', order: 'desc' }, { column: 'id' }])
        .first()
    : undefined;
  const id = newId();
  const inserted = await knex('feed_runs')
    .insert({
      id,
      feed_id: feed.id,
      organization_id: feed.organization_id,
      status: 'running',
      delta,
      base_run_id: base?.id ?? null,
      // The item state generation: a full run writes its own; a delta compares with its base's.
      state_id: delta ? (base?.state_id ?? null) : id,
      schedule_key: scheduleKey,
      started_at: knex.fn.now(),
      items_watermark: knex.raw(ITEMS_WATERMARK_SQL),
      settings_key: await feedSettingsKey(knex, feed),
    })
    .onConflict('schedule_key')
    .ignore()
    .returning('id');
  if (inserted.length > 0) return FeedRun.query(knex).findById(id).throwIfNotFound();
  return FeedRun.query(knex).findOne({ schedule_key: scheduleKey }).throwIfNotFound();
}

/**
 * Starts a run of a feed: stores it and starts `feed-run-<run_id>` (JobKind `feed`).
 * @throws NotFoundError (404) for an unknown feed; ServiceUnavailableError (503) when this
 *   deployment cannot run workflows or Temporal is unreachable (the run is then marked failed)
 */
export async function startFeedRun(deps: FeedRunDeps, scope: Scope, feedId: string, delta: boolean): Promise<FeedRun> {
  const feed = await loadFeed(deps.knex, scope, feedId);
  if (!deps.jobRunner.startFeedRun) throw new ServiceUnavailableError('Feed runs need a Temporal worker, and this deployment starts none');
  const run = await insertFeedRun(deps.knex, feed, delta);
  try {
    await deps.jobRunner.startFeedRun({ id: run.id, organization_id: feed.organization_id, catalog_id: feed.catalog_id, feed_id: feed.id });
  } catch (err) {
    await FeedRun.query(deps.knex).patchAndFetchById(run.id, {
      status: 'failed',
      error: 'Temporal was unreachable when the run was started',
      completed_at: new Date(),
    });
    throw new ServiceUnavailableError(`Temporal is unreachable: ${(err as Error).message}`);
  }
  return run;
}

/** Loads a live feed of the caller's organization and one of its runs. @throws NotFoundError (404) for either */
async function loadFeedAndRun(knex: Knex, scope: Scope, feedId: string, runId: string): Promise<{ feed: Feed; run: FeedRun }> {
  const feed = await loadFeed(knex, scope, feedId);
  const run = isUuid(runId) ? await FeedRun.query(knex).findById(runId) : undefined;
  if (!run || run.feed_id !== feedId) throw new NotFoundError('Feed run not found');
  return { feed, run };
}

/** Loads a run of a feed of the caller's organization. @throws NotFoundError (404) */
export async function loadFeedRun(knex: Knex, scope: Scope, feedId: string, runId: string): Promise<FeedRun> {
  return (await loadFeedAndRun(knex, scope, feedId, runId)).run;
}

/**
 * The latest runs of a feed, newest first (at most `limit`), for the console's feed page
 * (docs/console.md "Feeds").
 * @throws NotFoundError (404) for an unknown, deleted or foreign feed
 */
export async function listFeedRuns(knex: Knex, scope: Scope, feedId: string, limit: number): Promise<FeedRun[]> {
  await loadFeed(knex, scope, feedId);
  return FeedRun.query(knex)
    .where('feed_id', feedId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
}

/**
 * Cancels a queued or running run: marked `cancelled` at once (pages that start later write
 * nothing), then the workflow is cancelled.
 * @throws NotFoundError (404); ConflictError (409) when the run already ended
 */
export async function cancelFeedRun(deps: FeedRunDeps, scope: Scope, feedId: string, runId: string): Promise<FeedRun> {
  await loadFeedRun(deps.knex, scope, feedId, runId);
  const updated = await FeedRun.query(deps.knex)
    .patch({ status: 'cancelled', completed_at: new Date() })
    .where('id', runId)
    .whereIn('status', ['queued', 'running'])
    .returning('*');
  if (updated.length === 0) throw new ConflictError('The feed run has already ended');
  await deps.jobRunner.cancel(feedRunWorkflowId(runId));
  return updated[0];
}

/**
 * One page of a run's issues, ordered by item then attribute, with the total.
 * @throws NotFoundError (404)
 */
export async function listFeedRunIssues(
  knex: Knex,
  scope: Scope,
  feedId: string,
  runId: string,
  q: IssueQuery,
): Promise<{ items: FeedRunIssue[]; total: number }> {
  await loadFeedRun(knex, scope, feedId, runId);
  const base = knex('feed_run_issues').where('run_id', runId);
  if (q.severity) base.where('severity', q.severity);
  if (q.code) base.where('code', q.code);
  if (q.attribute) base.where('attribute', q.attribute);
  const [{ n }] = await base.clone().count<{ n: string }[]>({ n: '*' });
  const items: FeedRunIssue[] = await base
    .clone()
    .select('item_id', 'sku', 'attribute', 'severity', 'code', 'message', 'value')
    .orderBy([{ column: 'sku' }, { column: 'item_id' }, { column: 'attribute' }, { column: 'code' }])
    .limit(q.page_size)
    .offset((q.page - 1) * q.page_size);
  return { items, total: Number(n) };
}

/** The file of a run with a file; delta runs are JSONL. @throws NotFoundError (404) when it has none (yet) */
async function fileOf(blobs: BlobStore, feed: Feed, run: FeedRun): Promise<FeedFile> {
  const body = run.file_key ? await blobs.get(run.file_key) : null;
  if (!body || !run.file_key) throw new NotFoundError('The feed run has no file (it has not completed)');
  const format = run.delta ? 'jsonl' : feed.format;
  // A full file has its writer's type; a delta file is JSONL.
  return { body, content_type: run.delta ? contentTypeOf('jsonl') : rendererOf(feed).contentType, filename: `feed-${feed.id}-${run.id}.${format}` };
}

/** The file a completed run wrote. @throws NotFoundError (404) for an unknown run or one without a file */
export async function openFeedRunFile(knex: Knex, blobs: BlobStore, scope: Scope, feedId: string, runId: string): Promise<FeedFile> {
  const { feed, run } = await loadFeedAndRun(knex, scope, feedId, runId);
  return fileOf(blobs, feed, run);
}

/**
 * The file behind a feed's public URL: the latest completed full (not delta) run's, found by the
 * feed's current token, with no organization scope (docs/feeds.md, "Public URL").
 * @throws NotFoundError (404) for an unknown, rotated or deleted token, or no completed run yet
 */
export async function openPublicFeedFile(knex: Knex, blobs: BlobStore, token: string): Promise<FeedFile> {
  const feed = await Feed.query(knex).findOne({ public_token: token, deleted: false });
  if (!feed) throw new NotFoundError('Feed not found');
  const run = await FeedRun.query(knex)
    .where({ feed_id: feed.id, status: 'completed', delta: false })
    .whereNotNull('file_key')
    .orderBy([{ column: 'completed_at', order: 'desc' }, { column: 'id' }])
    .first();
  if (!run) throw new NotFoundError('The feed has no completed run yet');
  return fileOf(blobs, feed, run);
}
