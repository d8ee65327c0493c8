/**
 * Research archives of an organization (docs/research.md): upload, list, read and
 * delete (`/public/research-archives`), and the archives configured by `RESEARCH_ARCHIVES`
 * (WARC/WACZ files, shared by every organization, registered once per content hash). An upload
 * is kept in the blob store under `research-archives/<id>/` (./archive-files.ts), a WACZ verified
 * against its datapackage.json at once, and indexed by the durable workflow `research-archive-<id>`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, ServiceUnavailableError, UnsupportedMediaTypeError, ValidationError } from '../../lib/errors';
import { isUuid, newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { extractWacz, WaczError } from '../../enrichment/research/warc/wacz';
import { ResearchArchive, type ResearchArchiveFormat } from '../../models/research-archive';
import type { JobRunner } from '../job-runner';
import type { Scope } from '../access/scope';
import { researchArchiveWorkflowId } from '../../contracts/workflows';
import type { BlobStore } from '../../lib/blob-store';
import { archiveBlobKey, blobKeyOf, blobRef } from './archive-files';

/** What the archive service needs: the database, the runner that starts indexing, and the blob store uploads are kept in. */
export interface ResearchArchiveDeps {
  knex: Knex;
  jobRunner: JobRunner;
  blobs: BlobStore;
}

/** The format of an archive file by its name (`.warc`, `.warc.gz`, `.wacz`), or null. */
export function archiveFormat(name: string): ResearchArchiveFormat | null {
  if (/\.warc$/i.test(name)) return 'warc';
  if (/\.warc\.gz$/i.test(name)) return 'warc.gz';
  if (/\.wacz$/i.test(name)) return 'wacz';
  return null;
}

