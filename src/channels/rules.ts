import currencyCodes from 'currency-codes';
import { parseGtin } from './gtin';
import type { ChannelDefinition, ChannelIssue, FeedRow, ValidateContext } from './types';

/**
 * The channel rules (docs/channels.md, "Rules"). Each rule is a small pure function of the row
 * (the item's attributes under the feed's mapping), the channel and what the caller knows about
 * the item; it returns the issues it found. The Google sources are sections of the product data
 * specification, https://support.google.com/merchants/answer/7052112; Meta's are its catalog
 * fields reference, https://developers.facebook.com/docs/marketing-api/catalog/reference.
 */

/** A rule: row, channel, context → issues. */
export type ChannelRule = (row: FeedRow, channel: ChannelDefinition, ctx: ValidateContext) => ChannelIssue[];

const ISO_4217: ReadonlySet<string> = new Set(currencyCodes.codes());

/** The attribute's value as one text ('' when absent; a list's first element). */
export function single(row: FeedRow, attribute: string): string {
  const v = row[attribute];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
}

function issue(attribute: string, code: ChannelIssue['code'], message: string, value?: string, severity: ChannelIssue['severity'] = 'error'): ChannelIssue {
  return value === undefined || value === '' ? { attribute, severity, code, message } : { attribute, severity, code, message, value: value.slice(0, 500) };
}

const isGoogle = (c: ChannelDefinition) => c.id === 'google_merchant_center';
const isMeta = (c: ChannelDefinition) => c.id === 'meta_catalog';

/**
 * `missing_required`: every attribute the channel needs `always` must have a value; Google also
 * needs `availability_date` for preorder/backorder items (spec, "Price and availability").
 */
export const requiredRule: ChannelRule = (row, channel) => {
  const out = channel.attributes
    .filter((a) => a.required === 'always' && single(row, a.name) === '')
    .map((a) => issue(a.name, 'missing_required', `${a.name} is required by ${channel.name}`));
  const availability = single(row, 'availability');
  if (isGoogle(channel) && (availability === 'preorder' || availability === 'backorder') && single(row, 'availability_date') === '')
    out.push(issue('availability_date', 'missing_required', `availability_date is required when availability is ${availability}`));
  return out;
};

/**
 * The `invalid_gtin` / `restricted_gtin` issue of one GTIN value (see {@link gtinRule}), or null
 * when it is empty or a usable GTIN. Also what the console flags a catalog's GTIN values with
 * outside any feed (docs/console.md "GTIN flags").
 */
export function gtinIssue(value: string): ChannelIssue | null {
  const raw = value.trim();
  if (raw === '') return null;
  const g = parseGtin(raw);
  if (!g.ok) {
    const why = {
      not_digits: 'has characters other than digits',
      length: 'is not 8, 12, 13 or 14 digits long',
      check_digit: 'has a wrong check digit',
      zero: 'is all zeros',
    }[g.reason];
    return issue('gtin', 'invalid_gtin', `The GTIN ${why}`, raw);
  }
  if (g.restricted) return issue('gtin', 'restricted_gtin', `The GTIN is in a GS1 ${g.restricted.replace('_', ' ')} range, not a trade item number`, raw);
  return null;
}

/**
 * `invalid_gtin` / `restricted_gtin`: a GTIN must be 8, 12, 13 or 14 digits with a correct GS1
 * check digit, and not from a restricted-circulation, company-internal, coupon or refund-receipt
 * range (Google spec, "Product identifiers: gtin"; GS1 General Specifications, src/channels/gtin.ts).
 */
export const gtinRule: ChannelRule = (row) => {
  const found = gtinIssue(single(row, 'gtin'));
  return found ? [found] : [];
};

/**
 * `identifier_missing`: Google needs a GTIN, or brand + MPN, unless `identifier_exists` is `no`
 * (spec, "Product identifiers"); Meta needs one of brand, GTIN or MPN (catalog reference, brand).
 */
