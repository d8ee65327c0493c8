import crypto from 'node:crypto';
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import { parseJsonLd } from './jsonld';
import { parseKeyValues, type KeyValue } from './key-values';
import { labelledCodes, type LabelledCode, type LabelledRole } from './labels';
import { parseMicrodata } from './microdata';
import { parseOpenGraph } from './opengraph';
import { productsFromJsonLd, productsFromMicrodata, type StructuredProduct } from './products';

/** Text of an element whose id/class/itemprop names a price, with a prominence score. */
export interface PriceText {
  text: string;
  /** Higher is more likely the current selling price (id/class vocabulary, struck-through → low). */
  score: number;
  /** CSS-like locator for explanations, e.g. `span#priceblock_ourprice`. */
  locator: string;
}

/**
 * The parsed facts of one page: compact and JSON-serialisable (this is what evidence
 * stores; no HTML). `text` is the visible text, whitespace-collapsed and capped.
 */
export interface PageDoc {
  /** The page's original URL (what sources cite). */
  url: string;
  title: string;
  lang?: string;
  canonical?: string;
  meta_description?: string;
  opengraph: Array<[string, string]>;
  products: StructuredProduct[];
  key_values: KeyValue[];
  price_texts: PriceText[];
  /** Short texts of elements whose id/class speaks of stock/availability. */
  availability_texts: string[];
  /** Whether an add-to-cart / buy control is present. */
  has_buy_button: boolean;
  /** Absolute image URLs from OpenGraph and product markup. */
  images: string[];
  text: string;
  /** Codes written after an identifier label anywhere in the visible text (see {@link labelledCodes}); absent in evidence stored before it existed. */
  labelled_codes?: Record<LabelledRole, LabelledCode[]>;
  /** The structured identifiers (sku, gtin, mpn, productID of any product) that also appear in the visible text. */
  shown_ids?: string[];
}

const PRICE_ATTR = /price|preis|prix|precio|prezzo|cena|цена/i;
const PRICE_BAD = /old|was|list|strike|regular|before|crossed|compare|original|rrp|uvp|msrp|save|saving|discount|per[-_]?unit|unit[-_]?price|shipping|delivery|range|min|max|filter|slider/i;
const PRICE_GOOD = /sale|current|our|final|actual|now|special|offer|buybox|main|product[-_]?price|price[-_]?value|amount/i;
/** Prices that are not the product's selling price: shipping, coupons, instalments, loyalty points. */
const PRICE_NOT_PRODUCT = /shipping|delivery|coupon|install?ment|bonus|loyalty|points|financ|monthly/i;
/** "from 9.99", "8 Optionen von 98,65 €", "à partir de": the low end of a range, not one offer's price. */
const PRICE_FROM = /(^|\s)(from|von|ab|à partir de|a partir de|desde|da|starting at|od|от|최대|options?|optionen)(\s|$)/i;
const STOCK_ATTR = /avail|stock|inventory|lager|dispon|verfueg|verfüg|nalich|наличи|delivery[-_]?message/i;
const IMAGE_CAPTION = /\b(image|images|bild|immagine|imagen|photo|foto|picture)\b/i;
const BUY = /add[-_ ]?to[-_ ]?(cart|basket|bag|trolley)|buy[-_ ]?now|in den warenkorb|warenkorb|ajouter au panier|añadir al carrito|aggiungi al carrello|in winkelwagen|do koszyka|в корзину|comprar|kaufen/i;

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function absolute(url: string, base: string): string | null {
  try {
    return new URL(url.trim(), base).href;
  } catch {
    return null;
  }
}

function attrs($: CheerioAPI, el: Parameters<CheerioAPI>[0]): string {
  const $el = $(el as never);
  return [$el.attr('id'), $el.attr('class'), $el.attr('itemprop'), $el.attr('data-testid')].filter(Boolean).join(' ');
}

function locator(tag: string, id?: string, cls?: string): string {
  if (id) return `${tag}#${id}`;
  const first = (cls ?? '').trim().split(/\s+/)[0];
  return first ? `${tag}.${first}` : tag;
}

