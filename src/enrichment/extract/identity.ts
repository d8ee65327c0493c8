import type { Candidate } from './candidate';
import type { PageDoc } from '../parse/page';
import type { StructuredProduct } from '../parse/products';
import { tokenize } from '../research/tokenize';

/** What the engine knows about the item's identity, from the input item. */
export interface ItemIdentity {
  name?: string;
  brand?: string;
  /** Identifier values (GTIN, MPN, SKU, model) given in the item, normalised. */
  identifiers: string[];
}

/** How well a page is about the item: 0–1, and why. */
export interface PageMatch {
  score: number;
  /** `identifier` (an input identifier appears in the page's product data), `name` (title/name overlap) or `none`. */
  kind: 'identifier' | 'name' | 'none';
  reason: string;
  /** Index of the structured product that matched best, when the page has any. */
  product?: number;
  /**
   * The page only lists the item among other products: matched by the name of one of its
   * structured products that is not its first, while neither its title nor its OpenGraph title
   * names the item (a related-products tile on another product's page). Its page-level facts (spec
   * rows, text, OpenGraph) then describe the page's own product, not the item.
   */
  listed?: boolean;
}

/** Threshold of name-token coverage above which a page counts as the item's page. */
export const NAME_MATCH_THRESHOLD = 0.6;

const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'of',
  'a',
  'an',
  'in',
  'on',
  'by',
  'de',
  'la',
  'le',
  'et',
  'und',
  'der',
  'die',
  'das',
  'mit',
  'für',
  'fur',
  'en',
  'y',
  'el',
  'di',
  'il',
  'com',
  'www',
  'amazon',
  'buy',
  'shop',
  'online',
]);

function nameTokens(text: string): string[] {
  return [...new Set(tokenize(text).filter((t) => !STOP.has(t)))];
}

/** Normalises an identifier for comparison (case, spaces, dashes; leading zeros of numbers). */
export function normId(value: string): string {
  const v = value.toLowerCase().replace(/[\s\-_.]/g, '');
  return /^\d+$/.test(v) ? v.replace(/^0+/, '') : v;
}

/** Share of the item name's tokens present in `candidate` (0–1). */
export function nameCoverage(itemName: string, candidate: string): number {
  const item = nameTokens(itemName);
  if (item.length === 0) return 0;
  const page = new Set(nameTokens(candidate));
  return item.filter((t) => page.has(t)).length / item.length;
}

function productIds(p: StructuredProduct): string[] {
  return [p.sku, p.mpn, p.gtin, p.product_id].filter((v): v is string => !!v).map(normId);
}

/**
 * Decides whether a page is about the item (identity first, so a distractor page never lends
 * values): an input identifier equal to a product identifier in the page's structured data or
 * spec pairs wins outright (score 1); otherwise the best coverage of the item name's tokens by
 * the page's title, OpenGraph title or a product name, counted a match at
 * {@link NAME_MATCH_THRESHOLD} or more.
 */
export function matchPage(item: ItemIdentity, doc: PageDoc): PageMatch {
  const ids = new Set(item.identifiers.map(normId).filter((v) => v.length >= 4));
  if (ids.size > 0) {
    const pi = doc.products.findIndex((p) => productIds(p).some((id) => ids.has(id)));
    if (pi >= 0) return { score: 1, kind: 'identifier', reason: `identifier in ${doc.products[pi].origin} product`, product: pi };
    const kv = doc.key_values.find((kv) => ids.has(normId(kv.value)));
    if (kv) return { score: 1, kind: 'identifier', reason: `identifier in "${kv.key}"`, product: bestProduct(item, doc) };
  }
  if (!item.name) return { score: 0, kind: 'none', reason: 'no identifier or name to match' };
  const names: Array<[string, string]> = [['title', doc.title]];
  const ogTitle = doc.opengraph.find(([k]) => k.toLowerCase() === 'og:title')?.[1];
  if (ogTitle) names.push(['og:title', ogTitle]);
  doc.products.forEach((p) => p.name && names.push([`${p.origin} name`, p.name]));
  let best = 0;
  let where = '';
  let titled = 0;
  names.forEach(([label, text], i) => {
    const c = nameCoverage(item.name!, text);
    if (i < (ogTitle ? 2 : 1)) titled = Math.max(titled, c);
    if (c > best) {
      best = c;
      where = label;
    }
  });
  if (item.brand && best > 0 && nameCoverage(item.brand, names.map(([, t]) => t).join(' ') + ' ' + doc.text.slice(0, 20_000)) < 0.5) best *= 0.8;
  const product = bestProduct(item, doc);
  const listed = titled < NAME_MATCH_THRESHOLD && product !== undefined && product > 0;
  if (best >= NAME_MATCH_THRESHOLD)
    return { score: best, kind: 'name', reason: `name matches ${where} (${Math.round(best * 100)}% of name tokens)`, product, ...(listed ? { listed } : {}) };
  return { score: best, kind: 'none', reason: `name overlap ${Math.round(best * 100)}% below threshold`, product };
}

/** Index of the page product whose name best covers the item name (first on ties), or undefined. */
function bestProduct(item: ItemIdentity, doc: PageDoc): number | undefined {
  if (doc.products.length === 0) return undefined;
  let best = 0;
  let score = -1;
  doc.products.forEach((p, i) => {
    const s = (item.name && p.name ? nameCoverage(item.name, p.name) : 0) + (p.offers.length > 0 ? 0.01 : 0) + (p.name ? 0.005 : 0);
    if (s > score) {
      score = s;
      best = i;
    }
  });
  return best;
}

/** Methods that read the matched structured product itself, not the page around it. */
const PRODUCT_METHODS = new Set<Candidate['method']>(['jsonld', 'microdata']);

/**
 * A page's reading as it joins the vote: its weight scaled by the page's rank among the matching
 * pages (`rank` 0 is the best, later ones weigh 0.7) and by how it matched (an identifier fully, a
 * name by its coverage); on a page that only lists the item ({@link PageMatch.listed}) a
 * page-level reading (not of the matched structured product) is doubtful (`Candidate.doubt`): it
 * may describe the page's own product.
 */
export function pageReading(c: Candidate, rank: number, m: PageMatch): Candidate {
  const weight = c.weight * (rank === 0 ? 1 : 0.7) * (m.kind === 'identifier' ? 1 : 0.9 + 0.1 * m.score);
  const listed = m.listed && !PRODUCT_METHODS.has(c.method) && !c.doubt;
  return {
    ...c,
    weight,
    ...(listed ? { doubt: "read from a page that only lists the item among other products; it may describe the page's own product" } : {}),
  };
}
