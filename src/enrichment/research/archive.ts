import fs from 'node:fs';
import path from 'node:path';
import { pageDigest, parsePage, type PageDoc } from '../parse/page';
import { archiveCacheKey, defaultArchiveCacheDir, readArchiveCache, writeArchiveCache, type ArchiveCacheDir, type CachedPage } from './archive-cache';
import { Bm25Index } from './bm25';
import { domainAllowed } from './domains';
import type { FetchedPage, Fetcher, SearchOptions, SearchProvider, SearchResult } from './types';

/** One page of an offline web archive (evaluation.md, "The offline web archive"). */
export interface ArchivePage {
  /** Original URL; what every source citation uses. */
  url: string;
  /** Absolute path of the stored HTML. */
  file: string;
  canonical_href?: string;
  /** Capture time as ISO 8601, when the index says (`captured_at` YYYYMMDDhhmmss). */
  captured_at?: string;
}

/** Search + fetch over one or more archive folders, plus the page list (for eval). */
export interface WebArchive {
  search: SearchProvider;
  fetcher: Fetcher;
  pages: ArchivePage[];
  /** Builds the search index now (it is otherwise built on the first search). */
  warm(): void;
}

function isoCapture(value: unknown): string | undefined {
  const m = typeof value === 'string' ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : undefined;
}

/**
 * Reads the `page-index.json` of an archive folder: a JSON list of `{url, file,
 * canonical_href?, captured_at?, ...}`, `file` relative to the folder. Entries without a URL or
 * whose file is missing are skipped.
 * @throws Error when the folder has no readable page-index.json
 */
export function readArchiveIndex(folder: string): ArchivePage[] {
  const raw = JSON.parse(fs.readFileSync(path.join(folder, 'page-index.json'), 'utf8')) as unknown;
  if (!Array.isArray(raw)) throw new Error(`${folder}/page-index.json is not a list`);
  const pages: ArchivePage[] = [];
  for (const entry of raw as Array<Record<string, unknown>>) {
    if (typeof entry.url !== 'string' || typeof entry.file !== 'string') continue;
    const file = path.resolve(folder, entry.file);
    if (!fs.existsSync(file)) continue;
    pages.push({
      url: entry.url,
      file,
      canonical_href: typeof entry.canonical_href === 'string' && entry.canonical_href ? entry.canonical_href : undefined,
      captured_at: isoCapture(entry.captured_at),
    });
  }
  return pages;
}

