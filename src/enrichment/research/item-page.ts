/**
 * An item's own page (issue 27 §3): an item that names its page URL (`url`, `product_url`,
 * `source_url`, or the URLs of its `source_hint_sets` entry) is read from there first, with no
 * search; search then only fills the fields that page lacks.
 */
import { pageCandidates } from '../extract/candidates';
import { matchPage } from '../extract/identity';
import { fieldRole, snake } from '../extract/roles';
import type { PageDoc } from '../parse/page';
import type { OutputField } from '../types';
import { itemIdentifiers, itemName } from './plan';

/** Item fields that hold the item's own page URL. */
export const ITEM_URL_FIELDS = ['url', 'product_url', 'source_url', 'productUrl', 'sourceUrl'];

/** The http(s) URLs an item names as its own page: its URL fields, then its source hint URLs; each once. */
export function itemPageUrls(item: Record<string, unknown>, hints?: { urls?: string[] }): string[] {
  const urls = [...ITEM_URL_FIELDS.map((k) => item[k]), ...(hints?.urls ?? [])].filter(
    (u): u is string => typeof u === 'string' && /^https?:\/\/\S+$/i.test(u.trim()),
  );
  return [...new Set(urls.map((u) => u.trim()))];
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
