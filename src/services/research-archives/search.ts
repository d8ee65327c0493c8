/**
 * Research over the web archives indexed in PostgreSQL: a {@link SearchProvider}
 * and a {@link Fetcher} that every worker shares through the database, so nothing is held in
 * worker memory and a restart rebuilds nothing. Only `ready` archives of the asking organization
 * (`options.organization_id`) and the configured ones (`organization_id` null) are read.
 *
 * Search: exact lookup first (a query word, or the whole query, equal to a GTIN/MPN/SKU of a
 * page's structured data), then full-text ranking (`ts_rank` with the A/B/C weights of ./pages.ts)
 * of pages holding every query word; when neither finds anything, pages whose names, brands or
 * identifiers hold any query word. At most 5,000 (1,000) matching pages are ranked per query. Fetch: the page whose URL (without query and fragment)
 * equals the requested one, latest capture first, read from its WARC record.
 */
import type { Knex } from 'knex';
import { domainAllowed } from '../../enrichment/research/domains';
import type { FetchedPage, Fetcher, FetchOptions, SearchOptions, SearchProvider, SearchResult } from '../../enrichment/research/types';
import type { BlobStore } from '../../lib/blob-store';
import { readArchivedPage } from './archive-files';
import { identifierKey, TEXT_SEARCH_CONFIG, urlKey } from './pages';

/** Score given to exact identifier hits, above any full-text rank (ts_rank is below 1 for normalization 1). */
const EXACT_SCORE = 10;

/** Words of a query as tsquery lexemes: letters and digits only (no tsquery operators), lower case. */
function queryWords(query: string): string[] {
  return [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2))].slice(0, 16);
}

/** The archives an organization's research reads: its own and the configured ones, when ready. */
function visibleArchives(knex: Knex, organizationId: string | undefined): Knex.QueryBuilder {
  const q = knex('research_archives').select('id').where('status', 'ready');
  return organizationId ? q.where((w) => w.whereNull('organization_id').orWhere('organization_id', organizationId)) : q.whereNull('organization_id');
}

interface Hit {
  url: string;
  title: string;
  snippet: string;
  score: number;
}

/** Pages whose identifiers hold a query word or the whole query compacted. */
async function exactHits(knex: Knex, query: string, words: string[], organizationId: string | undefined, limit: number): Promise<Hit[]> {
  const keys = [...new Set([identifierKey(query), ...words.map(identifierKey)])].filter((k) => k.length >= 3);
  if (!keys.length) return [];
  const rows = await knex('research_archive_pages')
    .whereIn('archive_id', visibleArchives(knex, organizationId))
    .whereRaw('identifiers && ?::text[]', [keys])
    .orderBy([{ column: 'captured_at', order: 'desc', nulls: 'last' }, 'url'])
    .limit(limit)
    .select('url', 'title', 'snippet');
  return rows.map((r: Hit) => ({ ...r, score: EXACT_SCORE }));
}

/**
 * Pages ranked by full text: every word on `document`, or any word on `head`. At most
 * `candidates` matching pages are ranked (the GIN index finds them; ranking reads each one's
 * vector), so a query of common words costs a bounded time whatever the archive's size.
 */
async function textHits(
  knex: Knex,
  words: string[],
  column: 'document' | 'head',
  organizationId: string | undefined,
  limit: number,
  candidates: number,
): Promise<Hit[]> {
  if (!words.length) return [];
  const tsquery = words.join(column === 'document' ? ' & ' : ' | ');
  const matching = knex('research_archive_pages')
    .whereIn('archive_id', visibleArchives(knex, organizationId))
    .whereRaw(`${column} @@ to_tsquery('${TEXT_SEARCH_CONFIG}', ?)`, [tsquery])
    .limit(candidates)
    .select('url', 'title', 'snippet', knex.raw(`ts_rank(${column}, to_tsquery('${TEXT_SEARCH_CONFIG}', ?), 1)::float8 as score`, [tsquery]));
  const rows = await knex
    .select('*')
    .from(matching.as('m'))
    .orderBy([{ column: 'score', order: 'desc' }, 'url'])
    .limit(limit);
  return rows as Hit[];
}

/**
 * The search provider over the indexed archives (see the module comment).
 * @returns results with the page's original URL (`WARC-Target-URI`), best first, at most `limit`
 */
export function archiveIndexSearch(knex: Knex): SearchProvider {
  return {
    async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
      const limit = Math.max(0, options.limit);
      if (!limit) return [];
      const words = queryWords(query);
      const want = limit * 3;
      const seen = new Set<string>();
      const out: SearchResult[] = [];
      const add = (hits: Hit[]) => {
        for (const h of hits) {
          if (seen.has(h.url) || !domainAllowed(h.url, options.allowed_domains, options.blocked_domains)) continue;
          seen.add(h.url);
          out.push({ url: h.url, title: h.title, snippet: h.snippet, score: Number(Number(h.score).toFixed(6)) });
        }
      };
      add(await exactHits(knex, query, words, options.organization_id, want));
      if (out.length < limit) add(await textHits(knex, words, 'document', options.organization_id, want, 5000));
      if (!out.length) add(await textHits(knex, words, 'head', options.organization_id, want, 1000));
      return out.slice(0, limit);
    },
  };
}

/**
 * The fetcher over the indexed archives: the latest capture of `url` (query and fragment
 * ignored) read from its WARC record; status 404 when no visible archive holds it.
 * @throws Error when the record cannot be read (file moved or damaged)
 */
export function archiveIndexFetcher(knex: Knex, blobs: BlobStore): Fetcher {
  return {
    async fetch(url: string, options: FetchOptions = {}): Promise<FetchedPage> {
      const row = await knex('research_archive_pages')
        .whereIn('archive_id', visibleArchives(knex, options.organization_id))
        .where('url_key', urlKey(url))
        .orderByRaw('(url = ?) desc', [url])
        .orderBy([{ column: 'captured_at', order: 'desc', nulls: 'last' }, 'id'])
        .first('archive_id', 'url', 'captured_at', 'warc_file', 'record_offset', 'record_length', 'record_id');
      const missing = { url, final_url: url, status: 404, content_type: 'text/plain', body: Buffer.alloc(0), fetched_at: new Date(0).toISOString() };
      if (!row) return missing;
      const offset = Number(row.record_offset);
      const length = Number(row.record_length);
      const page = await readArchivedPage(blobs, row.warc_file, offset, length);
      if (!page) return missing;
      return {
        url,
        final_url: row.url,
        status: 200,
        content_type: page.content_type,
        body: page.body,
        fetched_at: row.captured_at ? new Date(row.captured_at).toISOString() : new Date(0).toISOString(),
        record: { archive_id: row.archive_id, warc_file: row.warc_file, offset, length, record_id: row.record_id },
      };
    },
  };
}
