import type { OutputField } from '../types';

/** What an output field asks for, as far as product-page markup is concerned. */
export type FieldRole = 'price' | 'list_price' | 'currency' | 'availability' | 'sku' | 'brand' | 'gtin' | 'mpn' | 'name' | 'description' | 'images' | 'generic';

/** Name vocabulary per role (schema.org / GS1 terms and common catalog column names). */
const ROLE_NAMES: Array<[FieldRole, RegExp]> = [
  ['currency', /^(price_?)?currency(_code)?$|^price_?currency$/],
  // The reference price a sale is measured against (schema.org priceType ListPrice / StrikethroughPrice, MSRP).
  ['list_price', /^(list|regular|original|was|old|compare_at|compare|reference|strikethrough|suggested_retail)_price(_amount|_value)?$|^(msrp|rrp|uvp|srp)$/],
  ['price', /^(sale_|current_|selling_|retail_|unit_)?price(_amount|_value)?$|^(preis|prix|precio|prezzo|cost)$/],
  ['availability', /^(availability|in_?stock|stock(_status)?|stock_?availability)$/],
  ['gtin', /^(gtin(8|12|13|14)?|ean(13)?|upc|barcode|isbn)$/],
  ['mpn', /^(mpn|manufacturer_part_number|part_number|model_number|model|mfr_part_number)$/],
  ['sku', /^(sku|item_number|article_number|product_code|product_id|asin|item_id)$/],
  ['brand', /^(brand(_name)?|manufacturer|make|marke)$/],
  ['name', /^(name|title|product_name|product_title)$/],
  ['description', /^(description|product_description|long_description)$/],
  ['images', /^(images?|image_urls?|photos?|pictures?)$/],
];

/** Lower snake_case of a field name (`imageUrls` → `image_urls`). */
export function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .toLowerCase();
}

/**
 * The role of an output field, from its name first and then its description (e.g. a field
 * `code` described as "EAN barcode" is a GTIN). Arrays of `image_url` are images whatever
 * their name. Unknown fields are `generic` (read from spec tables and properties by name).
 */
export function fieldRole(field: OutputField): FieldRole {
  if (field.type === 'array' && field.array_element_type === 'image_url') return 'images';
  const name = snake(field.name);
  for (const [role, re] of ROLE_NAMES) if (re.test(name)) return role;
  const d = (field.description ?? '').toLowerCase();
  if (/\b(gtin|ean|upc|barcode)\b/.test(d)) return 'gtin';
  if (/\b(mpn|manufacturer part number)\b/.test(d)) return 'mpn';
  if (/\bsku\b|stock keeping unit/.test(d)) return 'sku';
  if (/\bcurrency\b/.test(d) && !/\bprice\b/.test(name)) return 'currency';
  if (/\bprice\b/.test(d) && field.type !== 'string') return 'price';
  if (/\b(availability|in stock)\b/.test(d)) return 'availability';
  if (/\bbrand\b/.test(d)) return 'brand';
  return 'generic';
}
