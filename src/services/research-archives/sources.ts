/**
 * Which research sources a deployment and an organization have: the live search
 * provider (`SEARCH_PROVIDER=searxng|brave`), the archive folders and WARC/WACZ files of
 * `RESEARCH_ARCHIVES`, and the web archives indexed in PostgreSQL (configured ones for every
 * organization, uploaded ones for their own). `GET /readyz` and the `npm start` banner list them,
 * and whether the pages items name themselves are fetched (FETCH_ITEM_URLS); a job of an
 * organization with no source works from its items' own data and those pages, with a notice.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from '../../config';
import { archiveFormat } from './archives';

/**
 * The job notice of an organization with no research source, saying what was read instead and how
 * to add a source. `itemUrls`: the pages items name are fetched (FETCH_ITEM_URLS, the default).
 */
export function noResearchSourceNotice(itemUrls: boolean): string {
  const read = itemUrls
    ? 'the items\u2019 own data and from the pages they name (url, product_url, source_url, source hint URLs: fetched by the live fetcher, robots.txt obeyed); ' +
      'items that name no page were read as with web_search: false. '
    : 'the items\u2019 own data only (as with web_search: false). ';
  return (
    `web_search: no research source is configured, so values were read from ${read}` +
    'Add one: upload a web archive (POST /api/public/research-archives with a .warc, .warc.gz or .wacz file), set RESEARCH_ARCHIVES, ' +
    'or set SEARCH_PROVIDER=searxng with SEARXNG_URL (or brave with BRAVE_API_KEY); see docs/research.md.'
  );
}

/** The job notice of a deployment that does not fetch item URLs (FETCH_ITEM_URLS=false), for jobs whose items name pages. */
export const ITEM_URLS_OFF_NOTICE =
  'item URLs: the pages items name (url, product_url, source_url, source hint URLs) were not fetched because this deployment sets ' +
  'FETCH_ITEM_URLS=false; only a web archive holding them was read (docs/research.md).';

/** The research sources of the configuration (no database). */
export interface ConfiguredSources {
  /** The live web search provider, or null (`SEARCH_PROVIDER=archive`). */
  live_search: 'searxng' | 'brave' | null;
  /** Archive folders (page-index.json) researched in memory, when SEARCH_PROVIDER is `archive`. */
  archive_folders: string[];
  /** WARC/WACZ files of RESEARCH_ARCHIVES (indexed into PostgreSQL at worker start). */
  archive_files: string[];
  /**
   * Whether the live fetcher reads the pages items name (`url`, `product_url`, `source_url`,
   * source hint URLs) in every configuration, obeying robots.txt (FETCH_ITEM_URLS, default true).
   */
  item_urls: boolean;
}

/** The settings that say which research sources a deployment has; `fetch` absent counts as FETCH_ITEM_URLS' default. */
export type SourceSettings = Pick<Config, 'search' | 'researchArchives'> & { fetch?: Pick<Config['fetch'], 'itemUrls'> };

/** The research sources `config` names (folders are listed only when they hold a page-index.json). */
export function configuredSources(config: SourceSettings): ConfiguredSources {
  const live = config.search.provider === 'archive' ? null : config.search.provider;
  const folders = config.researchArchives.filter((p) => !archiveFormat(p) && fs.existsSync(path.join(p, 'page-index.json')));
  return {
    live_search: live,
    archive_folders: live ? [] : folders,
    archive_files: config.researchArchives.filter((p) => archiveFormat(p) !== null),
    item_urls: config.fetch?.itemUrls ?? true,
  };
}

/** Indexed archives by status: the configured ones, and (with `organizationId`) the organization's. */
export async function indexedArchiveCounts(knex: Knex, organizationId?: string): Promise<Record<'indexing' | 'ready' | 'failed', number>> {
  const q = knex('research_archives').select('status').count<Array<{ status: string; count: string }>>('* as count').groupBy('status');
  const rows = await (organizationId
    ? q.where((w) => w.whereNull('organization_id').orWhere('organization_id', organizationId))
    : q.whereNull('organization_id'));
  const out = { indexing: 0, ready: 0, failed: 0 };
  for (const r of rows) if (r.status in out) out[r.status as keyof typeof out] = Number(r.count);
  return out;
}

/** One line per active source, for the `npm start` banner and logs; a single "none" line when there is none. */
export function describeSources(sources: ConfiguredSources): string[] {
  const lines: string[] = [];
  if (sources.live_search) lines.push(`live web search (${sources.live_search}) and page fetching`);
  if (sources.archive_folders.length) lines.push(`archive folders: ${sources.archive_folders.join(', ')}`);
  if (sources.archive_files.length) lines.push(`WARC/WACZ files: ${sources.archive_files.join(', ')}`);
  lines.push('uploaded web archives (POST /api/public/research-archives), per organization');
  lines.push(sources.item_urls ? 'item URLs: fetched (live fetcher, robots.txt obeyed)' : 'item URLs: off (FETCH_ITEM_URLS=false)');
  if (!sources.live_search && !sources.archive_folders.length && !sources.archive_files.length)
    lines.unshift(
      `no web research source configured: jobs read items\u2019 own data${sources.item_urls ? ' and the pages items name' : ''} until an archive is uploaded (docs/research.md)`,
    );
  return lines;
}

/**
 * Whether an organization's jobs have anything to research: a live search provider, an archive
 * folder, or an indexed archive (configured, or its own) that is ready or still indexing.
 */
export async function organizationHasResearchSource(knex: Knex, config: SourceSettings, organizationId: string): Promise<boolean> {
  const sources = configuredSources(config);
  if (sources.live_search || sources.archive_folders.length || sources.archive_files.length) return true;
  const counts = await indexedArchiveCounts(knex, organizationId);
  return counts.ready + counts.indexing > 0;
}