/** The URL without query string and fragment (`https://h/p?x=1#y` → `https://h/p`). */
export function stripUrl(url: string): string {
  return url.replace(/[?#].*$/, '');
}

/** Text of a parsed page for the BM25 index; important fields are repeated to weigh them. */
function indexText(doc: PageDoc): string {
  const og = doc.opengraph
    .filter(([k]) => /^(og:title|og:description|product:brand|product:retailer_item_id|product:gtin|product:mpn)/i.test(k))
    .map(([, v]) => v)
    .join(' ');
  const ids = doc.products.map((p) => [p.name, p.brand, p.sku, p.gtin, p.mpn, p.product_id].filter(Boolean).join(' ')).join(' ');
  const desc = doc.products
    .map((p) => p.description ?? '')
    .join(' ')
    .slice(0, 2000);
  return [doc.title, doc.title, doc.title, og, og, ids, ids, ids, desc, doc.text.slice(0, 30_000)].join(' \n ');
}

/** Options of {@link openArchives}. */
export interface ArchiveOptions {
  /**
   * Folder where the parsed facts of every page are kept between processes (keyed by the
   * archives' page-index.json, page file sizes/mtimes and the parser version); `null` turns
   * it off. Default {@link defaultArchiveCacheDir}.
   */
  cacheDir?: ArchiveCacheDir;
}

/**
 * Parsed facts of every page, from the cache file when it matches the archives, else parsed
 * now (and written for the next process). A fetched page carries its facts (`parsed`), so
 * extraction costs no second parse.
 */
function loadFacts(folders: string[], pages: ArchivePage[], cacheDir: ArchiveCacheDir): CachedPage[] {
  const key = cacheDir
    ? archiveCacheKey(
        folders,
        pages.map((p) => p.file),
      )
    : '';
  let facts = readArchiveCache(cacheDir, key);
  if (!facts || facts.length !== pages.length || facts.some((f, i) => f.url !== pages[i].url)) {
    facts = pages.map((p) => {
      const body = fs.readFileSync(p.file);
      return { url: p.url, sha1: pageDigest(body), doc: parsePage(p.url, body) };
    });
    writeArchiveCache(cacheDir, key, facts);
  }
  return facts;
}

/**
 * Opens offline web archives as a {@link SearchProvider} and a {@link Fetcher}. The BM25
 * index covers every page of every folder (title, OpenGraph, JSON-LD/microdata
 * name/brand/sku/gtin/mpn/description, visible text) and is built once, lazily, from the
 * pages' parsed facts (cached on disk across processes, see {@link ArchiveOptions}). Fetch
 * matches the exact URL, then a page's canonical URL, then the URL without query/fragment; an
 * unknown URL yields status 404. Results and fetches always report the page's original URL.
 * @throws Error when a folder has no page-index.json
 */
export function openArchives(folders: string[], options: ArchiveOptions = {}): WebArchive {
  const cacheDir = options.cacheDir === undefined ? defaultArchiveCacheDir() : options.cacheDir;
  const pages = folders.flatMap((f) => readArchiveIndex(f));
  const byUrl = new Map<string, ArchivePage>();
  const byCanonical = new Map<string, ArchivePage>();
  const byStripped = new Map<string, ArchivePage>();
  for (const p of pages) {
    if (!byUrl.has(p.url)) byUrl.set(p.url, p);
    if (p.canonical_href && !byCanonical.has(p.canonical_href)) byCanonical.set(p.canonical_href, p);
  }
  for (const p of pages) {
    for (const u of [p.url, p.canonical_href]) if (u && !byStripped.has(stripUrl(u))) byStripped.set(stripUrl(u), p);
  }
  let index: Bm25Index | null = null;
  const facts = new Map<string, CachedPage>();
  const build = (): Bm25Index => {
    if (index) return index;
    const built = new Bm25Index();
    for (const f of loadFacts(folders, [...byUrl.values()], cacheDir)) {
      facts.set(f.url, f);
      built.add(f.url, indexText(f.doc));
    }
    index = built;
    return built;
  };
  const lookup = (url: string): ArchivePage | undefined => byUrl.get(url) ?? byCanonical.get(url) ?? byStripped.get(stripUrl(url));

  const search: SearchProvider = {
    async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
      const hits = build().search(query, (id) => domainAllowed(id, options.allowed_domains, options.blocked_domains));
      return hits.slice(0, Math.max(0, options.limit)).map((h) => {
        const doc = facts.get(h.id)?.doc;
        const snippet = (doc?.meta_description ?? doc?.text ?? '').slice(0, 240);
        return { url: h.id, title: doc?.title ?? '', snippet, score: Number(h.score.toFixed(6)) };
      });
    },
  };
  const fetcher: Fetcher = {
    async fetch(url: string): Promise<FetchedPage> {
      const page = lookup(url);
      const fetched_at = page?.captured_at ?? new Date(0).toISOString();
      if (!page) return { url, final_url: url, status: 404, content_type: 'text/plain', body: Buffer.alloc(0), fetched_at };
      const known = facts.get(page.url);
      return {
        url,
        final_url: page.url,
        status: 200,
        content_type: 'text/html',
        body: fs.readFileSync(page.file),
        fetched_at,
        ...(known ? { parsed: known } : {}),
      };
    },
  };
  return { search, fetcher, pages, warm: () => void build() };
}
