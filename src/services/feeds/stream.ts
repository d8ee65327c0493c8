/**
 * Many pages of a feed run in one activity (docs/feeds.md, "Durability"): the pages of
 * ./pages.ts written in order, each recorded in its own transaction as before, with the
 * database work overlapped with the JavaScript work: while page n is mapped, checked, hashed and
 * rendered, page n+1 is read and page n-1 is recorded (at most one read and one commit in flight,
 * so at most three pages are in memory). The progress after each recorded page (next page index,
 * keyset cursor, counters) is handed to `onCommitted`, which the activity sends as its heartbeat
 * details; a retried activity resumes from them, then skips the pages recorded after them (the
 * heartbeat may lag the last commit), so a killed worker's run resumes from its last recorded
 * page and writes the same parts.
 */
import type { Knex } from 'knex';
import type { BlobStore } from '../../lib/blob-store';
import type { FeedPageResult, FeedPagesProgress, FeedPagesResult } from '../../contracts/feed-workflows';
import { buildPageOutput, commitPage, isLastPage, pageResult, readPageInput, runContext, type PageInput, type RunContext } from './pages';

/** Options of {@link writeFeedPages}. */
export interface FeedPagesOptions {
  /** Items per page. */
  pageItems: number;
  /** Return after the first page recorded once this many ms have passed (the workflow calls again). */
  budgetMs: number;
  /** The progress a previous attempt reported (heartbeat details), or null. */
  resume?: FeedPagesProgress | null;
  /** Called after each recorded page with the new progress. */
  onCommitted?: (progress: FeedPagesProgress) => void;
  /** Aborted when the activity is cancelled: no page starts after it. */
  signal?: AbortSignal;
}

/** Adds a page's counters to a progress and moves it to the next page. */
function advance(p: FeedPagesProgress, page: FeedPageResult, last: string | null): FeedPagesProgress {
  return {
    page_index: p.page_index + 1,
    after: last,
    items_read: p.items_read + page.items_read,
    exported: p.exported + page.exported,
    excluded: p.excluded + page.excluded,
    warnings: p.warnings + page.warnings,
  };
}

/**
 * Skips the pages already recorded from `p.page_index` on (a retried activity).
 * @returns the progress after them and whether the last of them was the run's last page
 */
async function skipRecorded(
  knex: Knex,
  runId: string,
  p: FeedPagesProgress,
  pageItems: number,
  grouped: boolean,
): Promise<{ progress: FeedPagesProgress; done: boolean }> {
  const recorded = (await knex('feed_run_pages')
    .where('run_id', runId)
    .where('page_index', '>=', p.page_index)
    .orderBy('page_index')
    .select('page_index', 'last_id', 'items_read', 'exported', 'excluded', 'warnings')) as Array<
    FeedPageResult & { page_index: number; last_id: string | null }
  >;
  let progress = p;
  for (const row of recorded) {
    if (row.page_index !== progress.page_index) break;
    const page = pageResult(row, pageItems, grouped);
    progress = advance(progress, page, row.last_id);
    if (page.next === null) return { progress, done: true };
  }
  return { progress, done: false };
}

/** A read started now whose failure is reported when it is awaited, not as an unhandled rejection. */
function startRead(knex: Knex, rc: RunContext, after: string | null, pageItems: number): Promise<PageInput> {
  const read = readPageInput(knex, rc, after, pageItems);
  read.catch(() => undefined);
  return read;
}

/**
 * Writes the pages of run `runId` from `start` (page index and cursor) until its last page or
 * the time budget, each page recorded as ./pages.ts `commitPage` says.
 * @returns the progress (counters of the pages from `start.page_index`), `done` after the last
 *   page, `stopped` when the run is no longer running (cancelled)
 * @throws FeedRunNotRunnable when the feed was deleted; database or blob store errors (the
 *   activity is retried and resumes, see the module comment)
 */
export async function writeFeedPages(
  knex: Knex,
  blobs: BlobStore,
  runId: string,
  start: { page_index: number; after: string | null },
  opts: FeedPagesOptions,
): Promise<FeedPagesResult> {
  const began = Date.now();
  const rc = await runContext(knex, runId);
  const zero: FeedPagesProgress = { page_index: start.page_index, after: start.after, items_read: 0, exported: 0, excluded: 0, warnings: 0 };
  // A progress heartbeated before any page was recorded may carry no counters.
  const resumed = opts.resume && opts.resume.page_index >= start.page_index ? { ...zero, ...opts.resume } : zero;
  const skipped = await skipRecorded(knex, runId, resumed, opts.pageItems, rc.grouped);
  let progress = skipped.progress;
  if (skipped.done) return { ...progress, done: true };
  if (rc.run.status !== 'running') return { ...progress, done: false, stopped: true };

  let reading: Promise<PageInput> | null = startRead(knex, rc, progress.after, opts.pageItems);
  let committing: Promise<FeedPageResult & { stopped?: boolean }> | null = null;
  let cursor = progress.after;
  let pageIndex = progress.page_index;
  let outcome: { done: boolean; stopped?: boolean } = { done: false };
  try {
    while (reading) {
      const input: PageInput = await reading;
      const last = isLastPage(input.read.ids.length, input.read.last, opts.pageItems, rc.grouped);
      reading = last ? null : startRead(knex, rc, input.read.last, opts.pageItems);
      const out = buildPageOutput(rc, input);
      if (committing) {
        const res = await committing;
        if (res.stopped) return { ...progress, done: false, stopped: true };
      }
      if (opts.signal?.aborted) return { ...progress, done: false, stopped: true };
      const [index, after] = [pageIndex, cursor];
      committing = commitPage(knex, blobs, rc, index, after, input, out, opts.pageItems).then((res) => {
        if (!res.stopped) {
          progress = advance(progress, res, input.read.last);
          opts.onCommitted?.(progress);
        }
        return res;
      });
      committing.catch(() => undefined);
      pageIndex += 1;
      cursor = input.read.last;
      if (last) outcome = { done: true };
      else if (Date.now() - began >= opts.budgetMs) break;
    }
    if (committing) {
      const res = await committing;
      if (res.stopped) return { ...progress, done: false, stopped: true };
      if (res.next === null) outcome = { done: true };
    }
    return { ...progress, ...outcome };
  } finally {
    // A read started for a page this call will not write is let finish (its connection returns to the pool).
    if (reading) await reading.catch(() => undefined);
  }
}
