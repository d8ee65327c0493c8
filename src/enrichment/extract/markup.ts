/**
 * Small readers of a page's machine-readable markup shared by the field readers
 * (./candidates.ts, ./prices.ts): OpenGraph values and how a structured product's property is
 * named in explanations.
 */
import type { PageDoc } from '../parse/page';
import type { StructuredProduct } from '../parse/products';

/** The page's OpenGraph values whose property matches `re` (e.g. `/^(product|og):price:amount$/i`), in page order, empty values left out. */
export function ogValues(doc: PageDoc, re: RegExp): string[] {
  return doc.opengraph
    .filter(([k]) => re.test(k))
    .map(([, v]) => v)
    .filter(Boolean);
}

/** How a structured product's property is cited in an explanation: `JSON-LD Product at @graph[1].offers.price`, `microdata Product sku`. */
export function productLabel(p: StructuredProduct, prop: string): string {
  return p.origin === 'jsonld' ? `JSON-LD ${p.path === 'Product' ? 'Product' : `Product at ${p.path}`}.${prop}` : `microdata Product ${prop}`;
}
