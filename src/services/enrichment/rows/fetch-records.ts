import type { FetchedPage, FetchRecord } from '../../../enrichment/research/types';

/**
 * The per-URL outcome list a row's evidence keeps (`evidence.fetches`): one entry
 * per fetched page in fetch order, its outcome (`ok` for a 200 page of a fetcher that does not
 * classify, such as the offline archive; else `not_found` for other statuses), cache use and
 * rendering. No I/O.
 */
export function fetchRecords(pages: FetchedPage[]): FetchRecord[] {
  return pages.map((p) => ({
    url: p.url,
    final_url: p.final_url,
    status: p.status,
    outcome: p.outcome ?? (p.status === 200 ? 'ok' : p.status >= 500 ? 'server_error' : 'not_found'),
    fetched_at: p.fetched_at,
    ...(p.cache ? { cache: p.cache } : {}),
    ...(p.rendered ? { rendered: true } : {}),
  }));
}
