import * as cheerio from 'cheerio';
import type { MicrodataItem, MicrodataValue } from './microdata';
import { findNodes } from './jsonld';

/** One offer of a structured product; strings as written on the page. */
export interface StructuredOffer {
  price?: string;
  /** A reference price the markup states beside the offer's (a `priceSpecification` of priceType ListPrice, StrikethroughPrice, SRP or MSRP). */
  list_price?: string;
  /** The offer's own price is stated as a reference price (it equals its ListPrice/StrikethroughPrice specification): beside a lower offer it is the list price, not the price paid. */
  reference?: boolean;
  currency?: string;
  availability?: string;
  /** Where it was found, e.g. `offers[0].price` (relative to the product). */
  path: string;
}

/** A schema.org Product read from JSON-LD or microdata, flattened to the fields the engine uses. */
export interface StructuredProduct {
  origin: 'jsonld' | 'microdata';
  /** Path of the product in its syntax, e.g. `@graph[2]` or `Product`. */
  path: string;
  name?: string;
  brand?: string;
  sku?: string;
  mpn?: string;
  gtin?: string;
  /** Which property held the GTIN (`gtin13`, `gtin`, …). */
  gtin_property?: string;
  product_id?: string;
  description?: string;
  /** Whether the description is written in the page's visible text (set by the page parser; absent in older evidence). */
  description_shown?: boolean;
  images: string[];
  offers: StructuredOffer[];
  /** Other scalar properties (`color`, `material`, additionalProperty name → value); a quantitative value's number as written. */
  properties: Record<string, string>;
  /**
   * Units of the {@link properties} that the page states as schema.org quantities
   * (`QuantitativeValue` or `PropertyValue` with `value` + `unitCode`/`unitText`): property
   * name → the unit as written, the `unitCode` (a UN/CEFACT Recommendation 20 common code such
   * as `KGM`, `CMT`, `INH`) when given, else the `unitText`. Absent in older evidence and when
   * no property has a unit.
   */
  units?: Record<string, string>;
}

/** schema.org `priceType` values of a reference price (https://schema.org/PriceTypeEnumeration), written as URL or bare name. */
const LIST_PRICE_TYPE = /(^|\/)(ListPrice|StrikethroughPrice|SRP|MSRP)$/i;

const GTIN_PROPS = ['gtin13', 'gtin', 'gtin12', 'gtin14', 'gtin8', 'ean', 'isbn', 'upc'];

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return scalar(value[0]);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return scalar(o.name ?? o['@value'] ?? o.properties ?? o['@id']);
  }
  return undefined;
}

/**
 * A schema.org Offer or PriceSpecification property (`priceCurrency`, `price`, …) of a plain
 * object: the property of that exact name, else one whose name differs from it only in case
 * (`pricecurrency`). Microdata and JSON-LD names are case-sensitive, but a property name that
 * differs only in case names nothing else in schema.org's vocabulary, and shops write
 * `itemprop="pricecurrency"`; a reader takes it for the property it spells.
 */
function offerProp(o: Record<string, unknown>, name: string): unknown {
  if (o[name] !== undefined) return o[name];
  const lower = name.toLowerCase();
  const key = Object.keys(o).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : o[key];
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

function imageUrls(value: unknown): string[] {
  return list(value).flatMap((v) => {
    if (typeof v === 'string') return [v];
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const u = o.url ?? o.contentUrl ?? (o.properties as Record<string, unknown> | undefined)?.url;
      return typeof u === 'string' ? [u] : [];
    }
    return [];
  });
}

/**
 * Text of a value that may hold HTML (shops put `<br />`, `<p>` and entities into JSON-LD
 * descriptions, sometimes entity-encoded): tags become spaces, entities are decoded,
 * whitespace is collapsed. Plain values are returned unchanged.
 */
