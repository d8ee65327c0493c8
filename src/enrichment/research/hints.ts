import { domainAllowed } from './domains';

/** A ranked search result (URL and fused score). */
export interface RankedResult {
  url: string;
  score: number;
}

/**
 * Orders search results by a row's source hints (docs/api-enrichment.md "Enrichment jobs" `source_hint_sets`;
 * EnrichOptions.source_hints): hinted URLs first (added when search did not return them), then
 * results on hinted domains (a domain admits its subdomains), then the rest, each group in its
 * search order. Hints only change what is read first: every page still passes the identity check
 * against the item, so a wrong hint never lends values.
 * @returns a new list; `results` when there are no hints
 */
export function withSourceHints(results: RankedResult[], hints?: { domains?: string[]; urls?: string[] }): RankedResult[] {
  const urls = (hints?.urls ?? []).filter((u) => /^https?:\/\//i.test(u));
  const domains = hints?.domains ?? [];
  if (!urls.length && !domains.length) return results;
  const hinted = new Set(urls);
  const top = Math.max(1, ...results.map((r) => r.score));
  const first = urls.map((url, i) => ({ url, score: Number((top + urls.length - i).toFixed(6)) }));
  const rest = results.filter((r) => !hinted.has(r.url));
  const onDomains = domains.length ? rest.filter((r) => domainAllowed(r.url, domains)) : [];
  const others = rest.filter((r) => !onDomains.includes(r));
  return [...first, ...onDomains, ...others];
}
