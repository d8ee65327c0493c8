import { normalizeAvailability } from '../normalize/availability';
import { looksLikeCode, validGtin } from '../normalize/identifiers';
import { urlIdTokens } from '../parse/labels';
import { breadcrumbPath } from '../parse/breadcrumbs';
import type { PageDoc } from '../parse/page';
import type { StructuredProduct } from '../parse/products';
import { ogValues, productLabel } from './markup';
import { currencyCandidates, listPriceCandidates, priceCandidates } from './prices';
import type { FieldRole } from './roles';
import { ruleOn, type ExtractionTuning } from './rules';
import type { Candidate } from './candidate';
import { echo } from './echo';

export type { Candidate, Method } from './candidate';

export { shownAt, shownSale } from './prices';

/** Key vocabulary of spec tables per role, with the weight of a hit. Site-independent (schema.org/GS1 terms in ~10 languages). */
const KEYS: Partial<Record<FieldRole, Array<[RegExp, number]>>> = {
  brand: [
    [/^(brand|brand name|marke|marca|marque|merk|marka|бренд|торговая марка|märke|merkki|značka|márka|品牌|ブランド)$/, 0.75],
    [/^(manufacturer|hersteller|fabricant|fabricante|produttore|producent|производитель|výrobce|valmistaja|tillverkare)$/, 0.5],
  ],
  sku: [
    [/^(sku|asin)$/, 0.8],
    [
      /^(sku|item (number|no|#|code|id)|article (number|no)|artikel ?(nummer|nr)|art ?nr|product (code|number|id|no)|produktnummer|référence|reference|ref|nr ref|numer referencyjny|código|código do produto|codice( articolo| prodotto)?|numer katalogowy|kod produktu|kód produktu|šifra|tuotenumero|varenummer|id produto|артикул|код|код товара|code produit|bestellnummer|best nr|katalognummer|web code|ad id|post id|item|קוד מוצר|商品編號|商品番号)$/,
      0.7,
    ],
  ],
  gtin: [
    [
      /^(ean|ean ?13|ean code|ean nummer|kod ean|gtin|gtin ?13|upc|upc code|barcode|isbn|isbn ?13|isbn ?10|ean upc|código de barras|штрихкод|штрих код|ean kod|ean kód)$/,
      0.8,
    ],
  ],
  mpn: [
    [
      /^(mpn|manufacturer part number( mpn)?|mfr part number|mfg part number|model number|item model number|model name number|model name ?\/ ?number|modellnummer|numéro du modèle de l'article|numéro de modèle|numero modello( articolo)?|número de modelo|herstellernummer|hersteller artikelnummer|hersteller nr|réf fabricant|référence fabricant|referencia del fabricante|codice produttore|numer modelu)$/,
      0.78,
    ],
    // Localised manufacturer part-number labels, written without diacritics (keys are matched with and without them, see keyMatches).
    [
      /^(manufacturer (part )?(number|no|code|sku|id)|mfr( part)?( number| no)?|mfg part (number|no)|hersteller( |-)?(artikel|teile)?nummer|herstellerartikelnummer|herstellerteilenummer|hersteller art nr|kod vyrobcu|kod vyrobce|katalogove cislo vyrobcu|cislo vyrobcu|codice (del )?produttore|cod produttore|codice costruttore|reference (du )?fabricant|reference constructeur|ref constructeur|ref fabricant|numero de reference fabricant|referencia (del )?fabricante|ref fabricante|numero de parte (del fabricante)?|numero de pieza del fabricante|numero da peca|kod producenta|numer czesci producenta|tillverkarens artikelnummer|tillverkarnummer|valmistajan tuotenumero|fabrikantnummer|artikelnummer fabrikant|fabrikant artikelnummer|номер производителя|артикул производителя|partnumber|メーカー型番|製造元型番|制造商型号|製造商型號)$/,
      0.78,
    ],
    [
      /^(part number|part no|p ?n|numero de piece|numero de pieza|teilenummer|cislo dilu|cislo dielu|numer czesci|onderdeelnummer|номер детали|парт номер|型番|型号)$/,
      0.72,
    ],
    [/^(model|modell|modelo|modèle|modello|model no|modelnummer|typ)$/, 0.5],
  ],
};

/** Lower-cased key without punctuation and marks (`Art.-Nr.:` → `art nr`). */
export function normKey(key: string): string {
  return key
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s:.\-_/#()\u200e\u200f]+/g, ' ')
    .trim();
}

/** A {@link normKey} without diacritics (`kód výrobcu` → `kod vyrobcu`; Unicode canonical decomposition, marks removed). */
function plainKey(key: string): string {
  return normKey(key)
    .normalize('NFD')
    .replace(/\p{M}+/gu, '');
}

/** Whether a spec key matches a vocabulary pattern, as written or without its diacritics. */
function keyMatches(re: RegExp, key: string): boolean {
  return re.test(normKey(key)) || re.test(plainKey(key));
}

function keyValueCandidates(doc: PageDoc, role: FieldRole, accept: (v: string) => string | null): Candidate[] {
  const out: Candidate[] = [];
  for (const [re, weight] of KEYS[role] ?? []) {
    for (const kv of doc.key_values) {
      if (!keyMatches(re, kv.key)) continue;
      const v = accept(kv.value);
      if (v === null) continue;
      const where = kv.origin === 'table' ? 'spec table row' : kv.origin === 'dl' ? 'definition list entry' : 'labelled line';
      out.push({
        value: v,
        method: 'table',
        weight: kv.origin === 'label' ? weight - 0.05 : weight,
        url: doc.url,
        explanation: `${where} "${kv.key}" on ${doc.url}`,
        ...echo(doc, kv.value),
      });
      break;
    }
  }
  return out;
}

function cleanText(v: string): string | null {
  const t = v.replace(/\s+/g, ' ').trim();
  return t && t.length <= 200 ? t : null;
}

function availabilityCandidates(doc: PageDoc, p?: StructuredProduct, tuning?: ExtractionTuning): Candidate[] {
  const out: Candidate[] = [];
  // Several offers (sizes, colours, sellers): the product is in stock when any offer is.
  // Variants written as sibling Products of the same name (one per size or colour) count as offers of one product.
  const variants = p?.name && ruleOn(tuning, 'availability.variants') ? doc.products.filter((q) => q !== p && q.origin === p.origin && q.name === p.name) : [];
  const stated = [p, ...variants].flatMap((q) => q?.offers ?? []).filter((o) => normalizeAvailability(o.availability));
  const offer = stated.find((o) => normalizeAvailability(o.availability) === 'InStock') ?? stated[0];
  const message = doc.availability_texts.map((t) => ({ t, a: normalizeAvailability(t) })).find((x) => x.a !== null);
  const structured = offer?.availability ? normalizeAvailability(offer.availability) : null;
  // What the page shows outranks stale markup: a dedicated sold-out message (short, no prices in it)
  // with no buy control beats a structured InStock; an enabled buy control with no sold-out
  // message anywhere beats a structured OutOfStock (often the default variant's state).
  const plainMessage = doc.availability_texts.some((t) => t.length <= 100 && !/\d/.test(t) && normalizeAvailability(t) === 'OutOfStock');
  const shownOut = plainMessage && !doc.has_buy_button;
  const shownIn = doc.has_buy_button && !doc.availability_texts.some((t) => normalizeAvailability(t) === 'OutOfStock');
  const overruled = ruleOn(tuning, 'availability.shown-overrules') && ((structured === 'InStock' && shownOut) || (structured === 'OutOfStock' && shownIn));
  if (p && offer?.availability && structured)
    out.push({
      value: structured,
      method: p.origin,
      weight: overruled ? 0.25 : 1,
      url: doc.url,
      explanation: `${productLabel(p, offer.path.replace(/\.[^.]+$/, '.availability'))} on ${doc.url}`,
    });
  for (const v of ogValues(doc, /^(product|og):availability$/i).slice(0, 1)) {
    const a = normalizeAvailability(v);
    if (a) out.push({ value: a, method: 'opengraph', weight: 0.9, url: doc.url, explanation: `OpenGraph product:availability on ${doc.url}` });
  }
  if (message?.a)
    out.push({
      value: message.a,
      method: 'text',
      weight: shownOut ? 0.6 : 0.55,
      url: doc.url,
      explanation: `stock message "${message.t.slice(0, 60)}" on ${doc.url}`,
    });
  if (doc.has_buy_button && ruleOn(tuning, 'availability.buy-button'))
    out.push({ value: 'InStock', method: 'text', weight: 0.5, url: doc.url, explanation: `an enabled add-to-cart control on ${doc.url}` });
  return out;
}

function normalizeCode(code: string): string {
  return code.toLowerCase().replace(/[\s\-_.]/g, '');
}

/** Whether a code names the page in its URL (the shop's own id), whole or by its leading segment (`84518927-040-35` for `?v1=84518927`). */
function inUrl(code: string, url: string): boolean {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // keep the raw URL
  }
  const head = code.split(/[-_/ ]/)[0];
  return (
    decoded.includes(code) ||
    (/^\d{5,}$/.test(head) &&
      urlIdTokens(url)
        .concat(decoded.match(/\d{5,}/g) ?? [])
        .includes(head))
  );
}

/** Whether a code is written in the page's visible text or one of its label/value pairs. */
function visible(doc: PageDoc, code: string): boolean {
  return (
    doc.shown_ids?.includes(code) ||
    doc.text.includes(code) ||
    doc.key_values.some((kv) => kv.value.includes(code)) ||
    Object.values(doc.labelled_codes ?? {}).some((l) => l.some((c) => c.value === code))
  );
}

/**
 * Whether the page confirms a code taken from elsewhere (its URL): the page writes it as a
 * whole token in its visible text or a label/value pair, or its markup gives it as the
 * product's SKU, MPN or productID. A digit run that is only part of a longer number (a
 * price, a phone number) does not confirm it.
 */
export function confirmedCode(doc: PageDoc, code: string, p?: StructuredProduct): boolean {
  const norm = normalizeCode(code);
  if (p && [p.sku, p.mpn, p.product_id?.replace(/^\w+:/, '')].some((v) => v !== undefined && normalizeCode(v) === norm)) return true;
  const whole = new RegExp(`(?<![\\p{L}\\p{N}])${code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'u');
  return (
    (doc.shown_ids ?? []).some((v) => normalizeCode(v) === norm) ||
    whole.test(doc.text) ||
    doc.key_values.some((kv) => whole.test(kv.value)) ||
    Object.values(doc.labelled_codes ?? {}).some((l) => l.some((c) => normalizeCode(c.value) === norm))
  );
}

/**
 * Identifier candidates of one role from the page's structured product `p` (JSON-LD, microdata,
 * RDFa): its own property (weighted down when only the markup carries it, left out when it is the
 * shop's page id, a copied SKU or an image asset id), and for SKUs its `productID`. Every rule is
 * named in ./rules.ts and described in docs/evaluation.md.
 */
function structuredIdCandidates(
  doc: PageDoc,
  role: 'sku' | 'gtin' | 'mpn',
  p: StructuredProduct,
  accept: (v: string) => string | null,
  tuning?: ExtractionTuning,
): Candidate[] {
  const out: Candidate[] = [];
  const raw = role === 'gtin' ? p.gtin : role === 'sku' ? p.sku : p.mpn;
  const v = raw ? accept(raw) : null;
  // A structured MPN that is the shop's own page id is no manufacturer part number.
  const siteId = role === 'mpn' && ruleOn(tuning, 'mpn.not-site-id') && v !== null && inUrl(v, doc.url);
  // Markup-only SKUs (variant ids, internal keys) lose to the identifier the page shows under a label.
  const shown = v !== null && (visible(doc, v) || (raw !== undefined && visible(doc, raw)));
  // A code the page labels and shows as its own ("Product code 39139301") outranks a markup-only SKU.
  const labelledShown =
    role === 'sku' &&
    !shown &&
    ruleOn(tuning, 'sku.shown-label-wins') &&
    ((doc.labelled_codes?.sku ?? []).some((c) => c.value !== v) ||
      keyValueCandidates(doc, 'sku', (x) => (looksLikeCode(x) ? x.trim() : null)).some((c) => c.value !== v));
  const weight = role === 'sku' && !shown ? (labelledShown ? 0.48 : 0.65) : 1;
  // Shops copy their own SKU into `mpn`: an MPN equal to the SKU and shown nowhere is no manufacturer part number.
  const copiedSku =
    role === 'mpn' && ruleOn(tuning, 'mpn.not-copied-sku') && !shown && v !== null && p.sku !== undefined && normalizeCode(p.sku) === normalizeCode(v);
  // An identifier the page never shows that names the product's image file is an asset id, not a SKU or part number.
  const assetId =
    v !== null &&
    !shown &&
    role !== 'gtin' &&
    ruleOn(tuning, 'id.not-asset-id') &&
    [...p.images, ...doc.images].some((img) => new RegExp(`[/_=]${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`).test(img));
  if (v && !siteId && !assetId && !copiedSku)
    out.push({
      value: v,
      method: p.origin,
      weight,
      url: doc.url,
      explanation: `${productLabel(p, role === 'gtin' ? (p.gtin_property ?? 'gtin') : role)} on ${doc.url}`,
      ...(shown ? {} : { markup_only: true }),
    });
  if (role === 'sku' && ruleOn(tuning, 'sku.product-id') && p.product_id && accept(p.product_id.replace(/^\w+:/, ''))) {
    out.push({
      value: p.product_id.replace(/^\w+:/, ''),
      method: p.origin,
      weight: 0.6,
      url: doc.url,
      explanation: `${productLabel(p, 'productID')} on ${doc.url}`,
    });
  }
  return out;
}

/**
 * Identifier candidates of one role (`sku`, `gtin`, `mpn`) on a page, strongest sources first:
 * the structured product ({@link structuredIdCandidates}), OpenGraph, labelled key-value pairs and
 * texts, a shown code equal to the URL's id, and (SKUs) the URL's own id.
 */
function idCandidates(doc: PageDoc, role: 'sku' | 'gtin' | 'mpn', p?: StructuredProduct, tuning?: ExtractionTuning): Candidate[] {
  const out: Candidate[] = [];
  const accept = role === 'gtin' ? (v: string) => validGtin(v.replace(/[.,;:]+$/, '')) : (v: string) => (looksLikeCode(v) ? v.trim() : null);
  if (p) out.push(...structuredIdCandidates(doc, role, p, accept, tuning));
  const og = role === 'sku' ? /^product:retailer_item_id$/i : role === 'gtin' ? /^(product|og):(gtin|ean|upc|isbn)/i : /^(product|og):mpn$/i;
  for (const v of ogValues(doc, og).slice(0, 1)) {
    const a = accept(v);
    if (a)
      out.push({
        value: a,
        method: 'opengraph',
        weight: 0.85,
        url: doc.url,
        explanation: `OpenGraph ${role === 'sku' ? 'product:retailer_item_id' : role} on ${doc.url}`,
      });
  }
  out.push(...keyValueCandidates(doc, role, accept));
  const labelled = (doc.labelled_codes?.[role] ?? []).find((c) => accept(c.value) !== null);
  if (labelled)
    out.push({
      value: accept(labelled.value) as string,
      method: 'text',
      weight: role === 'gtin' ? 0.7 : 0.5,
      url: doc.url,
      explanation: `text "${labelled.label} ${labelled.value}" on ${doc.url}`,
      ...echo(doc, labelled.value),
    });
  const styled = role === 'sku' && ruleOn(tuning, 'sku.url-code-shown') ? shownUrlCode(doc) : null;
  if (styled)
    out.push({
      value: styled,
      method: 'text',
      weight: 0.7,
      url: doc.url,
      explanation: `the code "${styled}" shown on the page, which is the page's URL id written with separators`,
    });
  if (role === 'sku' && ruleOn(tuning, 'sku.url-token')) out.push(...urlTokenCandidates(doc, p, out.length > 0));
  return out;
}

/**
 * SKU readings from the id in the page URL (docs/evaluation.md, "SKUs from the page URL"): shops
 * name product pages by their article number. An id the page confirms ({@link confirmedCode})
 * reads at weight 0.45. When the page gives no other SKU reading (`hasOther` false), the URL's
 * last id reads at 0.3 even unconfirmed: a low-confidence value, not an abstention, since the
 * shop's id is most often only in its URL. Not when the URL's query names an offer or variant of
 * its own (`?variant=…`, `?offerid=…`): the path's id is then the catalogue product shared by
 * those offers, not the offer's SKU.
 */
function urlTokenCandidates(doc: PageDoc, p: StructuredProduct | undefined, hasOther: boolean): Candidate[] {
  const tokens = urlIdTokens(doc.url);
  const confirmed = tokens.find((t) => confirmedCode(doc, t, p));
  if (confirmed)
    return [
      { value: confirmed, method: 'text', weight: 0.45, url: doc.url, explanation: `the article number in the page URL ${doc.url}, which the page also shows` },
    ];
  if (hasOther || tokens.length === 0 || urlNamesOffer(doc.url)) return [];
  return [
    {
      value: tokens[0],
      method: 'text',
      weight: 0.3,
      url: doc.url,
      explanation: `the article number in the page URL ${doc.url} (the page shows no SKU of its own)`,
    },
  ];
}

/** Query parameters that name one offer or variant of a product page (Shopify's `variant`, marketplaces' `offerid`). */
const OFFER_PARAM = /^(offer|offer[-_]?id|variant|variant[-_]?id|sku|sku[-_]?id)$/i;

/** Whether a URL's query names an offer or variant of its own ({@link OFFER_PARAM}); false for URLs that do not parse. */
export function urlNamesOffer(url: string): boolean {
  try {
    return [...new URL(url).searchParams.keys()].some((k) => OFFER_PARAM.test(k));
  } catch {
    return false;
  }
}

/**
 * A code written on the page with separators (`1002/710`, `466/7999`, `12-345-67`) whose digits
 * are exactly an identifier of the page URL (`p11002710`, `/4667999`): the shop's displayed
 * article number, unlabelled. Digit runs of 6+ only, so prices and dates do not qualify.
 */
export function shownUrlCode(doc: PageDoc): string | null {
  const ids = new Set<string>();
  for (const t of urlIdTokens(doc.url)) ids.add(t.replace(/\D/g, ''));
  let path = doc.url;
  try {
    path = decodeURIComponent(new URL(doc.url).pathname);
  } catch {
    // keep the raw URL
  }
  for (const run of path.match(/\d{6,}/g) ?? []) ids.add(run);
  if (ids.size === 0) return null;
  for (const m of doc.text.slice(0, 50_000).matchAll(/(?<![\d/.-])\d{2,}(?:[/.-]\d{2,}){1,3}(?![\d/]|[.-]\d)/g)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length < 6 || /^(19|20)\d\d[/.-]|[/.-](19|20)\d\d$/.test(m[0]) || /^\d{1,3}(\.\d{3})+$/.test(m[0])) continue;
    // The URL id may carry a leading variant digit or zero padding (`p11002710` for `1002/710`).
    if ([...ids].some((id) => id === digits || (id.length <= digits.length + 2 && id.endsWith(digits)))) return m[0];
  }
  return null;
}

/** An unrendered template placeholder (`$metabrand`, `{{brand}}`, `<%= brand %>`), not a value. */
const TEMPLATE = /^\$[a-z_]\w*$|\{\{|\}\}|<%|\$\{/i;

function brandCandidates(doc: PageDoc, p?: StructuredProduct, tuning?: ExtractionTuning): Candidate[] {
  const out: Candidate[] = [];
  const v = p?.brand ? cleanText(p.brand) : null;
  if (p && v && !/^https?:/.test(v) && !(ruleOn(tuning, 'brand.template') && TEMPLATE.test(v)))
    out.push({ value: v, method: p.origin, weight: 1, url: doc.url, explanation: `${productLabel(p, 'brand')} on ${doc.url}` });
  for (const b of ogValues(doc, /^(product|og):brand$/i).slice(0, 1)) {
    const c = cleanText(b);
    if (c) out.push({ value: c, method: 'opengraph', weight: 0.9, url: doc.url, explanation: `OpenGraph product:brand on ${doc.url}` });
  }
  out.push(...keyValueCandidates(doc, 'brand', (x) => (x.length <= 60 ? cleanText(x) : null)));
  return out;
}

/** Text without whitespace, for comparing readings that differ only in how element boundaries became spaces. */
function squash(text: string): string {
  return text.replace(/\s+/g, '');
}

function textCandidates(doc: PageDoc, role: 'name' | 'description', p?: StructuredProduct): Candidate[] {
  const out: Candidate[] = [];
  const pv = role === 'name' ? p?.name : p?.description;
  if (p && pv) {
    const value = pv.replace(/\s+/g, ' ').trim();
    // A structured description the page never shows (SEO copy, HTML-escaped text) yields to one that is shown or in the page's meta tags.
    const hidden = role === 'description' && (p.description_shown ?? squash(doc.text).includes(squash(value))) === false;
    out.push({ value, method: p.origin, weight: hidden ? 0.5 : 1, url: doc.url, explanation: `${productLabel(p, role)} on ${doc.url}` });
  }
  for (const v of ogValues(doc, role === 'name' ? /^og:title$/i : /^og:description$/i).slice(0, 1)) {
    out.push({
      value: v.replace(/\s+/g, ' ').trim(),
      method: 'opengraph',
      weight: 0.85,
      url: doc.url,
      explanation: `OpenGraph og:${role === 'name' ? 'title' : 'description'} on ${doc.url}`,
    });
  }
  if (role === 'description' && doc.meta_description)
    out.push({
      value: doc.meta_description.replace(/\s+/g, ' ').trim(),
      method: 'text',
      weight: 0.6,
      url: doc.url,
      explanation: `meta description on ${doc.url}`,
    });
  if (role === 'name' && doc.title) out.push({ value: doc.title, method: 'text', weight: 0.5, url: doc.url, explanation: `HTML title on ${doc.url}` });
  return out.filter((c) => c.value.length > 0);
}

function imageCandidates(doc: PageDoc, p?: StructuredProduct): Candidate[] {
  const out: Candidate[] = [];
  if (p && p.images.length > 0)
    out.push({ value: p.images.slice(0, 10), method: p.origin, weight: 1, url: doc.url, explanation: `${productLabel(p, 'image')} on ${doc.url}` });
  const og = doc.images.filter((i) => !p?.images.includes(i));
  if (out.length === 0 && og.length > 0)
    out.push({ value: og.slice(0, 10), method: 'opengraph', weight: 0.8, url: doc.url, explanation: `OpenGraph og:image on ${doc.url}` });
  return out;
}

/**
 * Words of a field name used to find it among spec keys and product properties (`screen_size`
 * → `screen size`); a category field (`category`, `product_type`, `breadcrumbs`) also reads the
 * page's breadcrumb trail as "Furniture > Tables".
 */
function genericCandidates(doc: PageDoc, fieldName: string, synonyms: string[], p?: StructuredProduct): Candidate[] {
  const out: Candidate[] = [];
  const wanted = new Set([fieldName, ...synonyms].map(normKey));
  if (p) {
    for (const [k, v] of Object.entries(p.properties)) {
      if (wanted.has(normKey(k.replace(/([a-z])([A-Z])/g, '$1 $2')))) {
        const unit = p.units?.[k];
        out.push({
          value: v,
          method: p.origin,
          weight: 0.9,
          url: doc.url,
          explanation: `${productLabel(p, k)}${unit ? ` (unit ${unit})` : ''} on ${doc.url}`,
          ...(unit ? { unit } : {}),
        });
        break;
      }
    }
  }
  const kv = doc.key_values.find((x) => wanted.has(normKey(x.key)));
  if (kv)
    out.push({
      value: kv.value,
      method: 'table',
      weight: 0.7,
      url: doc.url,
      explanation: `${kv.origin === 'table' ? 'spec table row' : kv.origin === 'dl' ? 'definition list entry' : 'labelled line'} "${kv.key}" on ${doc.url}`,
    });
  const trail = breadcrumbPath(doc.breadcrumbs);
  if (trail && [...wanted].some((w) => CATEGORY_NAME.test(w))) {
    const origin = doc.breadcrumbs?.origin;
    // RDFa is structured too, but has no method of its own in review_info: reported as text.
    out.push({
      value: trail,
      method: origin === 'jsonld' || origin === 'microdata' ? origin : 'text',
      weight: origin === 'html' ? 0.6 : 0.8,
      url: doc.url,
      explanation: `${origin === 'jsonld' ? 'JSON-LD BreadcrumbList' : origin === 'microdata' ? 'microdata BreadcrumbList' : origin === 'rdfa' ? 'RDFa BreadcrumbList' : 'breadcrumb navigation'} on ${doc.url}`,
    });
  }
  return out;
}

/** Field names (after {@link normKey}) that ask for the page's category path. */
const CATEGORY_NAME = /^(category|categories|category path|product category|product type|breadcrumbs?|department)$/;

/**
 * Every candidate value a page offers for a field of the given role, strongest methods first:
 * structured data (JSON-LD, microdata), OpenGraph, spec tables / key-value lists, then text
 * (price elements, stock messages). `product` is the page's product matched to the item.
 * `synonyms` only matter for generic fields. `tuning`: rules left out (src/enrichment/extract/rules.ts; all on when absent).
 */
export function pageCandidates(
  doc: PageDoc,
  role: FieldRole,
  fieldName: string,
  synonyms: string[],
  product?: StructuredProduct,
  tuning?: ExtractionTuning,
): Candidate[] {
  switch (role) {
    case 'price':
      return priceCandidates(doc, product, tuning);
    case 'list_price':
      return listPriceCandidates(doc, product, tuning);
    case 'currency':
      return currencyCandidates(doc, product, tuning);
    case 'availability':
      return availabilityCandidates(doc, product, tuning);
    case 'sku':
    case 'gtin':
    case 'mpn':
      return idCandidates(doc, role, product, tuning);
    case 'brand':
      return brandCandidates(doc, product, tuning);
    case 'name':
    case 'description':
      return textCandidates(doc, role, product);
    case 'images':
      return imageCandidates(doc, product);
    default:
      return genericCandidates(doc, fieldName, synonyms, product);
  }
}