function plainText(value: string | undefined): string | undefined {
  let text = value;
  // Twice: some shops entity-encode the HTML (`&lt;strong&gt;`), so decoding yields tags.
  for (let pass = 0; pass < 2 && text !== undefined && /<\/?[a-z][^>]*>|&(#\d+|#x[0-9a-f]+|[a-z]+);/i.test(text); pass++) {
    text = cheerio.load(text.replace(/</g, ' <'), null, false).root().text().replace(/\s+/g, ' ').trim() || undefined;
  }
  return text;
}

/**
 * A schema.org quantity (`QuantitativeValue`, or a `PropertyValue`/`StructuredValue` with a
 * `value`): its value as written and its unit (`unitCode` first, being machine-readable, else
 * `unitText`). A `value` that is itself a QuantitativeValue (a PropertyValue wrapping one) is
 * read through. Undefined when the object holds no scalar `value`, e.g. a `minValue`/`maxValue`
 * range, whose single value would be a guess.
 */
function quantity(
  o: Record<string, unknown>,
  props: (o: unknown) => Record<string, unknown> | undefined,
  depth = 0,
): { value: string; unit?: string } | undefined {
  const unit = scalar(o.unitCode) ?? scalar(o.unitText);
  const inner = o.value !== null && typeof o.value === 'object' && !Array.isArray(o.value) && depth < 2 ? props(o.value) : undefined;
  const nested = inner ? quantity(inner, props, depth + 1) : undefined;
  if (nested) return nested.unit || !unit ? nested : { ...nested, unit };
  const value = scalar(o.value);
  if (value === undefined) return undefined;
  return unit ? { value, unit } : { value };
}

/**
 * One schema.org Offer (or AggregateOffer) as the engine reads it, or undefined when it states
 * neither a price nor an availability. The offer's price is its `price`, else the AggregateOffer's
 * `lowPrice` (the lowest price of its offers), else the price of a `priceSpecification` that is
 * not typed as a reference price. A specification whose `priceType` is ListPrice,
 * StrikethroughPrice, SRP or MSRP (https://schema.org/PriceTypeEnumeration; Google's
 * strikethrough-price markup) states the price before a discount: it becomes `list_price` and is
 * never the offer's price. An offer whose own price equals such a reference specification is
 * marked `reference` (it may be the list-price offer beside a sale offer). `currency`: the
 * enclosing offer's currency, for nested offers that omit theirs.
 */
function readOffer(
  offer: Record<string, unknown>,
  base: string,
  props: (o: unknown) => Record<string, unknown> | undefined,
  currencyDefault?: string,
): StructuredOffer | undefined {
  const specs = list(offerProp(offer, 'priceSpecification'))
    .map(props)
    .filter((o): o is Record<string, unknown> => !!o);
  const isList = (x: Record<string, unknown>) => LIST_PRICE_TYPE.test(scalar(offerProp(x, 'priceType')) ?? '');
  const listSpec = specs.find(isList);
  const spec = specs.find((x) => !isList(x) && scalar(offerProp(x, 'price')) !== undefined);
  const own = scalar(offerProp(offer, 'price')) ?? scalar(offerProp(offer, 'lowPrice'));
  const price = own ?? (spec ? scalar(offerProp(spec, 'price')) : undefined);
  const priceKey = scalar(offerProp(offer, 'price')) ? 'price' : scalar(offerProp(offer, 'lowPrice')) ? 'lowPrice' : 'priceSpecification.price';
  const currency =
    scalar(offerProp(offer, 'priceCurrency')) ??
    (spec ? scalar(offerProp(spec, 'priceCurrency')) : undefined) ??
    (listSpec ? scalar(offerProp(listSpec, 'priceCurrency')) : undefined) ??
    currencyDefault;
  const listPrice = listSpec ? scalar(offerProp(listSpec, 'price')) : undefined;
  const availability = scalar(offerProp(offer, 'availability'));
  if (price === undefined && availability === undefined && listPrice === undefined) return undefined;
  const sameAmount = (a?: string, b?: string) => a !== undefined && b !== undefined && Number(a) === Number(b) && !Number.isNaN(Number(a));
  return {
    price,
    currency,
    availability,
    path: price !== undefined ? `${base}.${priceKey}` : availability !== undefined ? `${base}.availability` : `${base}.priceSpecification`,
    ...(listPrice !== undefined && !sameAmount(listPrice, price) ? { list_price: listPrice } : {}),
    ...(listPrice !== undefined && sameAmount(listPrice, price) && own !== undefined ? { reference: true } : {}),
  };
}

/** Flattens a plain object (JSON-LD node, or microdata item's properties) into a product. */
function toProduct(
  node: Record<string, unknown>,
  origin: StructuredProduct['origin'],
  path: string,
  props: (o: unknown) => Record<string, unknown> | undefined,
): StructuredProduct {
  const p: StructuredProduct = { origin, path, images: imageUrls(node.image), offers: [], properties: {} };
  p.name = scalar(node.name);
  p.brand = scalar(node.brand) ?? scalar(node.manufacturer);
  p.sku = scalar(node.sku);
  p.mpn = scalar(node.mpn);
  p.product_id = scalar(node.productID);
  p.description = plainText(scalar(node.description));
  for (const prop of GTIN_PROPS) {
    const v = scalar(node[prop]);
    if (v) {
      p.gtin = v;
      p.gtin_property = prop;
      break;
    }
  }
  const offerList = list(node.offers);
  offerList.forEach((raw, i) => {
    const offer = props(raw);
    if (!offer) return;
    const base = offerList.length > 1 ? `offers[${i}]` : 'offers';
    const read = readOffer(offer, base, props);
    if (read) p.offers.push(read);
    const nested = list(offerProp(offer, 'offers'))
      .map(props)
      .filter((o): o is Record<string, unknown> => !!o);
    nested.forEach((n, j) => {
      const inner = readOffer(n, `${base}.offers[${j}]`, props, read?.currency);
      if (inner) p.offers.push(inner);
    });
  });
  const units: Record<string, string> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('@') || key in p || value === null || value === undefined) continue;
    if (typeof value !== 'object') {
      const v = scalar(value);
      if (v) p.properties[key] = v;
      continue;
    }
    // `weight`, `width`, `height`, `depth` (schema.org Product) and the like are QuantitativeValues.
    const o = props(list(value)[0]);
    const q = o && key !== 'additionalProperty' ? quantity(o, props) : undefined;
    if (!q) continue;
    p.properties[key] = q.value;
    if (q.unit) units[key] = q.unit;
  }
  for (const ap of list(node.additionalProperty)) {
    const o = props(ap);
    const name = o ? scalar(o.name) : undefined;
    const q = o ? quantity(o, props) : undefined;
    if (!name || !q) continue;
    p.properties[name] = q.value;
    if (q.unit) units[name] = q.unit;
    else delete units[name];
  }
  if (Object.keys(units).length > 0) p.units = units;
  return p;
}