/** SHA-256 (hex) and size of a file, streamed. */
export async function fileDigest(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/**
 * Verifies a WACZ against its datapackage.json hashes by unpacking its WARC files into a private
 * temporary folder, removed afterwards (the worker that indexes it unpacks it again).
 * @throws ValidationError (422) when it fails verification
 */
async function verifyWacz(file: string): Promise<void> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'wacz-'));
  try {
    await extractWacz(file, dir);
  } catch (err) {
    if (err instanceof WaczError) throw ValidationError.at(['body', 'file'], `WACZ refused: ${err.message}`, 'value_error');
    throw err;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Starts indexing; on failure marks the archive failed and answers 503. */
async function startIndexing(deps: ResearchArchiveDeps, archive: ResearchArchive): Promise<void> {
  try {
    if (!deps.jobRunner.startResearchArchiveIndex) throw new Error('this deployment runs no Temporal worker');
    await deps.jobRunner.startResearchArchiveIndex({ id: archive.id, organization_id: archive.organization_id, name: archive.name });
  } catch (err) {
    logger.error({ err, archive_id: archive.id }, 'could not start research archive indexing');
    await ResearchArchive.query(deps.knex)
      .findById(archive.id)
      .patch({ status: 'failed', error: 'Indexing could not be started; upload again later', updated_at: new Date() });
    throw new ServiceUnavailableError('Workflow service unavailable; the archive was not indexed');
  }
}

/**
 * Stores an uploaded archive file for the scope's organization and starts its indexing workflow.
 * The upload is streamed (never held in memory) into the blob store; a WACZ is verified against
 * its datapackage.json hashes first.
 * @param upload the uploaded file on disk (the caller removes it) and its original name
 * @returns the archive, status `indexing`
 * @throws UnsupportedMediaTypeError (415) for a name that is not .warc, .warc.gz or .wacz;
 *   ValidationError (422) for a WACZ that fails verification (nothing is kept);
 *   ServiceUnavailableError (503) when the workflow cannot be started
 */
export async function createResearchArchive(deps: ResearchArchiveDeps, scope: Scope, upload: { path: string; originalname: string }): Promise<ResearchArchive> {
  const format = archiveFormat(upload.originalname);
  if (!format) throw new UnsupportedMediaTypeError('A research archive is one .warc, .warc.gz or .wacz file (WARC ISO 28500 1.0/1.1, WACZ 1.x)');
  const id = newId();
  const name =
    path
      .basename(upload.originalname)
      .replace(/[^\w.-]+/g, '_')
      .slice(-200)
      // A blob key segment starts with a letter or digit (src/lib/blob-store.ts).
      .replace(/^[._-]+/, '') || `archive.${format}`;
  const digest = await fileDigest(upload.path);
  if (format === 'wacz') await verifyWacz(upload.path);
  const key = archiveBlobKey(id, name);
  await deps.blobs.put(key, fs.createReadStream(upload.path));
  const archive = await ResearchArchive.query(deps.knex).insertAndFetch({
    id,
    organization_id: scope.organizationId,
    name: upload.originalname.slice(0, 300),
    format,
    file_path: blobRef(key),
    content_sha256: digest.sha256,
    size_bytes: digest.bytes,
    status: 'indexing',
    skipped: {},
  });
  await startIndexing(deps, archive);
  return archive;
}

/** The scope's archives and the configured ones (`organization_id` null), newest first. */
export async function listResearchArchives(knex: Knex, scope: Scope): Promise<ResearchArchive[]> {
  return ResearchArchive.query(knex)
    .where((w) => w.where('organization_id', scope.organizationId).orWhereNull('organization_id'))
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
}

/**
 * One archive the scope may read: its own or a configured one.
 * @throws NotFoundError (404) for an unknown id; ForbiddenError (403) for another organization's
 */
export async function loadResearchArchive(knex: Knex, scope: Scope, id: string): Promise<ResearchArchive> {
  const archive = isUuid(id) ? await ResearchArchive.query(knex).findById(id) : undefined;
  if (!archive) throw new NotFoundError('Research archive not found');
  if (archive.organization_id !== null && archive.organization_id !== scope.organizationId) throw new ForbiddenError();
  return archive;
}

/**
 * Deletes one of the scope's archives: stops its indexing workflow, removes its pages from the
 * index (cascade) and its files.
 * @throws NotFoundError (404), ForbiddenError (403) for another organization's archive or a
 *   configured one (those follow `RESEARCH_ARCHIVES`)
 */
export async function deleteResearchArchive(deps: ResearchArchiveDeps, scope: Scope, id: string): Promise<void> {
  const archive = await loadResearchArchive(deps.knex, scope, id);
  if (archive.organization_id === null) throw new ForbiddenError('A configured archive is removed from RESEARCH_ARCHIVES, not through the API');
  if (archive.status === 'indexing') await deps.jobRunner.cancel(researchArchiveWorkflowId(archive.id));
  const warcFiles: Array<{ warc_file: string }> = await deps.knex('research_archive_pages').where({ archive_id: archive.id }).distinct('warc_file');
  await ResearchArchive.query(deps.knex).deleteById(archive.id);
  const keys = new Set([archive.file_path, ...warcFiles.map((w) => w.warc_file)].map(blobKeyOf).filter((k): k is string => k !== null));
  for (const key of keys) await deps.blobs.delete(key);
  // Archives uploaded before the blob store kept their files under DATA_DIR.
  if (blobKeyOf(archive.file_path) === null) await fs.promises.rm(path.dirname(archive.file_path), { recursive: true, force: true });
}

/**
 * A file's modification time in whole milliseconds, rounded: times set through `utimes` come back
 * a hair below the millisecond they were set to (seconds as a double), which truncation would move.
 */
function mtimeMs(stat: fs.Stats): number {
  return Math.round(stat.mtimeMs);
}

/**
 * The content hash of a configured file: the one stored with an archive of the same path, size
 * and modification time (the file is not read again), else the file's SHA-256 (streamed).
 */
async function configuredFileHash(knex: Knex, file: string, stat: fs.Stats): Promise<string> {
  const known = await ResearchArchive.query(knex)
    .whereNull('organization_id')
    .where({ source_path: path.resolve(file), size_bytes: stat.size, source_mtime_ms: mtimeMs(stat) })
    .first();
  return known?.content_sha256 ?? (await fileDigest(file)).sha256;
}

/**
 * Registers the WARC/WACZ files of `RESEARCH_ARCHIVES` (worker start): a new content hash is
 * inserted and its indexing workflow started; a hash registered already is left as it is (indexed
 * once per content), unless its indexing failed: then it is indexed again (one worker wins the
 * retry). A file whose path, size and modification time equal those stored with its hash is not
 * read again. Two workers starting together insert a file once (unique index).
 * @returns the archives whose indexing was started now (new or retried)
 * @throws Error when a configured file cannot be read; ServiceUnavailableError when a workflow cannot start
 */
export async function registerConfiguredArchives(deps: ResearchArchiveDeps, files: string[]): Promise<ResearchArchive[]> {
  const added: ResearchArchive[] = [];
  for (const file of files) {
    const format = archiveFormat(file);
    if (!format) continue;
    const stat = await fs.promises.stat(file);
    const sha256 = await configuredFileHash(deps.knex, file, stat);
    const source = { source_path: path.resolve(file), source_mtime_ms: mtimeMs(stat) };
    const id = newId();
    const inserted = await deps
      .knex('research_archives')
      .insert({
        id,
        organization_id: null,
        name: path.basename(file),
        format,
        // Every process is given the configured files; a WACZ's WARC files go to the blob store (./indexing.ts).
        file_path: file,
        content_sha256: sha256,
        size_bytes: stat.size,
        ...source,
        status: 'indexing',
      })
      .onConflict(deps.knex.raw('(content_sha256) where organization_id is null'))
      .ignore()
      .returning('id');
    if (inserted.length) {
      const archive = await ResearchArchive.query(deps.knex).findById(id).throwIfNotFound();
      await startIndexing(deps, archive);
      added.push(archive);
      continue;
    }
    // Known content: remember where the file is now; retry its indexing when it failed.
    const retried = await deps
      .knex('research_archives')
      .whereNull('organization_id')
      .where({ content_sha256: sha256 })
      .update({ ...source, updated_at: new Date() })
      .returning(['id', 'status']);
    const failed = retried.find((r: { status: string }) => r.status === 'failed');
    if (!failed) continue;
    const claimed = await ResearchArchive.query(deps.knex)
      .where({ id: failed.id, status: 'failed' })
      .patch({ status: 'indexing', error: null, completed_at: null, records_read: 0, pages_indexed: 0, skipped: {}, updated_at: new Date() });
    if (!claimed) continue;
    const archive = await ResearchArchive.query(deps.knex).findById(failed.id).throwIfNotFound();
    await startIndexing(deps, archive);
    added.push(archive);
  }
  return added;
}