export const identifierRule: ChannelRule = (row, channel) => {
  const has = (a: string) => single(row, a) !== '';
  if (isGoogle(channel)) {
    const exists = single(row, 'identifier_exists').toLowerCase();
    if (exists === 'no' || exists === 'false') return [];
    if (has('gtin') || (has('brand') && has('mpn'))) return [];
    return [issue(has('brand') ? 'mpn' : 'brand', 'identifier_missing', 'No GTIN and no brand + MPN; set identifier_exists to no if the product has none')];
  }
  if (isMeta(channel) && !has('brand') && !has('gtin') && !has('mpn')) return [issue('brand', 'identifier_missing', 'Meta needs a brand, GTIN or MPN')];
  return [];
};

/** Longest values each channel accepts (Google spec: id 50, title 150, description 5,000; Meta: id 100, title 200, description 9,999). */
const MAX_LENGTH: Record<string, Record<string, number>> = {
  google_merchant_center: { id: 50, title: 150, description: 5000 },
  meta_catalog: { id: 100, title: 200, description: 9999 },
};

/** `too_long`: id, title and description within the channel's limits, counted in characters (code points). */
export const lengthRule: ChannelRule = (row, channel) => {
  const out: ChannelIssue[] = [];
  for (const [attribute, max] of Object.entries(MAX_LENGTH[channel.id] ?? {})) {
    const v = single(row, attribute);
    // Code points never outnumber UTF-16 units, so only a value longer in units is counted.
    if (v.length <= max) continue;
    const n = [...v].length;
    if (n > max) out.push(issue(attribute, 'too_long', `${attribute} has ${n} characters; ${channel.name} accepts at most ${max}`, v));
  }
  return out;
};

/** Values each channel accepts for its enumerated attributes (Google spec per attribute; Meta catalog reference). */
export const ENUMERATIONS: Record<string, Record<string, readonly string[]>> = {
  google_merchant_center: {
    availability: ['in_stock', 'out_of_stock', 'preorder', 'backorder'],
    condition: ['new', 'refurbished', 'used'],
    gender: ['male', 'female', 'unisex'],
    age_group: ['newborn', 'infant', 'toddler', 'kids', 'adult'],
    identifier_exists: ['yes', 'no', 'true', 'false'],
  },
  meta_catalog: {
    availability: ['in stock', 'out of stock', 'available for order', 'discontinued'],
    condition: ['new', 'refurbished', 'used'],
    gender: ['female', 'male', 'unisex'],
    age_group: ['adult', 'all ages', 'teen', 'kids', 'toddler', 'infant', 'newborn'],
  },
  schema_org: {
    availability: ['in_stock', 'out_of_stock', 'preorder', 'backorder', 'discontinued'],
    condition: ['new', 'refurbished', 'used', 'damaged'],
  },
};

/** `invalid_value`: enumerated attributes take one of the channel's values (case-insensitive). */
export const enumerationRule: ChannelRule = (row, channel) => {
  const out: ChannelIssue[] = [];
  for (const [attribute, values] of Object.entries(ENUMERATIONS[channel.id] ?? {})) {
    const v = single(row, attribute);
    if (v !== '' && !values.includes(v.toLowerCase())) out.push(issue(attribute, 'invalid_value', `${attribute} must be one of: ${values.join(', ')}`, v));
  }
  return out;
};

/** A price "<amount> <ISO 4217 code>" as amount and currency, or null (Google spec, "price"). */
export function parsePrice(v: string): { amount: number; currency: string } | null {
  const m = /^(\d+(?:\.\d{1,2})?) ([A-Z]{3})$/.exec(v.trim());
  if (!m || !ISO_4217.has(m[2])) return null;
  return { amount: Number(m[1]), currency: m[2] };
}

