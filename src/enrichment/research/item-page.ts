/**
 * An item's own page (docs/research.md, "An item's own page"): an item that names its
 * page URL (`url`, `product_url`, `source_url`, or the URLs of its `source_hint_sets` entry) is
 * read from there first, with no search; search then only fills the fields that page lacks. A
 * page that could not be read is said on the row (field issues, flags), not only in evidence.
 */
import { pageCandidates } from '../extract/candidates';
import { matchPage } from '../extract/identity';
import { fieldRole, snake } from '../extract/roles';
import type { PageDoc } from '../parse/page';
import type { ItemPageFailure, OutputField, ReviewInfo } from '../types';
import { itemIdentifiers, itemName } from './plan';

/** Item fields that hold the item's own page URL. */
export const ITEM_URL_FIELDS = ['url', 'product_url', 'source_url', 'productUrl', 'sourceUrl'];

/** The http(s) URLs an item names as its own page: its URL fields, then its source hint URLs; each once. */
export function itemPageUrls(item: Record<string, unknown>, hints?: { urls?: string[] }): string[] {
  return itemPageSources(item, hints).map((p) => p.url);
}

/**
 * The item's own pages with the key that named each (`url`, `product_url`, …, or `source_hints`
 * for a source hint URL): http(s) URLs only, trimmed, each URL once (its first key).
 */
export function itemPageSources(item: Record<string, unknown>, hints?: { urls?: string[] }): Array<{ url: string; field: string }> {
  const named = [...ITEM_URL_FIELDS.map((k) => ({ field: k, value: item[k] })), ...(hints?.urls ?? []).map((u) => ({ field: 'source_hints', value: u }))];
  const out = new Map<string, string>();
  for (const { field, value } of named)
    if (typeof value === 'string' && /^https?:\/\/\S+$/i.test(value.trim()) && !out.has(value.trim())) out.set(value.trim(), field);
  return [...out].map(([url, field]) => ({ url, field }));
}

/** What a failed item page says on the row: why the page at its URL was not read. */
function failureMessage(f: ItemPageFailure): string {
  if (f.outcome === 'robots_denied' && f.robots_unreachable)
    return `The page at ${f.url} was not read because its site's robots.txt could not be read (no answer or a server error), which counts as disallowing every page (RFC 9309).`;
  if (f.outcome === 'robots_denied') return `The page at ${f.url} was not read because its robots.txt disallows it.`;
  if (f.outcome === 'refused') return `The page at ${f.url} was not fetched: ${f.reason ?? 'the request was refused'}.`;
  return `The page at ${f.url} could not be read: ${f.outcome.replace(/_/g, ' ')}${f.status ? ` (HTTP ${f.status})` : ''}.`;
}

/**
 * Records the item's own pages that were not read (`evidence.item_pages`) on its review, in place:
 * one field issue each, on the item key that named the page, and the flag `robots_denied` when
 * the site's robots.txt disallows one (RFC 9309: such a page is never requested). Other failures,
 * an unreachable robots.txt included, also stand in `evidence.problems`, which flag
 * `research_problems`. No I/O.
 */
export function reviewItemPageFailures(review: ReviewInfo, failures: ItemPageFailure[] | undefined): void {
  for (const f of failures ?? []) {
    review.field_issues.push({ field: f.field, message: failureMessage(f) });
    if (f.outcome === 'robots_denied' && !f.robots_unreachable && !review.flags.includes('robots_denied')) review.flags.push('robots_denied');
  }
}

/**
 * The wanted fields (not filled on the item) for which none of `docs` offers a candidate value
 * (src/enrichment/extract/candidates.ts, read on the product matched to the item): what search
 * still has to find.
 */
export function fieldsLacking(docs: PageDoc[], item: Record<string, unknown>, schema: OutputField[]): OutputField[] {
  const ids = itemIdentifiers(item);
  const identity = { name: itemName(item), brand: ids.brand, identifiers: [...ids.gtin, ...ids.mpn, ...ids.sku] };
  const matched = docs.map((doc) => ({ doc, product: matchPage(identity, doc).product }));
  return schema.filter((field) => {
    const v = item[field.name];
    if (v !== undefined && v !== null && v !== '') return false;
    const role = fieldRole(field);
    const synonyms = [snake(field.name).replace(/_/g, ' ')];
    return !matched.some(
      ({ doc, product }) => pageCandidates(doc, role, field.name, synonyms, product !== undefined ? doc.products[product] : undefined).length > 0,
    );
  });
}
