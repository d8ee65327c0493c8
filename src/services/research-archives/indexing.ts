/**
 * Indexing of one research archive, run by the `indexResearchArchive` activity of
 * researchArchiveIndexWorkflow: every HTML/PDF response record of its WARC files is read with the
 * engine's parsers (HTML: src/enrichment/parse/index-facts.ts, on one thread per core
 * (facts-threads.ts) while this thread streams the records; PDF: its text layer through
 * providers/documents fetchedPageDoc) and written to `research_archive_pages` in batches, each
 * batch in one transaction with the archive's progress counters. Memory is one batch and a bounded
 * read-ahead of pages, whatever the archive's size. A retried attempt starts
 * over: it deletes the pages an earlier attempt wrote first, so no page is indexed twice.
 * An uploaded archive is read from the blob store (./archive-files.ts) through a temporary local
 * copy, removed afterwards; the WARC files of an uploaded WACZ are put back into the store, where
 * research reads their records.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { IndexFacts } from '../../enrichment/parse/index-facts';
import { fetchedPageDoc, isHtmlType } from '../../enrichment/providers/documents';
import { readWarcEntries, type WarcEntry, type WarcPage } from '../../enrichment/research/warc/records';
import { extractWacz, WaczError } from '../../enrichment/research/warc/wacz';
import { ResearchArchive } from '../../models/research-archive';
import { startFactsThreads, type FactsThreads } from './facts-threads';
import { insertPageRows, pageRow, type PageRow } from './pages';
import type { BlobStore } from '../../lib/blob-store';
import { archiveBlobKey, blobRef, withArchiveFile } from './archive-files';

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

/** A WARC file to index: where it is now (`file`) and the reference research reads it by (`ref`). */
interface WarcFile {
  file: string;
  ref: string;
}

/** The WARC files a WACZ holds, verified and copied out into `dir`. @throws ArchiveContentError */
async function unpackWacz(file: string, dir: string): Promise<string[]> {
  try {
    return await extractWacz(file, dir);
  } catch (err) {
    if (err instanceof WaczError) throw new ArchiveContentError(`WACZ refused: ${err.message}`);
    throw err;
  }
}

/**
 * Runs `use` with the WARC files of an archive: the file itself (a local copy of an uploaded one),
 * or those a WACZ holds, unpacked into a private temporary folder (removed afterwards) and each put
 * into the blob store as `research-archives/<id>/warc/<name>`, where every worker's research reads
 * them (configured and uploaded WACZ alike).
 */
async function withWarcFiles<T>(blobs: BlobStore, archive: ResearchArchive, use: (files: WarcFile[]) => Promise<T>): Promise<T> {
  return withArchiveFile(blobs, archive.file_path, async (local) => {
    if (archive.format !== 'wacz') return use([{ file: local, ref: archive.file_path }]);
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'wacz-'));
    try {
      const warcs: WarcFile[] = [];
      for (const file of await unpackWacz(local, dir)) {
        const key = archiveBlobKey(
          archive.id,
          'warc',
          path
            .basename(file)
            .replace(/[^\w.-]+/g, '_')
            .replace(/^[._-]+/, '') || `${warcs.length}.warc`,
        );
        await blobs.put(key, fs.createReadStream(file));
        warcs.push({ file, ref: blobRef(key) });
      }
      return await use(warcs);
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  });
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
export async function indexResearchArchive(
  knex: Knex,
  blobs: BlobStore,
  archiveId: string,
  onBatch: (p: IndexProgress) => void = () => {},
): Promise<IndexProgress> {
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
  const ahead: Array<{ ref: string; page: WarcPage; facts: Promise<IndexFacts | null> }> = [];
  const takeOne = async () => {
    const { ref, page, facts } = ahead.shift()!;
    const doc = await facts;
    if (!doc) return skip('unreadable_document');
    batch.push(pageRow(archiveId, ref, page, doc));
    progress.pages_indexed++;
    if (batch.length >= INDEX_BATCH_PAGES) await flush();
  };
  try {
    await withWarcFiles(blobs, archive, async (files) => {
      for (const { file, ref } of files) {
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
          ahead.push({ ref, page: entry.page, facts });
          if (ahead.length >= threads.size * PAGES_AHEAD_PER_THREAD) await takeOne();
        }
        while (ahead.length) await takeOne();
        if (progress.records_read === before) throw new ArchiveContentError(`${path.basename(file)}: no WARC record found (not a WARC file)`);
      }
    });
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
