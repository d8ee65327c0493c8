import crypto from 'node:crypto';
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import { parseBreadcrumbs, type Breadcrumbs } from './breadcrumbs';
import { parseJsonLd } from './jsonld';
import { parseKeyValues, type KeyValue } from './key-values';
import { labelledCodes, labelledPriceTexts, type LabelledCode, type LabelledPriceText, type LabelledRole } from './labels';
import { parseMicrodata, textValuedProperties } from './microdata';
import { parseOpenGraph } from './opengraph';
import { productsFromJsonLd, productsFromMicrodata, type StructuredProduct } from './products';
import type { RuleId } from '../extract/rules';

/** Text of an element whose id/class/itemprop names a price, with a prominence score. */
export interface PriceText {
  text: string;
  /** Higher is more likely the current selling price (id/class vocabulary, struck-through → low). */
  score: number;
  /** CSS-like locator for explanations, e.g. `span#priceblock_ourprice`. */
  locator: string;
  /**
   * The switchable rules that made up `score`, with what each added (src/enrichment/extract/rules.ts),
   * so that extraction can score the element without a rule; absent in evidence stored before it existed.
   */
  signals?: Array<[RuleId, number]>;
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
  /** Texts after selling-price labels in the visible text (see {@link labelledPriceTexts}); absent in older evidence. */
  price_labels?: LabelledPriceText[];
  /** The structured identifiers (sku, gtin, mpn, productID of any product) that also appear in the visible text. */
  shown_ids?: string[];
  /** Visible writings that are themselves microdata property values (see {@link textValuedProperties}); absent in older evidence. */
  microdata_texts?: string[];
  /**
   * The page's breadcrumb trail as a category path, broadest first, without the site's root
   * ("Home") and the product's own crumb (see {@link parseBreadcrumbs}); absent when the page
   * has none, and in evidence stored before it existed.
   */
  breadcrumbs?: Breadcrumbs;
}

const PRICE_ATTR = /price|preis|prix|precio|prezzo|cena|цена/i;
const PRICE_BAD =
  /old|was|list|strike|regular|before|crossed|compare|original|rrp|uvp|msrp|save|saving|discount|per[-_]?unit|unit[-_]?price|shipping|delivery|range|min|max|filter|slider/i;
const PRICE_GOOD = /sale|current|our|final|actual|now|special|offer|buybox|main|product[-_]?price|price[-_]?value|amount/i;
/** Prices that are not the product's selling price: shipping, coupons, instalments, loyalty points. */
const PRICE_NOT_PRODUCT = /shipping|delivery|coupon|install?ment|bonus|loyalty|points|financ|monthly/i;
/** "from 9.99", "8 Optionen von 98,65 €", "à partir de": the low end of a range, not one offer's price. */
const PRICE_FROM = /(^|\s)(from|von|ab|à partir de|a partir de|desde|da|starting at|od|от|최대|options?|optionen)(\s|$)/i;
/**
 * Containers of other products' tiles (recommendations, "customers also viewed", carousels of
 * similar items, cross-sells): a price inside one is never the page product's price.
 */
const WIDGET =
  /related|recommend|similar|upsell|up-sell|cross-?sell|carousel|also[-_]?(bought|viewed|like|purchased)|you[-_]?may|suggest|recently[-_]?viewed|best-?sellers?|top[-_]?sellers?/i;
/** Wording that marks a price as before tax (B2B net prices shown beside the consumer price), in about 15 languages. */
const EX_TAX =
  /\b(excl|excluding|exkl|exclusive of|zzgl|ohne mwst|without (vat|tax)|ex\.? ?(vat|tax|btw|gst|mwst)|before tax|pre-?tax|hors tax|hors-taxe|sin iva|senza iva|sans tva|brez ddv|bez dph|bez vat|bez dan|netto|zonder btw|excl\. btw|ilman alv|utan moms|uden moms|uten mva|без ндс)\b|\bHT\b|\bh\.t\./i;
const STOCK_ATTR = /avail|stock|inventory|lager|dispon|verfueg|verfüg|nalich|наличи|delivery[-_]?message/i;
const IMAGE_CAPTION = /\b(image|images|bild|immagine|imagen|photo|foto|picture)\b/i;
const BUY =
  /add[-_ ]?to[-_ ]?(cart|basket|bag|trolley)|buy[-_ ]?now|in den warenkorb|warenkorb|ajouter au panier|añadir al carrito|aggiungi al carrello|in winkelwagen|do koszyka|в корзину|comprar|kaufen/i;

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