function priceTexts($: CheerioAPI): PriceText[] {
  const out: PriceText[] = [];
  $('[id],[class],[itemprop]').each((i, el) => {
    const a = attrs($, el);
    if (!PRICE_ATTR.test(a) || PRICE_NOT_PRODUCT.test(a) || /^(script|style|meta|link|input|option|select)$/i.test(el.tagName)) return;
    const text = collapse($(el).text());
    if (!text || text.length > 60 || !/\d/.test(text)) return;
    if ($(el).find('[id],[class]').filter((_, c) => PRICE_ATTR.test(attrs($, c))).length > 0) return;
    let score = 0;
    if (/price/i.test($(el).attr('id') ?? '')) score += 2;
    if (PRICE_GOOD.test(a)) score += 1;
    if (PRICE_BAD.test(a)) score -= 3;
    if ($(el).closest('del,s,strike').length > 0) score -= 3;
    if (PRICE_FROM.test(text)) score -= 3;
    // Several amounts in one element (old and new price, price and bonus): a single-amount element inside is clearer.
    if ((text.match(/\d[\d\s.,']*/g) ?? []).length >= 2) score -= 1;
    if ($(el).closest('[class*="related"],[class*="recommend"],[class*="carousel"],[id*="carousel"],[class*="similar"],[class*="upsell"],footer,nav').length > 0) score -= 2;
    score -= Math.min(2, i / 5000);
    out.push({ text, score, locator: locator(el.tagName, $(el).attr('id'), $(el).attr('class')) });
  });
  return out.slice(0, 40);
}

function availabilityTexts($: CheerioAPI): string[] {
  const out: string[] = [];
  $('[id],[class]').each((_, el) => {
    if (out.length >= 20 || /^(script|style|meta|link)$/i.test(el.tagName)) return;
    if (!STOCK_ATTR.test(attrs($, el))) return;
    const text = collapse($(el).text());
    // "Image not available" captions sit in stock-named widgets but say nothing about stock.
    if (text && text.length <= 160 && !IMAGE_CAPTION.test(text) && !out.includes(text)) out.push(text);
  });
  return out;
}

function hasBuyButton($: CheerioAPI): boolean {
  let found = false;
  $('button,input[type=submit],input[type=button],a[id],a[class]').each((_, el) => {
    if (found) return false;
    const $el = $(el);
    const label = [$el.attr('id'), $el.attr('class'), $el.attr('name'), $el.attr('value'), $el.attr('aria-label'), collapse($el.text()).slice(0, 60)].join(' ');
    if (BUY.test(label) && $el.attr('disabled') === undefined) found = true;
    return undefined;
  });
  return found;
}

/**
 * Parses a fetched page into {@link PageDoc}: JSON-LD, microdata, OpenGraph, key/value
 * pairs, price and stock snippets, images and visible text. Pure; never throws on bad HTML
 * (cheerio/htmlparser2 are error-tolerant). Decoding honours a BOM or `<meta charset>`, else UTF-8.
 * @param url the original URL of the page (relative links resolve against the canonical link, else it)
 * @param body the raw bytes
 */
export function parsePage(url: string, body: Buffer): PageDoc {
  // htmlparser2 (HTML mode) builds the tree about 5x faster than parse5 on large shop pages;
  // its tree differs from the WHATWG one only for badly nested markup, which none of the
  // readings below depend on.
  const $ = cheerio.loadBuffer(body, { xml: { xmlMode: false, decodeEntities: true }, encoding: { defaultEncoding: 'utf-8' } });
  const canonical = $('link[rel="canonical"]').attr('href')?.trim() || undefined;
  const base = (canonical && absolute(canonical, url)) || url;
  const jsonld = parseJsonLd($);
  const microdata = parseMicrodata($, base);
  const products = [...productsFromJsonLd(jsonld), ...productsFromMicrodata(microdata)];
  const opengraph = parseOpenGraph($);
  const images = new Set<string>();
  for (const [k, v] of opengraph) if (/^og:image(:url|:secure_url)?$/i.test(k)) images.add(v);
  for (const p of products) for (const img of p.images) images.add(img);
  const doc: PageDoc = {
    url,
    title: collapse($('title').first().text()),
    lang: $('html').attr('lang') || undefined,
    canonical: canonical ? absolute(canonical, url) ?? undefined : undefined,
    meta_description: $('meta[name="description" i]').attr('content')?.trim() || undefined,
    opengraph,
    products: products.map((p) => ({ ...p, images: p.images.map((i) => absolute(i, base)).filter((i): i is string => !!i) })),
    key_values: [],
    price_texts: priceTexts($),
    availability_texts: availabilityTexts($),
    has_buy_button: hasBuyButton($),
    images: [...images].map((i) => absolute(i, base)).filter((i): i is string => !!i),
    text: '',
  };
  $('script,style,noscript,template,svg').remove();
  doc.key_values = parseKeyValues($);
  const fullText = collapse($('body').text() || $.root().text());
  doc.text = fullText.slice(0, 100_000);
  const ids = doc.products.flatMap((p) => [p.sku, p.gtin, p.mpn, p.product_id]).filter((v): v is string => !!v && v.length >= 3);
  doc.shown_ids = [...new Set(ids)].filter((v) => fullText.includes(v));
  doc.labelled_codes = { sku: labelledCodes(fullText, 'sku'), mpn: labelledCodes(fullText, 'mpn'), gtin: labelledCodes(fullText, 'gtin') };
  return doc;
}

const cache = new Map<string, PageDoc>();

/** Hex SHA-1 of a page's bytes: with the URL, the key of the per-process parse memo. */
export function pageDigest(body: Buffer): string {
  return crypto.createHash('sha1').update(body).digest('hex');
}

/**
 * {@link parsePage} memoised per process by URL and {@link pageDigest} of the bytes, so a page
 * read by several items (and by the search index) is parsed once.
 */
export function parsePageCached(url: string, body: Buffer): PageDoc {
  const key = `${url}\n${pageDigest(body)}`;
  let doc = cache.get(key);
  if (!doc) {
    doc = parsePage(url, body);
    cache.set(key, doc);
  }
  return doc;
}

/**
 * Seeds the parse memo with facts parsed earlier (e.g. by another process, read from the
 * archive cache): a later {@link parsePageCached} of the same URL and bytes returns `doc`.
 */
export function primeParsedPage(url: string, digest: string, doc: PageDoc): void {
  cache.set(`${url}\n${digest}`, doc);
}