/** An ISO 8601 date or date-time Date.parse understands, as epoch ms, or null. */
function isoTime(v: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

/**
 * `invalid_value` for prices: `price` and `sale_price` are "<amount> <ISO 4217 code>" (at most
 * two decimals); a sale price is below the price in the same currency; `sale_price_effective_date`
 * is an ISO 8601 interval "start/end" with start before end (Google spec, "price", "sale_price",
 * "sale_price_effective_date").
 */
export const priceRule: ChannelRule = (row) => {
  const out: ChannelIssue[] = [];
  const price = single(row, 'price');
  const sale = single(row, 'sale_price');
  const p = price === '' ? null : parsePrice(price);
  if (price !== '' && !p) out.push(issue('price', 'invalid_value', 'price must be "<amount> <ISO 4217 currency>", e.g. "12.00 EUR"', price));
  if (sale !== '') {
    const s = parsePrice(sale);
    if (!s) out.push(issue('sale_price', 'invalid_value', 'sale_price must be "<amount> <ISO 4217 currency>", e.g. "9.99 EUR"', sale));
    else if (p && (s.currency !== p.currency || s.amount >= p.amount))
      out.push(issue('sale_price', 'invalid_value', 'sale_price must be lower than price and in the same currency', sale));
  }
  const dates = single(row, 'sale_price_effective_date');
  if (dates !== '') {
    const [start, end, extra] = dates.split('/');
    const a = start ? isoTime(start) : null;
    const b = end ? isoTime(end) : null;
    if (extra !== undefined || a === null || b === null || a >= b)
      out.push(
        issue('sale_price_effective_date', 'invalid_value', 'sale_price_effective_date must be an ISO 8601 interval "start/end" with start before end', dates),
      );
  }
  return out;
};

/** Whether `v` is an absolute http(s) URL with a host. */
export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !/\s/.test(v);
  } catch {
    return false;
  }
}

/** `invalid_value` for URLs: `link`, `image_link` and each `additional_image_link` are absolute http(s) URLs (Google spec, "link", "image_link"). */
export const urlRule: ChannelRule = (row) => {
  const out: ChannelIssue[] = [];
  for (const attribute of ['link', 'image_link', 'additional_image_link']) {
    const v = row[attribute];
    for (const u of Array.isArray(v) ? v : v ? [v] : [])
      if (u.trim() !== '' && !isHttpUrl(u.trim())) out.push(issue(attribute, 'invalid_value', `${attribute} must be an absolute http or https URL`, u));
  }
  return out;
};

/** Google category ids of the apparel subtree's top nodes: Apparel & Accessories and its main branches. */
const APPAREL_IDS: Record<string, 'apparel' | 'sized'> = {
  '166': 'apparel',
  '1604': 'sized',
  '187': 'sized',
  '167': 'apparel',
  '184': 'apparel',
  '188': 'apparel',
};

/**
 * Whether the row is apparel and whether it needs a size: by the Google product category's id
 * (the subtree's top ids) or its path ("Apparel & Accessories > Clothing > …"), from the row or
 * from the context. Clothing and Shoes need a size; all apparel needs color, gender and age group.
 */
export function apparelKind(row: FeedRow, ctx: ValidateContext): 'apparel' | 'sized' | null {
  const g = single(row, 'google_product_category');
  const path = ctx.googleCategoryPath ?? (g.includes('>') || /^[A-Za-z]/.test(g) ? g.split('>').map((s) => s.trim()) : null);
  if (path && path[0]?.toLowerCase() === 'apparel & accessories') return ['clothing', 'shoes'].includes((path[1] ?? '').toLowerCase()) ? 'sized' : 'apparel';
  return APPAREL_IDS[g] ?? null;
}

/**
 * `missing_apparel_attribute`: Google needs color, gender and age_group for apparel, and size for
 * clothing and shoes (spec, "Detailed product description": color, size, gender, age_group).
 */
export const apparelRule: ChannelRule = (row, channel, ctx) => {
  if (!isGoogle(channel)) return [];
  const kind = apparelKind(row, ctx);
  if (!kind) return [];
  const needed = kind === 'sized' ? ['color', 'size', 'gender', 'age_group'] : ['color', 'gender', 'age_group'];
  return needed.filter((a) => single(row, a) === '').map((a) => issue(a, 'missing_apparel_attribute', `${a} is required for apparel items`));
};

/** `missing_item_group_id`: a variant carries the id of its product in `item_group_id` (Google spec, "item_group_id"; Meta likewise). */
export const variantRule: ChannelRule = (row, _channel, ctx) =>
  ctx.isVariant && single(row, 'item_group_id') === ''
    ? [issue('item_group_id', 'missing_item_group_id', 'A variant needs item_group_id (its product’s id)')]
    : [];

/** Every rule, in the order their issues are listed. */
export const RULES: readonly ChannelRule[] = [
  requiredRule,
  gtinRule,
  identifierRule,
  lengthRule,
  enumerationRule,
  priceRule,
  urlRule,
  apparelRule,
  variantRule,
];
