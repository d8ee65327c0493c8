import { Agent, request } from 'undici';
import { domainAllowed } from '../research/domains';
import type { SearchOptions, SearchResult } from '../research/types';

/** A search API call that failed: non-2xx status, timeout, network error or an unreadable body. */
export class SearchError extends Error {
  constructor(provider: string, reason: string) {
    super(`${provider} search failed: ${reason}`);
    this.name = 'SearchError';
  }
}

const dispatcher = new Agent({ connect: { timeout: 5_000 } });

/**
 * GETs a search API URL and parses its JSON body, within `timeoutMs` (headers and body).
 * Bodies over 2 MiB are refused (a results page is a few tens of KiB).
 * @throws SearchError on non-2xx, timeout, network failure or invalid JSON
 */
export async function getJson(provider: string, url: URL, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string;
  try {
    const res = await request(url, { dispatcher, method: 'GET', headers: { accept: 'application/json', ...headers }, signal });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    throw new SearchError(provider, signal.aborted ? `timed out after ${timeoutMs} ms` : err instanceof Error ? err.message : String(err));
  }
  if (status < 200 || status >= 300) throw new SearchError(provider, `HTTP ${status}${text ? `: ${text.slice(0, 160)}` : ''}`);
  if (text.length > 2 * 1024 * 1024) throw new SearchError(provider, 'response too large');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SearchError(provider, 'response is not JSON');
  }
}

/**
 * The query with `site:` operators for the allow-list (`(site:a OR site:b)`) and `-site:` for
 * the block-list, the syntax both Brave and SearXNG's web engines accept. The operators only
 * narrow what the API returns; results are filtered again by {@link filterResults}.
 */
export function withSiteOperators(query: string, options: SearchOptions): string {
  const allowed = (options.allowed_domains ?? []).map((d) => d.trim()).filter(Boolean);
  const blocked = (options.blocked_domains ?? []).map((d) => d.trim()).filter(Boolean);
  const parts = [query];
  if (allowed.length === 1) parts.push(`site:${allowed[0]}`);
  else if (allowed.length > 1) parts.push(`(${allowed.map((d) => `site:${d}`).join(' OR ')})`);
  parts.push(...blocked.map((d) => `-site:${d}`));
  return parts.join(' ');
}

/**
 * Results that are absolute http(s) URLs allowed by the domain rules, first occurrence of each
 * URL kept, cut to `options.limit`; `score` is rewritten as 1/(1+position) so that higher is better.
 */
export function filterResults(results: Array<Omit<SearchResult, 'score'>>, options: SearchOptions): SearchResult[] {
  const seen = new Set<string>();
  const out: SearchResult[] = [];
  for (const r of results) {
    if (out.length >= Math.max(0, options.limit)) break;
    if (!/^https?:\/\//i.test(r.url) || seen.has(r.url) || !domainAllowed(r.url, options.allowed_domains, options.blocked_domains)) continue;
    seen.add(r.url);
    out.push({ ...r, score: Number((1 / (1 + out.length)).toFixed(6)) });
  }
  return out;
}

/** A string field of an API result object, or ''. */
export function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
