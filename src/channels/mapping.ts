import type { ChannelDefinition, MappingProposal, MappingSource, ProposeOptions, SchemaFieldInfo } from './types';

/**
 * The mapping proposal (docs/channels.md, "Mapping proposal"): for each attribute of a channel,
 * which catalog field (or template, or constant) most likely holds it, and why. It reads the
 * schema's field names, types, formats and descriptions only; no item values, no model.
 */

/** Field names (normalised: lower case, `product_` prefix dropped, non-alphanumerics as `_`) that hold each attribute, best first. */
const NAMES: Record<string, string[]> = {
  id: ['sku', 'id', 'item_id', 'article_number', 'article_no', 'code', 'product_code', 'offer_id'],
  title: ['title', 'name', 'product_name', 'product_title', 'item_name'],
  description: ['description', 'long_description', 'product_description', 'body', 'body_html', 'short_description'],
  link: ['link', 'url', 'product_url', 'page_url', 'permalink', 'landing_page', 'product_link'],
  image_link: ['image_link', 'image_url', 'image', 'main_image', 'main_image_url', 'picture', 'thumbnail'],
  additional_image_link: ['additional_image_link', 'additional_images', 'additional_image_urls', 'gallery', 'more_images'],
  availability: ['availability', 'stock_status', 'in_stock', 'stock'],
  availability_date: ['availability_date', 'release_date'],
  price: ['price', 'regular_price', 'list_price', 'base_price', 'amount'],
  sale_price: ['sale_price', 'special_price', 'discount_price', 'offer_price'],
  sale_price_effective_date: ['sale_price_effective_date', 'sale_period'],
  brand: ['brand', 'brand_name', 'manufacturer', 'vendor', 'make'],
  gtin: ['gtin', 'ean', 'upc', 'barcode', 'gtin13', 'gtin12', 'gtin14', 'gtin8', 'ean13', 'isbn', 'jan'],
  mpn: ['mpn', 'manufacturer_part_number', 'part_number', 'model_number'],
  identifier_exists: ['identifier_exists'],
  condition: ['condition', 'item_condition'],
  google_product_category: ['google_product_category', 'google_category'],
  product_type: ['product_type', 'category_path', 'category', 'categories', 'breadcrumb'],
  item_group_id: ['item_group_id', 'group_id', 'parent_sku'],
  color: ['color', 'colour'],
  size: ['size'],
  gender: ['gender', 'sex', 'target_gender'],
  age_group: ['age_group', 'age'],
  material: ['material', 'fabric'],
  pattern: ['pattern'],
  shipping_weight: ['shipping_weight', 'weight'],
};

const CURRENCY_NAMES = ['currency', 'price_currency', 'currency_code'];

/** A field name in the form {@link NAMES} lists. */
export function normaliseFieldName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^product_(?!(code|name|title|description|url|link|type|id)$)/, '');
}

function findField(fields: SchemaFieldInfo[], names: string[], accept: (f: SchemaFieldInfo) => boolean = () => true): SchemaFieldInfo | null {
  for (const n of names) {
    const f = fields.find((x) => normaliseFieldName(x.name) === n && accept(x));
    if (f) return f;
  }
  return null;
}

const scalar = (f: SchemaFieldInfo) => f.type !== 'object';
const isArray = (f: SchemaFieldInfo) => f.type === 'array';
const looksUrl = (f: SchemaFieldInfo) => f.format === 'uri' || /\burl\b|link|https?/i.test(`${f.name} ${f.description ?? ''}`);

/**
 * Proposes a mapping of the channel's attributes from the catalog's fields: by name (with common
 * synonyms, e.g. `ean`/`upc`/`barcode` → gtin, `name` → title, `url` → link), then by meaning:
 * an array of images gives `image_link` (`images[0]`) and `additional_image_link` (`images[1:]`);
 * a price with a currency field gives the template "{price} {currency}"; a taxonomy gives
 * `product_type` as the category path (`$category_path`) and, when its nodes carry Google
 * categories, `google_product_category`; a missing condition is proposed as the constant `new`.
 * Attributes with no likely source are left out. Every proposal says why (`reason`).
 */
export function proposeMapping(fields: SchemaFieldInfo[], channel: ChannelDefinition, opts: ProposeOptions = {}): MappingProposal {
  const wanted = new Set(channel.attributes.map((a) => a.name));
  const out: MappingProposal = {};
  const put = (attribute: string, source: MappingSource, reason: string) => {
    if (wanted.has(attribute) && out[attribute] === undefined) out[attribute] = { source, reason };
  };
  const images = findField(fields, ['images', 'image_urls', 'image_links', 'pictures', 'photos'], isArray) ?? findField(fields, NAMES.image_link, isArray);
  if (images) {
    put('image_link', `${images.name}[0]`, `the first element of the image list "${images.name}"`);
    put('additional_image_link', `${images.name}[1:]`, `the other elements of the image list "${images.name}"`);
  }
  const price = findField(fields, NAMES.price, scalar);
  const currency = findField(fields, CURRENCY_NAMES, scalar);
  if (price) {
    if (currency) put('price', { template: `{${price.name}} {${currency.name}}` }, `the amount "${price.name}" with the currency "${currency.name}"`);
    else if (opts.currency) put('price', price.name, `the amount "${price.name}"; the feed's currency ${opts.currency} is appended`);
    else put('price', price.name, `the amount "${price.name}"; no currency field: give the feed a currency or map one`);
    const sale = findField(fields, NAMES.sale_price, scalar);
    if (sale)
      put(
        'sale_price',
        currency ? { template: `{${sale.name}} {${currency.name}}` } : sale.name,
        `the sale amount "${sale.name}"${currency ? ` with "${currency.name}"` : ''}`,
      );
  }
  for (const [attribute, names] of Object.entries(NAMES)) {
    if (out[attribute] !== undefined || !wanted.has(attribute)) continue;
    const accept =
      attribute === 'link'
        ? (f: SchemaFieldInfo) => scalar(f) && !/image|img|photo/i.test(f.name)
        : attribute === 'additional_image_link'
          ? () => true
          : scalar;
    const f = findField(fields, names, accept);
    if (f)
      put(
        attribute,
        f.name,
        normaliseFieldName(f.name) === attribute ? `the field "${f.name}" has the attribute's name` : `the field "${f.name}" usually holds ${attribute}`,
      );
  }
  if (wanted.has('link') && !out.link) {
    const f = fields.find((x) => scalar(x) && looksUrl(x) && !/image|img|photo/i.test(x.name));
    if (f) put('link', f.name, `"${f.name}" is a URL field`);
  }
  if (wanted.has('image_link') && !out.image_link) {
    const f = fields.find((x) => looksUrl(x) && /image|img|photo|picture/i.test(x.name));
    if (f) put('image_link', isArray(f) ? `${f.name}[0]` : f.name, `"${f.name}" is an image URL field`);
  }
  if (!out.product_type && opts.hasTaxonomy) put('product_type', '$category_path', "the item's category path in the catalog's taxonomy");
  if (!out.google_product_category && opts.hasGoogleCategories)
    put('google_product_category', '$google_product_category', "the Google product category the item's taxonomy node maps to");
  if (!out.condition) put('condition', { value: 'new' }, 'no condition field: the items are taken to be new');
  return out;
}

/** A proposal as a plain mapping (attribute → source), the form a feed stores. */
export function mappingOf(proposal: MappingProposal): Record<string, MappingSource> {
  return Object.fromEntries(Object.entries(proposal).map(([a, p]) => [a, p.source]));
}
