/**
 * The PostgreSQL index of archived pages (table `research_archive_pages`): what one
 * page record contributes (its identifiers for exact lookup, its weighted texts for full-text
 * ranking) and the set-based insert of a batch. Weights (PostgreSQL `setweight`, A highest): A =
 * title, JSON-LD/microdata name, brand and identifiers, OpenGraph title; B = descriptions; C =
 * visible text (first 30,000 characters). `head` holds the A texts alone, so that a query whose
 * words do not all appear on a page can still match it by name cheaply.
 */
import type { Knex } from 'knex';
import type { IndexFacts } from '../../enrichment/parse/index-facts';
import type { WarcPage } from '../../enrichment/research/warc/records';

/** Text search configuration: `simple` (no stemming), as archives mix languages. */
export const TEXT_SEARCH_CONFIG = 'simple';

/** Visible text indexed per page (characters), as the in-memory BM25 index of folder archives read. */
const VISIBLE_TEXT_CHARS = 30_000;

/**
 * An identifier as compared in lookups: letters and digits only, lower case; an all-digit value
 * (GTIN, EAN, UPC) without leading zeros, so GTIN-13 `0012345678905` equals UPC `012345678905`.
 */
export function identifierKey(value: string): string {
  const key = value.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return /^\d+$/.test(key) ? key.replace(/^0+(?=\d)/, '') : key;
}

/** The URL as looked up: without query string and fragment, lower-case scheme and host. */
export function urlKey(url: string): string {
  const bare = url.replace(/[?#].*$/, '');
  try {
    const u = new URL(bare);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return bare;
  }
}

/** One row of `research_archive_pages` before insert (texts not yet vectors). */
export interface PageRow {
  archive_id: string;
  url: string;
  url_key: string;
  captured_at: string | null;
  warc_file: string;
  record_offset: number;
  record_length: number;
  record_id: string | null;
  content_type: string;
  title: string;
  snippet: string;
  identifiers: string[];
  /** Weighted texts: A (names, brands, identifiers), B (descriptions), C (visible text). */
  text_a: string;
  text_b: string;
  text_c: string;
}

/** The row of a page record of `warcFile` in archive `archiveId`, from its index facts (parse/index-facts.ts). */
export function pageRow(archiveId: string, warcFile: string, page: WarcPage, doc: IndexFacts): PageRow {
  const og = (key: RegExp) => doc.opengraph.filter(([k]) => key.test(k)).map(([, v]) => v);
  const ids = [...doc.products.flatMap((p) => [p.sku, p.gtin, p.mpn, p.product_id]), ...og(/^product:(retailer_item_id|gtin|ean|upc|mpn|sku)/i)].filter(
    (v): v is string => typeof v === 'string' && v.trim().length > 0,
  );
  const names = doc.products.flatMap((p) => [p.name, p.brand]).filter((v): v is string => Boolean(v));
  const descriptions = [doc.meta_description, ...og(/^og:description$/i), ...doc.products.map((p) => p.description)].filter((v): v is string => Boolean(v));
  return {
    archive_id: archiveId,
    url: page.url,
    url_key: urlKey(page.url),
    captured_at: page.captured_at,
    warc_file: warcFile,
    record_offset: page.offset,
    record_length: page.length,
    record_id: page.record_id,
    content_type: page.content_type.slice(0, 200),
    title: doc.title.slice(0, 1000),
    snippet: (doc.meta_description ?? doc.text).slice(0, 240),
    identifiers: [...new Set(ids.map(identifierKey).filter((k) => k.length >= 3))],
    text_a: [doc.title, ...og(/^(og:title|product:brand)$/i), ...names, ...ids].join(' \n '),
    text_b: descriptions.join(' \n ').slice(0, 5000),
    text_c: doc.text.slice(0, VISIBLE_TEXT_CHARS),
  };
}

/**
 * Inserts a batch of page rows in one statement (`INSERT … SELECT` over `jsonb_to_recordset`),
 * computing the weighted vectors in PostgreSQL. Runs inside the caller's transaction when `db` is one.
 */
export async function insertPageRows(db: Knex, rows: PageRow[]): Promise<void> {
  if (!rows.length) return;
  const cfg = TEXT_SEARCH_CONFIG;
  await db.raw(
    `insert into research_archive_pages
       (archive_id, url, url_key, captured_at, warc_file, record_offset, record_length, record_id, content_type, title, snippet, identifiers, head, document)
     select r.archive_id, r.url, r.url_key, r.captured_at, r.warc_file, r.record_offset, r.record_length, r.record_id, r.content_type, r.title, r.snippet,
            array(select jsonb_array_elements_text(r.identifiers)),
            to_tsvector('${cfg}', r.text_a),
            setweight(to_tsvector('${cfg}', r.text_a), 'A') || setweight(to_tsvector('${cfg}', r.text_b), 'B') || setweight(to_tsvector('${cfg}', r.text_c), 'C')
       from jsonb_to_recordset(?::jsonb) as r(archive_id uuid, url text, url_key text, captured_at timestamptz, warc_file text, record_offset bigint,
            record_length bigint, record_id text, content_type text, title text, snippet text, identifiers jsonb, text_a text, text_b text, text_c text)`,
    [JSON.stringify(rows)],
  );
}