/** Whether an element sits in a widget of other products (id/class of an ancestor, see {@link WIDGET}). */
function inWidget($: CheerioAPI, el: Parameters<CheerioAPI>[0]): boolean {
  return $(el as never)
    .parents()
    .toArray()
    .some((a) => WIDGET.test(`${$(a).attr('id') ?? ''} ${$(a).attr('class') ?? ''}`));
}

/** Text that calls a price a former or reference price ("Was £14.99", "statt 20 €", "RRP", "Prix conseillé"). */
const WAS_TEXT =
  /^(?:(?:was|previously|before|list( price)?|rrp|msrp|uvp|statt|früher|bisher|avant|prix conseillé|antes|prima|era|voor|przed)\b|было|原價|原价|定價|定价)/i;

/** Class words of a product tile in a listing or carousel (`product-thumb`, `product-card`, `grid-item`). */
const TILE = /thumb|tile|card|grid[-_]?item|product[-_]?item|product[-_]?layout|product[-_]?box|item[-_]?box/i;

/**
 * Whether a price sits in another product's tile: an ancestor (four levels at most) named like a
 * tile that links to another page. The page's own price block links nowhere but to itself.
 */
function inTile($: CheerioAPI, el: Parameters<CheerioAPI>[0], pageUrl: string): boolean {
  let self = '';
  try {
    self = new URL(pageUrl).pathname;
  } catch {
    // no own path to compare
  }
  return $(el as never)
    .parents()
    .toArray()
    .slice(0, 4)
    .some((a) => {
      if (!TILE.test($(a).attr('class') ?? '')) return false;
      return $(a)
        .find('a[href]')
        .toArray()
        .some((l) => {
          const href = ($(l).attr('href') ?? '').trim();
          if (!href || /^(#|javascript:|mailto:|tel:)/i.test(href)) return false;
          try {
            const path = new URL(href, pageUrl).pathname;
            return path !== self && path.length > 1;
          } catch {
            return false;
          }
        });
    });
}

/** Short text around a price element (itself, else its parent when short): where "excl. VAT" labels sit. */
function labelText($: CheerioAPI, el: Parameters<CheerioAPI>[0]): string {
  const parent = collapse(
    $(el as never)
      .parent()
      .text(),
  );
  return parent.length <= 120 ? parent : collapse($(el as never).text());
}

/** A leaf element whose id/class/itemprop names a price and whose text holds a digit. */
function isPriceLeaf($: CheerioAPI, el: Parameters<CheerioAPI>[0]): boolean {
  const tag = (el as { tagName?: string }).tagName ?? '';
  if (!PRICE_ATTR.test(attrs($, el)) || /^(script|style|meta|link|input|option|select)$/i.test(tag)) return false;
  const text = collapse($(el as never).text());
  return (
    !!text &&
    text.length <= 60 &&
    /\d/.test(text) &&
    $(el as never)
      .find('[id],[class]')
      .filter((_, c) => PRICE_ATTR.test(attrs($, c)) && /\d/.test($(c).text())).length === 0
  );
}

/**
 * Whether a price marked "old"/"regular" by its class has a current price beside it (another
 * price leaf within three ancestors that is neither marked old nor before tax). Themes name the
 * only price of a page `price-old` or `regular-price` when no discount runs; then it is the price.
 */
function hasCurrentPriceBeside($: CheerioAPI, el: Parameters<CheerioAPI>[0]): boolean {
  for (const anc of $(el as never)
    .parents()
    .toArray()
    .slice(0, 3)) {
    const other = $(anc)
      .find('[id],[class],[itemprop]')
      .toArray()
      .some((c) => c !== el && isPriceLeaf($, c) && !PRICE_BAD.test(attrs($, c)) && $(c).closest('del,s,strike').length === 0 && !EX_TAX.test(labelText($, c)));
    if (other) return true;
  }
  return false;
}

/** HTML's struck-through and removed text (`<del>`, `<s>`, `<strike>`): a price inside states what no longer applies. */
const STRUCK = 'del,s,strike';

/**
 * A price leaf's text split by HTML semantics: the text outside struck-through descendants (the
 * current price) and the first struck-through descendant's text holding a digit (the former
 * price), e.g. `<span class="price"><s>89 €</s> 59 €</span>` → `59 €` and `89 €`. `struck` is
 * undefined when the leaf has no struck amount; `current` is empty when every amount is struck.
 */
function splitStruck($: CheerioAPI, el: Parameters<CheerioAPI>[0]): { current: string; struck?: string } {
  const struck = $(el as never)
    .find(STRUCK)
    .toArray()
    .map((s) => collapse($(s).text()))
    .find((t) => /\d/.test(t));
  if (struck === undefined) return { current: collapse($(el as never).text()) };
  const clone = $(el as never).clone();
  clone.find(STRUCK).remove();
  return { current: collapse(clone.text()), struck };
}

/** A word that introduces the current price after a former one in the same element ("Was 89,00 € Now 59,00 €"). */
const NOW_TEXT = /\s(?:now|only|jetzt|nur|maintenant|ahora|ora|agora|nu|teraz|сейчас)(?=[\s:])/i;

/**
 * A former-price text that goes on to name the current price ("Was 89,00 € Now 59,00 €" →
 * former `Was 89,00 €`, current `Now 59,00 €`), or null when the text does not open with a
 * former-price word ({@link WAS_TEXT}) or names no current price after an amount.
 */
export function splitWasNow(text: string): { former: string; current: string } | null {
  if (!WAS_TEXT.test(text)) return null;
  const m = NOW_TEXT.exec(text);
  if (!m || !/\d/.test(text.slice(0, m.index)) || !/\d/.test(text.slice(m.index))) return null;
  return { former: text.slice(0, m.index).trim(), current: text.slice(m.index).trim() };
}

/**
 * The page's price elements (docs/enrich-options.md, "Sale and list prices"): every price leaf
 * ({@link isPriceLeaf}) with its signals; a leaf holding a struck amount beside an unstruck one,
 * or a "was … now …" text, is read as two (the current and the former price); a struck-through
 * amount that sits in a price block beside its leaf, in no leaf of its own, is read as a former price.
 */
function priceTexts($: CheerioAPI, pageUrl: string): PriceText[] {
  const out: PriceText[] = [];
  type El = Parameters<CheerioAPI>[0];
  // Where an element sits: several amounts in one element (old and new price, price and bonus; a single-amount element inside is clearer), widgets, tiles.
  const placed = (el: El, text: string, signals: Array<[RuleId, number]>) => {
    if ((text.match(/\d[\d\s.,']*/g) ?? []).length >= 2) signals.push(['price.multi-amount', -1]);
    if (inWidget($, el)) signals.push(['price.widget', -4]);
    else if ($(el as never).closest('footer,nav').length > 0 || inTile($, el, pageUrl)) signals.push(['price.tile', -2]);
    return signals;
  };
  $('[id],[class],[itemprop]').each((i, el) => {
    const a = attrs($, el);
    if (PRICE_NOT_PRODUCT.test(a) || !isPriceLeaf($, el)) return;
    const { current, struck } = splitStruck($, el);
    const inStruck = $(el).closest(STRUCK).length > 0;
    const at = locator(el.tagName, $(el).attr('id'), $(el).attr('class'));
    const read = (text: string, struckThrough: boolean): Array<[RuleId, number]> => {
      const signals: Array<[RuleId, number]> = [];
      if (/price/i.test($(el).attr('id') ?? '')) signals.push(['price.id-names-price', 2]);
      if (PRICE_GOOD.test(a)) signals.push(['price.current-class', 1]);
      if (PRICE_BAD.test(a)) signals.push(['price.former-class', WAS_TEXT.test(text) || hasCurrentPriceBeside($, el) ? -3 : -1]);
      else if (WAS_TEXT.test(text)) signals.push(['price.former-text', -3]);
      if (struckThrough) signals.push(['price.struck', -3]);
      if (PRICE_FROM.test(text)) signals.push(['price.from', -3]);
      if (EX_TAX.test(labelText($, el))) signals.push(['price.ex-tax', -3]);
      return placed(el, text, signals);
    };
    const push = (text: string, where: string, struckThrough: boolean) => {
      const signals = read(text, struckThrough);
      const score = signals.reduce((s, [, d]) => s + d, 0) - Math.min(2, i / 5000);
      out.push({ text, score, locator: where, signals });
    };
    const wasNow = struck === undefined ? splitWasNow(current) : null;
    // A leaf that holds a struck-through amount beside an unstruck one states two prices: the unstruck one is current.
    if (struck !== undefined && /\d/.test(current)) {
      push(current, at, inStruck);
      push(struck, `${at} > del`, true);
    } else if (wasNow) {
      push(wasNow.current, at, inStruck);
      push(wasNow.former, `${at} > former`, inStruck);
    } else push(struck ?? current, at, inStruck || struck !== undefined);
  });
  // `<div class="price"><del>89 €</del> <span class="price-now">59 €</span></div>`: the struck amount is in no leaf.
  $(STRUCK).each((_, s) => {
    const text = collapse($(s).text());
    if (
      !text ||
      text.length > 60 ||
      !/\d/.test(text) ||
      $(s)
        .find('[id],[class],[itemprop]')
        .toArray()
        .some((c) => PRICE_ATTR.test(attrs($, c)))
    )
      return;
    const up = $(s).parents().toArray();
    const block = up.slice(0, 3).find((x) => PRICE_ATTR.test(attrs($, x)));
    if (!block || up.some((x) => isPriceLeaf($, x))) return;
    const signals = placed(s, text, [['price.struck', -3]]);
    const at = `${locator((block as { tagName: string }).tagName, $(block).attr('id'), $(block).attr('class'))} > ${(s as { tagName: string }).tagName}`;
    out.push({ text, score: signals.reduce((sum, [, d]) => sum + d, 0), locator: at, signals });
  });
  return out.slice(0, 40);
}

function availabilityTexts($: CheerioAPI): string[] {
  const out: string[] = [];
  $('[id],[class]').each((_, el) => {
    if (out.length >= 20 || /^(script|style|meta|link)$/i.test(el.tagName)) return;
    if (!STOCK_ATTR.test(attrs($, el))) return;
    // Inside an add-to-cart control, "unavailable" is one of the control's alternate labels, switched by script.
    if (
      $(el)
        .parents('a,button')
        .toArray()
        .some((b) => BUY.test(`${attrs($, b)} ${$(b).attr('name') ?? ''}`))
    )
      return;
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
 * pairs, price and stock snippets, breadcrumbs, images and visible text. Pure; never throws on
 * bad HTML (cheerio/htmlparser2 are error-tolerant). Decoding honours a BOM or `<meta charset>`,
 * else UTF-8.
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
    canonical: canonical ? (absolute(canonical, url) ?? undefined) : undefined,
    meta_description: $('meta[name="description" i]').attr('content')?.trim() || undefined,
    opengraph,
    products: products.map((p) => ({ ...p, images: p.images.map((i) => absolute(i, base)).filter((i): i is string => !!i) })),
    key_values: [],
    price_texts: priceTexts($, url),
    availability_texts: availabilityTexts($),
    has_buy_button: hasBuyButton($),
    images: [...images].map((i) => absolute(i, base)).filter((i): i is string => !!i),
    text: '',
  };
  if (microdata.length > 0) doc.microdata_texts = textValuedProperties($);
  $('script,style,noscript,template,svg').remove();
  doc.key_values = parseKeyValues($);
  const productNames = [
    ...doc.products.map((p) => p.name),
    ...opengraph.filter(([k]) => /^og:title$/i.test(k)).map(([, v]) => v),
    collapse($('h1').first().text()),
  ];
  const breadcrumbs = parseBreadcrumbs($, jsonld, microdata, { url: base, productNames: productNames.filter((n): n is string => !!n) });
  if (breadcrumbs) doc.breadcrumbs = breadcrumbs;
  const fullText = collapse($('body').text() || $.root().text());
  doc.text = fullText.slice(0, 100_000);
  const squashed = fullText.replace(/\s+/g, '');
  for (const p of doc.products) if (p.description) p.description_shown = squashed.includes(p.description.replace(/\s+/g, ''));
  const ids = doc.products.flatMap((p) => [p.sku, p.gtin, p.mpn, p.product_id]).filter((v): v is string => !!v && v.length >= 3);
  doc.shown_ids = [...new Set(ids)].filter((v) => fullText.includes(v));
  doc.price_labels = labelledPriceTexts(fullText);
  doc.labelled_codes = { sku: labelledCodes(fullText, 'sku'), mpn: labelledCodes(fullText, 'mpn'), gtin: labelledCodes(fullText, 'gtin') };
  return doc;
}

/** Hex SHA-1 of a page's bytes: with the URL, the key of a {@link PageMemo}. */
export function pageDigest(body: Buffer): string {
  return crypto.createHash('sha1').update(body).digest('hex');
}

/**
 * {@link parsePage} memoised by URL and {@link pageDigest} of the bytes, so a page read by
 * several items is parsed once. Each engine owns one (src/enrichment/engine.ts createEngine);
 * it keeps every page it parsed for the engine's lifetime.
 */
export class PageMemo {
  private readonly docs = new Map<string, PageDoc>();

  /** The parsed facts of `body` fetched from `url`, parsed on the first call for these bytes. */
  parse(url: string, body: Buffer): PageDoc {
    const key = `${url}\n${pageDigest(body)}`;
    let doc = this.docs.get(key);
    if (!doc) {
      doc = parsePage(url, body);
      this.docs.set(key, doc);
    }
    return doc;
  }
}

/** {@link PageMemo.parse} when a memo is given, else a plain {@link parsePage}. */
export function parsePageWith(memo: PageMemo | undefined, url: string, body: Buffer): PageDoc {
  return memo ? memo.parse(url, body) : parsePage(url, body);
}
