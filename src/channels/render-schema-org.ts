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

/**
 * The schema.org ProductGroup of a product and its variants (without `@context`), after
 * https://schema.org/ProductGroup and Google's product variant structured data guidance:
 * - the group carries the product's own properties (name, description, url, image, brand,
 *   category, and those its variants share) but no `sku`, `gtin`, `mpn` or `offers` (a group is
 *   not sold itself) and none of the properties its variants vary by;
 * - `productGroupID` is the variants' `item_group_id` (what Google and Meta feeds group them by),
 *   else the product row's `id`;
 * - `variesBy` lists, as schema.org property URLs, the properties among color, size, material and
 *   pattern whose value differs between two variants (a variant without one counts as a value);
 * - `@id` names the group node (JSON-LD 1.1, "Node Identifiers"): the product's `link` with the
 *   fragment `#product-group`, else the document-relative `#product-group-<productGroupID>`;
 * - `hasVariant` lists each variant row as a `Product` with its own `offers` and `isVariantOf`
 *   pointing back to the group by its `@id` (and its `productGroupID`, for readers that do not
 *   resolve node identifiers).
 * @param product the product's row (its own values, mapped like a row without a product)
 * @param variants the rows of its variants, each already holding what it inherits from the product
 */
export function schemaOrgGroup(product: FeedRow, variants: FeedRow[]): Record<string, unknown> {
  const groupId = variants.map((v) => one(v.item_group_id)).find(Boolean) ?? one(product.id);
  const link = one(product.link).replace(/#.*$/, '');
  const nodeId = link ? `${link}#product-group` : `#product-group-${encodeURIComponent(groupId)}`;
  const varying = VARIES.filter((a) => new Set(variants.map((v) => one(v[a]))).size > 1);
  const rest = Object.fromEntries(
    Object.entries(schemaOrgProduct(product)).filter(([property]) => !['sku', 'gtin', 'mpn', 'offers', ...varying].includes(property)),
  );
  return {
    '@id': nodeId,
    ...rest,
    '@type': 'ProductGroup',
    productGroupID: groupId,
    ...(varying.length ? { variesBy: varying.map((a) => `https://schema.org/${a}`) } : {}),
    hasVariant: variants.map((v) => ({ ...schemaOrgProduct(v), isVariantOf: { '@id': nodeId, '@type': 'ProductGroup', productGroupID: groupId } })),
  };
}

/** The JSON Lines writer: one JSON-LD object (with `@context`) per line; no header or footer. */
export function schemaOrgRenderer(): FeedRenderer {
  const line = (o: Record<string, unknown>) => JSON.stringify({ '@context': 'https://schema.org', ...o }) + '\n';
  return {
    format: 'jsonl',
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'jsonl',
    groupsVariants: true,
    header: () => '',
    row: (r) => line(schemaOrgProduct(r)),
    group: (p, variants) => line(schemaOrgGroup(p, variants)),
    footer: () => '',
  };
}
