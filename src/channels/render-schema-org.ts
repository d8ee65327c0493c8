import type { FeedRenderer, FeedRow } from './types';

/**
 * schema.org JSON-LD as JSON Lines (docs/channels.md, "Formats"): one `Product` per product
 * without variants, one `ProductGroup` with `hasVariant` (each variant a `Product` with
 * `isVariantOf`) per product with variants, after https://schema.org/Product,
 * https://schema.org/Offer and https://schema.org/ProductGroup. Rows carry the channels' common
 * attribute names; this writer turns them into schema.org properties.
 */

/** availability values (Google's and Meta's spellings) → schema.org ItemAvailability. */
const AVAILABILITY: Record<string, string> = {
  in_stock: 'InStock',
  'in stock': 'InStock',
  out_of_stock: 'OutOfStock',
  'out of stock': 'OutOfStock',
  preorder: 'PreOrder',
  backorder: 'BackOrder',
  'available for order': 'BackOrder',
  discontinued: 'Discontinued',
};

/** condition → schema.org OfferItemCondition. */
const CONDITION: Record<string, string> = { new: 'NewCondition', used: 'UsedCondition', refurbished: 'RefurbishedCondition', damaged: 'DamagedCondition' };

/** Row attribute → schema.org Product property for plain text values. */
const PLAIN: Array<[string, string]> = [
  ['id', 'sku'],
  ['title', 'name'],
  ['description', 'description'],
  ['link', 'url'],
  ['gtin', 'gtin'],
  ['mpn', 'mpn'],
  ['product_type', 'category'],
  ['color', 'color'],
  ['size', 'size'],
  ['material', 'material'],
  ['pattern', 'pattern'],
];

/** Variant attributes a ProductGroup may vary by (schema.org variesBy takes property URLs). */
const VARIES = ['color', 'size', 'material', 'pattern'];

const one = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();

/** The Offer of a row, or undefined without a price; price "<amount> <currency>" is split. */
function offer(r: FeedRow): Record<string, unknown> | undefined {
  const m = /^(\d+(?:\.\d+)?)\s+([A-Z]{3})$/.exec(one(r.price));
  const sale = /^(\d+(?:\.\d+)?)\s+([A-Z]{3})$/.exec(one(r.sale_price));
  if (!m) return undefined;
  const o: Record<string, unknown> = { '@type': 'Offer', price: sale ? sale[1] : m[1], priceCurrency: sale ? sale[2] : m[2] };
  const a = AVAILABILITY[one(r.availability).toLowerCase()];
  if (a) o.availability = `https://schema.org/${a}`;
  const c = CONDITION[one(r.condition).toLowerCase()];
  if (c) o.itemCondition = `https://schema.org/${c}`;
  if (one(r.link)) o.url = one(r.link);
  return o;
}

/** The schema.org Product of a row (without `@context`). */
export function schemaOrgProduct(r: FeedRow): Record<string, unknown> {
  const p: Record<string, unknown> = { '@type': 'Product' };
  for (const [attribute, property] of PLAIN) if (one(r[attribute])) p[property] = one(r[attribute]);
  const images = [
    one(r.image_link),
    ...(Array.isArray(r.additional_image_link) ? r.additional_image_link : r.additional_image_link ? [r.additional_image_link] : []),
  ].filter(Boolean);
  if (images.length) p.image = images;
  if (one(r.brand)) p.brand = { '@type': 'Brand', name: one(r.brand) };
  const o = offer(r);
  if (o) p.offers = o;
  return p;
}

/** The schema.org ProductGroup of a product and its variants (without `@context`). */
export function schemaOrgGroup(product: FeedRow, variants: FeedRow[]): Record<string, unknown> {
  const base = schemaOrgProduct(product);
  const groupId = one(product.id);
  const { sku: _sku, offers: _offers, ...rest } = base;
  const variesBy = VARIES.filter((a) => new Set(variants.map((v) => one(v[a]))).size > 1).map((a) => `https://schema.org/${a}`);
  return {
    ...rest,
    '@type': 'ProductGroup',
    productGroupID: groupId,
    ...(variesBy.length ? { variesBy } : {}),
    hasVariant: variants.map((v) => ({ ...schemaOrgProduct(v), isVariantOf: { '@type': 'ProductGroup', productGroupID: groupId } })),
  };
}

/** The JSON Lines writer: one JSON-LD object (with `@context`) per line; no header or footer. */
export function schemaOrgRenderer(): FeedRenderer {
  const line = (o: Record<string, unknown>) => JSON.stringify({ '@context': 'https://schema.org', ...o }) + '\n';
  return {
    format: 'jsonl',
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'jsonl',
    header: () => '',
    row: (r) => line(schemaOrgProduct(r)),
    group: (p, variants) => line(schemaOrgGroup(p, variants)),
    footer: () => '',
  };
}
