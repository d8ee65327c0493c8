import type { ChannelAttribute, ChannelDefinition, ChannelId } from './types';

/**
 * The channels' definitions (docs/channels.md, "Channels"): the attributes each one reads, how
 * it needs them, and the formats it accepts. Sources:
 * - Google Merchant Center product data specification, https://support.google.com/merchants/answer/7052112
 * - Meta commerce catalog fields, https://developers.facebook.com/docs/marketing-api/catalog/reference
 * - schema.org Product / Offer / ProductGroup, https://schema.org/Product, https://schema.org/ProductGroup
 * All three use the same attribute names (Meta's follow Google's); the schema.org writer turns
 * them into schema.org properties (title → name, link → url, …; src/channels/render-schema-org.ts).
 */

type Attr = [name: string, required: ChannelAttribute['required'], description: string, condition?: string];

function attrs(list: Attr[]): ChannelAttribute[] {
  return list.map(([name, required, description, condition]) => (condition ? { name, required, condition, description } : { name, required, description }));
}

const APPAREL = 'apparel and accessories items (Google category 166 and its subtree)';

/** Google Merchant Center (product data specification, support.google.com/merchants/answer/7052112). */
const GOOGLE: ChannelDefinition = {
  id: 'google_merchant_center',
  name: 'Google Merchant Center',
  formats: ['tsv', 'xml'],
  attributes: attrs([
    ['id', 'always', 'Unique product identifier, at most 50 characters'],
    ['title', 'always', 'Product name, at most 150 characters'],
    ['description', 'always', 'Product description, at most 5,000 characters'],
    ['link', 'always', 'Landing page URL (http or https)'],
    ['image_link', 'always', 'Main image URL (http or https)'],
    ['additional_image_link', 'optional', 'Up to 10 more image URLs'],
    ['availability', 'always', 'in_stock, out_of_stock, preorder or backorder'],
    ['availability_date', 'conditional', 'When a preordered or backordered item ships (ISO 8601)', 'availability is preorder or backorder'],
    ['price', 'always', 'Price as "<amount> <ISO 4217 currency>", e.g. "15.00 USD"'],
    ['sale_price', 'optional', 'Sale price, same format as price'],
    ['sale_price_effective_date', 'optional', 'Sale period as an ISO 8601 interval "start/end"'],
    ['brand', 'conditional', 'Brand name', 'new products with a clearly associated brand; part of the identifiers (GTIN, or brand + MPN)'],
    ['gtin', 'conditional', 'Global Trade Item Number (GTIN-8, -12, -13 or -14)', 'products with a GTIN assigned by the manufacturer'],
    ['mpn', 'conditional', 'Manufacturer part number', 'products without a GTIN'],
    ['identifier_exists', 'optional', 'no when the product has neither a GTIN nor brand + MPN'],
    ['condition', 'conditional', 'new, refurbished or used', 'used or refurbished products'],
    ['google_product_category', 'optional', 'Google product taxonomy id or path'],
    ['product_type', 'optional', 'Your own category path, e.g. "Home > Kitchen > Knives"'],
    ['item_group_id', 'conditional', 'Id shared by the variants of one product', 'variants (items that differ by color, size, …)'],
    ['color', 'conditional', 'Color', APPAREL],
    ['size', 'conditional', 'Size', APPAREL],
    ['gender', 'conditional', 'male, female or unisex', APPAREL],
    ['age_group', 'conditional', 'newborn, infant, toddler, kids or adult', APPAREL],
    ['material', 'optional', 'Material'],
    ['pattern', 'optional', 'Pattern'],
    ['shipping_weight', 'optional', 'Weight used for shipping, e.g. "3 kg"'],
  ]),
};

/** Meta commerce catalog (developers.facebook.com/docs/marketing-api/catalog/reference). */
const META: ChannelDefinition = {
  id: 'meta_catalog',
  name: 'Meta commerce catalog',
  formats: ['csv'],
  attributes: attrs([
    ['id', 'always', 'Unique content id (the SKU), at most 100 characters'],
    ['title', 'always', 'Product name, at most 200 characters'],
    ['description', 'always', 'Product description, at most 9,999 characters'],
    ['availability', 'always', 'in stock, out of stock, available for order or discontinued'],
    ['condition', 'always', 'new, refurbished or used'],
    ['price', 'always', 'Price as "<amount> <ISO 4217 currency>", e.g. "9.99 USD"'],
    ['link', 'always', 'Product page URL (http or https)'],
    ['image_link', 'always', 'Main image URL (http or https)'],
    ['brand', 'conditional', 'Brand name', 'required unless gtin or mpn is given'],
    ['gtin', 'optional', 'Global Trade Item Number'],
    ['mpn', 'optional', 'Manufacturer part number'],
    ['additional_image_link', 'optional', 'Up to 20 more image URLs'],
    ['sale_price', 'optional', 'Sale price, same format as price'],
    ['sale_price_effective_date', 'optional', 'Sale period as an ISO 8601 interval "start/end"'],
    ['item_group_id', 'conditional', 'Id shared by the variants of one product', 'variants'],
    ['google_product_category', 'optional', 'Google product taxonomy id or path'],
    ['product_type', 'optional', 'Your own category path'],
    ['color', 'optional', 'Color'],
    ['size', 'optional', 'Size'],
    ['gender', 'optional', 'female, male or unisex'],
    ['age_group', 'optional', 'adult, all ages, teen, kids, toddler, infant or newborn'],
    ['material', 'optional', 'Material'],
    ['pattern', 'optional', 'Pattern'],
  ]),
};

/** schema.org Product JSON-LD (schema.org/Product, /Offer, /ProductGroup). */
const SCHEMA_ORG: ChannelDefinition = {
  id: 'schema_org',
  name: 'schema.org Product (JSON-LD)',
  formats: ['jsonl'],
  attributes: attrs([
    ['id', 'always', 'sku of the Product'],
    ['title', 'always', 'name of the Product'],
    ['description', 'optional', 'description'],
    ['link', 'optional', 'url of the Product (http or https)'],
    ['image_link', 'optional', 'image (first)'],
    ['additional_image_link', 'optional', 'image (the rest)'],
    ['price', 'always', 'offers.price and offers.priceCurrency, from "<amount> <ISO 4217 currency>"'],
    ['availability', 'always', 'offers.availability (https://schema.org/InStock, …)'],
    ['condition', 'optional', 'offers.itemCondition (https://schema.org/NewCondition, …)'],
    ['brand', 'optional', 'brand (a Brand with this name)'],
    ['gtin', 'optional', 'gtin'],
    ['mpn', 'optional', 'mpn'],
    ['item_group_id', 'conditional', 'productGroupID of the ProductGroup the variant belongs to', 'variants'],
    ['product_type', 'optional', 'category'],
    ['color', 'optional', 'color'],
    ['size', 'optional', 'size'],
    ['material', 'optional', 'material'],
    ['pattern', 'optional', 'pattern'],
  ]),
};

/** Every channel, in the order `GET /api/public/channels` lists them. Frozen: callers must copy to change. */
export const CHANNELS: readonly ChannelDefinition[] = Object.freeze([GOOGLE, META, SCHEMA_ORG]);

/** The channel with this id, or null for an unknown id (the API answers 422 for it). */
export function channelById(id: string): ChannelDefinition | null {
  return CHANNELS.find((c) => c.id === id) ?? null;
}

/** Whether `id` names a channel. */
export function isChannelId(id: string): id is ChannelId {
  return channelById(id) !== null;
}
