import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where files that more than one process must reach are kept: uploaded research
 * archives, source artifacts (with the WARC evidence of jobs), hosted media and knowledge-base
 * files. Keys are `/`-separated relative names such as `artifacts/ab/<sha256>`; content-addressed
 * kinds use the SHA-256 of the bytes as the last segment, so writing the same key twice stores the
 * same bytes. Backends: the filesystem (./blob-store-fs.ts, one machine) and an S3-compatible store.
 */
export interface BlobStore {
  /**
   * Stores `body` under `key`, replacing what was there. Streams are consumed chunk by chunk
   * (never buffered whole); readers never see a partly written blob.
   * @throws Error on an invalid key ({@link checkBlobKey}) or a storage failure
   */
  put(key: string, body: Buffer | Readable): Promise<void>;
  /**
   * The bytes under `key` as a stream, or null when no blob has that key. With `range`, only the
   * bytes `start`..`end` (offsets from 0, both included, as an HTTP `Range: bytes=` header; RFC 9110
   * §14.1.2), e.g. one record of a WARC file.
   */
  get(key: string, range?: { start: number; end: number }): Promise<Readable | null>;
  /** The size in bytes of the blob under `key`, or null when there is none. */
  head(key: string): Promise<{ size: number } | null>;
  /** Removes the blob under `key` (no error when there is none). */
  delete(key: string): Promise<void>;
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/**
 * Checks a blob key: `/`-separated segments of letters, digits, `.`, `_` and `-`, each starting
 * with a letter or digit (so no `..`, no absolute path, no empty segment).
 * @throws Error for any other key
 */
export function checkBlobKey(key: string): string {
  if (!KEY.test(key) || key.length > 512) throw new Error(`Invalid blob key: ${JSON.stringify(key)}`);
  return key;
}

/** The key of a content-addressed blob: `<kind>/<sha256[0..2]>/<sha256><suffix>` (the layout `DATA_DIR` always had). */
export function contentKey(kind: string, sha256: string, suffix = ''): string {
  return checkBlobKey(`${kind}/${sha256.slice(0, 2)}/${sha256}${suffix}`);
}

/**
 * The whole of a blob's stream as bytes. Only for blobs with a known small bound (hosted media are
 * at most 25 MiB, one row's evidence WARC a few MiB); large files are streamed, or read through
 * {@link withLocalCopy}.
 */
export async function bufferOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Runs `use` with the path of a local temporary copy of the blob under `key` (for parsers that
 * want a file), streamed from the store; the copy (and its private folder) is removed afterwards,
 * whether `use` succeeds or throws.
 * @throws Error when there is no blob under `key`, or what `use` throws
 */
export async function withLocalCopy<T>(store: BlobStore, key: string, use: (file: string) => Promise<T>): Promise<T> {
  const stream = await store.get(key);
  if (!stream) throw new Error(`No blob under ${key}`);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'blob-'));
  try {
    const file = path.join(dir, path.basename(key));
    await pipeline(stream, fs.createWriteStream(file, { mode: 0o600 }));
    return await use(file);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
