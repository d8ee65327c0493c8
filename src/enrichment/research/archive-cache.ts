import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PageDoc } from '../parse/page';

/** One page's parsed facts as stored in the cache: the page URL, the SHA-1 of its bytes and the facts. */
export interface CachedPage {
  url: string;
  /** Hex SHA-1 of the stored bytes (a fetched page reuses these facts only for the same bytes: FetchedPage.parsed). */
  sha1: string;
  doc: PageDoc;
}

/** Where the built archive facts are kept between processes; `null` turns the cache off. */
export type ArchiveCacheDir = string | null;

const FORMAT = 1;

/** `~/.cache/catalog-enrichment/archive-index` (the XDG default cache location, without reading the environment). */
export function defaultArchiveCacheDir(): string {
  return path.join(os.homedir(), '.cache', 'catalog-enrichment', 'archive-index');
}

/**
 * SHA-256 of the parser's own source files (`src/enrichment/parse/*`), so a change to how
 * pages are parsed invalidates every cached archive without a version constant to bump. Read
 * on every call (once per archive load: a few files, well under a millisecond of hashing).
 */
function parserVersion(): string {
  const hash = crypto.createHash('sha256').update(`format ${FORMAT}\n`);
  const dir = path.join(__dirname, '..', 'parse');
  try {
    for (const name of fs.readdirSync(dir).sort()) hash.update(name).update(fs.readFileSync(path.join(dir, name)));
  } catch {
    hash.update('no parser sources');
  }
  return hash.digest('hex');
}

/**
 * The cache key of a set of archive folders: SHA-256 over the parser version, each folder's
 * `page-index.json` bytes and the size and modification time of every page file, so editing
 * the index or any page (or the parser) yields a new key and a rebuild.
 */
export function archiveCacheKey(folders: string[], files: string[]): string {
  const hash = crypto.createHash('sha256').update(parserVersion());
  for (const folder of folders) hash.update(path.resolve(folder)).update(fs.readFileSync(path.join(folder, 'page-index.json')));
  for (const file of files) {
    const st = fs.statSync(file);
    hash.update(`${file}\n${st.size}\n${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** Reads `<dir>/<key>.json`; undefined when absent, unreadable or of another format. */
export function readArchiveCache(dir: ArchiveCacheDir, key: string): CachedPage[] | undefined {
  if (!dir) return undefined;
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(dir, `${key}.json`), 'utf8')) as { format?: number; pages?: CachedPage[] };
    return raw.format === FORMAT && Array.isArray(raw.pages) ? raw.pages : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes `<dir>/<key>.json` atomically (temporary file + rename, so concurrent workers never
 * read a half-written file). A failure to write only costs the next process a rebuild, so it
 * is swallowed.
 */
export function writeArchiveCache(dir: ArchiveCacheDir, key: string, pages: CachedPage[]): void {
  if (!dir) return;
  const tmp = path.join(dir, `${key}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify({ format: FORMAT, pages }));
    fs.renameSync(tmp, path.join(dir, `${key}.json`));
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}
