/**
 * Indexing of one research archive (issue 27 §2), run by the `indexResearchArchive` activity of
 * researchArchiveIndexWorkflow: every HTML/PDF response record of its WARC files is read with the
 * engine's parsers (HTML: src/enrichment/parse/index-facts.ts, on one thread per core
 * (facts-threads.ts) while this thread streams the records; PDF: its text layer through
 * providers/documents fetchedPageDoc) and written to `research_archive_pages` in batches, each
 * batch in one transaction with the archive's progress counters. Memory is one batch and a bounded
 * read-ahead of pages, whatever the archive's size. A retried attempt starts
 * over: it deletes the pages an earlier attempt wrote first, so no page is indexed twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { IndexFacts } from '../../enrichment/parse/index-facts';
import { fetchedPageDoc, isHtmlType } from '../../enrichment/providers/documents';
import { readWarcEntries, type WarcEntry, type WarcPage } from '../../enrichment/research/warc/records';
import { extractWacz, WaczError } from '../../enrichment/research/warc/wacz';
import { ResearchArchive } from '../../models/research-archive';
import { startFactsThreads, type FactsThreads } from './facts-threads';
import { insertPageRows, pageRow, type PageRow } from './pages';

/** Page rows written per transaction. */
export const INDEX_BATCH_PAGES = 200;

/** Pages read ahead per parser thread: bounds the pages held in memory while threads parse. */
const PAGES_AHEAD_PER_THREAD = 16;

/** The archive's content cannot be read (not a WARC/WACZ, damaged, hashes differ): retrying will not help. */
export class ArchiveContentError extends Error {}

/** Progress of an indexing run, as stored on the archive row. */
export interface IndexProgress {
  records_read: number;
  pages_indexed: number;
  skipped: Record<string, number>;
}

/**
 * The WARC files of an archive: the file itself, or those a WACZ holds, copied out into `warc/`
 * next to it (by the upload, which verified them; else verified and copied now).
 */
async function warcFiles(archive: ResearchArchive): Promise<string[]> {
  if (archive.format !== 'wacz') return [archive.file_path];
  const dir = path.join(path.dirname(archive.file_path), 'warc');
  const copied = await fs.promises.readdir(dir).catch(() => [] as string[]);
  if (copied.length) return copied.sort().map((f) => path.join(dir, f));
  try {
    return await extractWacz(archive.file_path, dir);
  } catch (err) {
    if (err instanceof WaczError) throw new ArchiveContentError(`WACZ refused: ${err.message}`);
    throw err;
  }
}

/** The index facts of a page record: HTML read by parseIndexFacts on a thread, PDF by its text layer; null when unreadable. */
async function pageFacts(threads: FactsThreads, page: WarcPage): Promise<IndexFacts | null> {
  if (isHtmlType(page.content_type)) return threads.facts(page.body);
  return fetchedPageDoc({ url: page.url, final_url: page.url, status: 200, content_type: page.content_type, body: page.body, fetched_at: '' }).catch(
    () => null,
  );
}

/** Records of `file`, read errors turned into {@link ArchiveContentError}. */
async function* entriesOf(file: string): AsyncGenerator<WarcEntry> {
  try {
    yield* readWarcEntries(file);
  } catch (err) {
    throw new ArchiveContentError(`${path.basename(file)}: not a readable WARC file (${err instanceof Error ? err.message : String(err)})`);
  }
}

/**
 * Indexes archive `archiveId` from scratch and marks it `ready`; `onBatch` is called after each
 * committed batch (the activity heartbeats there).
 * @returns the final progress
 * @throws ArchiveContentError when the archive cannot be read as WARC/WACZ or a WARC file holds no
 *   record; database errors as they come
 */
export async function indexResearchArchive(knex: Knex, archiveId: string, onBatch: (p: IndexProgress) => void = () => {}): Promise<IndexProgress> {
  const archive = await ResearchArchive.query(knex).findById(archiveId).throwIfNotFound();
  const progress: IndexProgress = { records_read: 0, pages_indexed: 0, skipped: {} };
  await knex('research_archive_pages').where({ archive_id: archiveId }).delete();
  let batch: PageRow[] = [];
  // One batch is written while the next is parsed (PostgreSQL computes the vectors meanwhile).
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const rows = batch;
    const counters = { records_read: progress.records_read, pages_indexed: progress.pages_indexed, skipped: { ...progress.skipped } };
    batch = [];
    await writing;
    writing = knex.transaction(async (trx) => {
      await insertPageRows(trx, rows);
      await ResearchArchive.query(trx)
        .findById(archiveId)
        .patch({ ...counters, updated_at: new Date() });
    });
    // Surface a failed write at once rather than after the next batch's parse.
    writing.catch(() => {});
    onBatch(counters);
  };
  const skip = (reason: string) => (progress.skipped[reason] = (progress.skipped[reason] ?? 0) + 1);
  // Pages are parsed on one thread per core while this thread reads ahead (a bounded queue, taken in order).
  const threads = startFactsThreads();
  const ahead: Array<{ file: string; page: WarcPage; facts: Promise<IndexFacts | null> }> = [];
  const takeOne = async () => {
    const { file, page, facts } = ahead.shift()!;
    const doc = await facts;
    if (!doc) return skip('unreadable_document');
    batch.push(pageRow(archiveId, file, page, doc));
    progress.pages_indexed++;
    if (batch.length >= INDEX_BATCH_PAGES) await flush();
  };
  try {
    for (const file of await warcFiles(archive)) {
      const before = progress.records_read;
      for await (const entry of entriesOf(file)) {
        progress.records_read++;
        if ('skipped' in entry) {
          skip(entry.skipped);
          continue;
        }
        const facts = pageFacts(threads, entry.page);
        // A failure is taken in its turn below; until then it must not count as unhandled.
        facts.catch(() => {});
        ahead.push({ file, page: entry.page, facts });
        if (ahead.length >= threads.size * PAGES_AHEAD_PER_THREAD) await takeOne();
      }
      while (ahead.length) await takeOne();
      if (progress.records_read === before) throw new ArchiveContentError(`${path.basename(file)}: no WARC record found (not a WARC file)`);
    }
  } finally {
    await threads.close();
  }
  await flush();
  await writing;
  // Fresh statistics, so that lookups plan on the GIN indexes rather than scanning an archive's rows.
  await knex.raw('analyze research_archive_pages');
  await ResearchArchive.query(knex).findById(archiveId).patch({ status: 'ready', error: null, completed_at: new Date(), updated_at: new Date() });
  return progress;
}

/** Marks an archive `failed` with `error` (the workflow's last step after a failed indexing); idempotent. */
export async function markResearchArchiveFailed(knex: Knex, archiveId: string, error: string): Promise<void> {
  await ResearchArchive.query(knex)
    .findById(archiveId)
    .patch({ status: 'failed', error: error.slice(0, 2000), completed_at: new Date(), updated_at: new Date() });
}