/** schema.org Products (incl. `@graph`, nested, `ProductGroup`/`IndividualProduct`) of JSON-LD blocks. */
export function productsFromJsonLd(blocks: unknown[]): StructuredProduct[] {
  const asObject = (o: unknown) => (o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined);
  return findNodes(blocks, ['Product', 'ProductGroup', 'IndividualProduct', 'ProductModel', 'Book', 'Vehicle', 'Car']).map(({ node, path }) =>
    toProduct(node, 'jsonld', path || 'Product', asObject),
  );
}

function microdataProps(value: unknown): Record<string, unknown> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const item = value as MicrodataItem;
  if (!item.properties) return undefined;
  return item.properties as Record<string, unknown>;
}

/** schema.org Products among microdata items (top level and nested), with `brand`/`offers` flattened. */
export function productsFromMicrodata(items: MicrodataItem[]): StructuredProduct[] {
  const out: StructuredProduct[] = [];
  const visit = (item: MicrodataItem, path: string): void => {
    const types = (Array.isArray(item.type) ? item.type : item.type ? [item.type] : []).map((t) => t.replace(/^.*[/#]/, ''));
    if (types.some((t) => ['Product', 'IndividualProduct', 'ProductModel', 'Book'].includes(t))) {
      out.push(toProduct(item.properties as Record<string, unknown>, 'microdata', path, microdataProps));
    }
    for (const [key, value] of Object.entries(item.properties)) {
      for (const v of list(value) as MicrodataValue[]) if (typeof v === 'object') visit(v, `${path}.${key}`);
    }
  };
  items.forEach((item, i) => visit(item, items.length > 1 ? `item[${i}]` : 'item'));
  return out;
}
