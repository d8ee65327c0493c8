/**
 * Where the files of a research archive are: an uploaded archive (and the WARC files of an
 * uploaded WACZ) is kept in the blob store (src/lib/blob-store.ts), so the API that received it
 * and every worker reach it; an archive configured by `RESEARCH_ARCHIVES` is a
 * local file every process is given. A reference (`research_archives.file_path`,
 * `research_archive_pages.warc_file`) names the blob as `blob:<key>`, a local file by its path.
 */
import { withLocalCopy, type BlobStore } from '../../lib/blob-store';
import { readWarcPageAt, readWarcPageFrom, warcRecordRange, type WarcPage } from '../../enrichment/research/warc/records';

const BLOB = 'blob:';

/** The reference of the blob `key`. */
export function blobRef(key: string): string {
  return BLOB + key;
}

/** The blob key a reference names, or null for a local file. */
export function blobKeyOf(ref: string): string | null {
  return ref.startsWith(BLOB) ? ref.slice(BLOB.length) : null;
}

/** The blob key of an uploaded archive's file or of one WARC file of it: `research-archives/<id>/<name>`. */
export function archiveBlobKey(archiveId: string, ...names: string[]): string {
  return ['research-archives', archiveId, ...names].join('/');
}

/**
 * Runs `use` with a local path of the file `ref` names: the file itself, or a temporary copy
 * of the blob that is removed afterwards.
 * @throws Error when the blob is missing, or what `use` throws
 */
export async function withArchiveFile<T>(blobs: BlobStore, ref: string, use: (file: string) => Promise<T>): Promise<T> {
  const key = blobKeyOf(ref);
  return key === null ? use(ref) : withLocalCopy(blobs, key, use);
}

/**
 * The page record at `offset` (`length` bytes) of the WARC file `ref` names, reading only that
 * record (a ranged read of a blob).
 * @returns null when the record there is not a page
 * @throws Error when the file or blob cannot be read or holds no WARC record at that offset
 */
export async function readArchivedPage(blobs: BlobStore, ref: string, offset: number, length: number): Promise<WarcPage | null> {
  const key = blobKeyOf(ref);
  if (key === null) return readWarcPageAt(ref, offset, length);
  const stream = await blobs.get(key, warcRecordRange(offset, length));
  if (!stream) throw new Error(`${key}: the archive file is missing from the blob store`);
  return readWarcPageFrom(stream, key, offset, length);
}
