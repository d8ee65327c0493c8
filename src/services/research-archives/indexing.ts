/**
 * Indexing of one research archive (issue 27 §2), run by the `indexResearchArchive` activity of
 * researchArchiveIndexWorkflow: every HTML/PDF response record of its WARC files is parsed with the
 * engine's page parser (src/enrichment/parse, via providers/documents fetchedPageDoc) and written
 * to `research_archive_pages` in batches, each batch in one transaction with the archive's
 * progress counters. Memory is one batch, whatever the archive's size. A retried attempt starts
 * over: it deletes the pages an earlier attempt wrote first, so no page is indexed twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { fetchedPageDoc } from '../../enrichment/providers/documents';
import { readWarcEntries, type WarcEntry } from '../../enrichment/research/warc/records';
import { extractWacz, WaczError } from '../../enrichment/research/warc/wacz';
import { ResearchArchive } from '../../models/research-archive';
import { insertPageRows, pageRow, type PageRow } from './pages';

/** Page rows written per transaction. */
export const INDEX_BATCH_PAGES = 200;

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
 * @throws ArchiveContentError when the archive cannot be read as WARC/WACZ; database errors as they come
 */
export async function indexResearchArchive(knex: Knex, archiveId: string, onBatch: (p: IndexProgress) => void = () => {}): Promise<IndexProgress> {
  const archive = await ResearchArchive.query(knex).findById(archiveId).throwIfNotFound();
  const progress: IndexProgress = { records_read: 0, pages_indexed: 0, skipped: {} };
  await knex('research_archive_pages').where({ archive_id: archiveId }).delete();
  let batch: PageRow[] = [];
  const flush = async () => {
    const rows = batch;
    batch = [];
    await knex.transaction(async (trx) => {
      await insertPageRows(trx, rows);
      await ResearchArchive.query(trx)
        .findById(archiveId)
        .patch({ records_read: progress.records_read, pages_indexed: progress.pages_indexed, skipped: progress.skipped, updated_at: new Date() });
    });
    onBatch(progress);
  };
  const skip = (reason: string) => (progress.skipped[reason] = (progress.skipped[reason] ?? 0) + 1);
  for (const file of await warcFiles(archive)) {
    for await (const entry of entriesOf(file)) {
      progress.records_read++;
      if ('skipped' in entry) {
        skip(entry.skipped);
        continue;
      }
      const { page } = entry;
      const doc = await fetchedPageDoc({
        url: page.url,
        final_url: page.url,
        status: 200,
        content_type: page.content_type,
        body: page.body,
        fetched_at: '',
      }).catch(() => null);
      if (!doc) {
        skip('unreadable_document');
        continue;
      }
      batch.push(pageRow(archiveId, file, page, doc));
      progress.pages_indexed++;
      if (batch.length >= INDEX_BATCH_PAGES) await flush();
    }
  }
  await flush();
  await ResearchArchive.query(knex).findById(archiveId).patch({ status: 'ready', error: null, completed_at: new Date(), updated_at: new Date() });
  return progress;
}

/** Marks an archive `failed` with `error` (the workflow's last step after a failed indexing); idempotent. */
export async function markResearchArchiveFailed(knex: Knex, archiveId: string, error: string): Promise<void> {
  await ResearchArchive.query(knex)
    .findById(archiveId)
    .patch({ status: 'failed', error: error.slice(0, 2000), completed_at: new Date(), updated_at: new Date() });
}
