/**
 * Readings of the price a buyer pays, of the list (reference) price and of the currency from one
 * product page (docs/enrich-options.md, "Sale and list prices"). The price paid is the offer's
 * own price; a price the markup types as a reference (schema.org `priceSpecification` with
 * `priceType` ListPrice / StrikethroughPrice / SRP / MSRP) or the page shows struck through
 * (HTML `<del>`, `<s>`, `<strike>`) or as a former price ("was", old-price classes) is the list
 * price, never the price.
 */
import { currencyCode, pageRegion, parsePrice, regionalCurrency } from '../normalize/price';
import type { PageDoc, PriceText } from '../parse/page';
import type { StructuredOffer, StructuredProduct } from '../parse/products';
import type { Candidate } from './candidate';
import { echo } from './echo';
import { ogValues, productLabel } from './markup';
import { ruleOn, type ExtractionTuning } from './rules';

/** A structured price (`"59.00"`, `59`, `"59,00 €"`) as a decimal string without trailing zeros (`59`), or null when it holds no amount. */
function jsonLdPrice(raw: string): string | null {
  const t = raw.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return t.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return parsePrice(t, {})?.amount ?? null;
}

/** Currency the page states in machine-readable markup (offer priceCurrency, OpenGraph), as ISO code. */
function pageCurrency(doc: PageDoc, product?: StructuredProduct): string | null {
  for (const o of product?.offers ?? []) if (o.currency && currencyCode(o.currency)) return currencyCode(o.currency);
  for (const v of ogValues(doc, /^(product|og):price:currency$/i)) if (currencyCode(v)) return currencyCode(v);
  return null;
}

/**
 * Where an amount ("17.1") is first written in visible text as a price would be ("17,10",
 * "17.10", "1.234,50", "1,234.50"; not inside a longer number), or -1.
 */
export function shownAt(amount: string, text: string): number {
  const [int, frac = ''] = amount.split('.');
  const cents = frac.padEnd(2, '0');
  const grouped = (sep: string) => int.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  const esc = (f: string) => f.replace(/[.\\]/g, '\\$&');
  const patterns: RegExp[] = [];
  for (const [g, d] of [
    ['', '.'],
    ['', ','],
    [',', '.'],
    ['.', ','],
    [' ', ','],
    ['\u00a0', ','],
  ]) {
    patterns.push(new RegExp(`(?<![\\d.,])${esc(`${grouped(g)}${d}${cents}`)}(?!\\d)`));
    // A whole amount without cents counts only right next to a currency sign.
    if (!frac) patterns.push(new RegExp(`[$€£¥₹₽]\\s?${esc(grouped(g))}(?![\\d]|[.,]\\d)|(?<![\\d.,])${esc(grouped(g))}\\s?[$€£¥₹₽]`));
  }
  let best = -1;
  for (const re of patterns) {
    const m = re.exec(text);
    if (m && (best < 0 || m.index < best)) best = m.index;
  }
  return best;
}

/** A price element's score without the signals of the rules a tuning leaves out. */
function priceScore(t: PriceText, tuning?: ExtractionTuning): number {
  return t.score - (t.signals ?? []).reduce((s, [rule, d]) => s + (ruleOn(tuning, rule) ? 0 : d), 0);
}

/** The page's price elements, best first, with their scores under `tuning`. */
function rankedPriceTexts(doc: PageDoc, tuning?: ExtractionTuning): Array<{ t: PriceText; i: number }> {
  return doc.price_texts.map((t, i) => ({ t: { ...t, score: priceScore(t, tuning) }, i })).sort((a, b) => b.t.score - a.t.score || a.i - b.i);
}

/** Whether a price element is marked as a former or reference price: struck through, "was …", or an old-price class with a current price beside it. */
function isFormer(t: PriceText): boolean {
  return (t.signals ?? []).some(([rule, d]) => (rule === 'price.struck' || rule === 'price.former-text' || rule === 'price.former-class') && d <= -3);
}

/**
 * What a sale page shows: its current price (the best-ranked price element that is not a
 * former price, score ≥ 0) and its former price (the best-ranked element marked former), each
 * with its amount (prices in widgets and other products' tiles left out); null when the page
 * shows no current price or no higher former one.
 */
export function shownSale(
  doc: PageDoc,
  hint: string | null,
  tuning?: ExtractionTuning,
): { current: { t: PriceText; amount: string }; former: { t: PriceText; amount: string } } | null {
  const read = (t: PriceText) => {
    const amount = parsePrice(t.text, { currency_hint: hint })?.amount;
    return amount && Number(amount) > 0 ? { t, amount } : null;
  };
  const ranked = rankedPriceTexts(doc, tuning);
  const current = ranked
    .filter((x) => x.t.score >= 0 && !isFormer(x.t))
    .map((x) => read(x.t))
    .find((x) => x !== null);
  const former = ranked
    .filter((x) => isFormer(x.t) && !(x.t.signals ?? []).some(([rule]) => rule === 'price.widget' || rule === 'price.tile'))
    .map((x) => read(x.t))
    .find((x) => x !== null && x.amount !== current?.amount);
  return current && former && Number(former.amount) > Number(current.amount) ? { current, former } : null;
}

/**
 * Whether the page's structured price is its list price: the markup's amount is shown only as
 * the former price of a sale ({@link shownSale}) whose current price is lower (schema.org
 * `price` is the offer's own price, but shops often fill it with the reference price).
 */
function structuredIsListPrice(amount: string, shown: Set<string>, sale: ReturnType<typeof shownSale>): boolean {
  return sale !== null && sale.former.amount === amount && !shown.has(amount) && Number(sale.current.amount) < Number(amount);
}

/**
 * The sale's current price as a text candidate (weight 0.8), offered when the markup's price is
 * the list price the page shows struck through (docs/enrich-options.md, "Sale and list prices").
 */
function salePriceCandidate(sale: NonNullable<ReturnType<typeof shownSale>>, url: string): Candidate {
  return {
    value: sale.current.amount,
    method: 'text',
    weight: 0.8,
    url,
    explanation: `current price element ${sale.current.t.locator} ("${sale.current.t.text}") beside the former price ${sale.former.t.locator} on ${url}`,
  };
}

/**
 * The price the page shows as its price now: the best-ranked price element that carries no
 * negative signal (not struck through, not a former, "from", before-tax, widget or tile price;
 * score > −1) with an amount > 0, or null. This is the visible price the structured price is
 * checked against (docs/enrich-options.md, "Sale and list prices").
 */
export function visibleMainPrice(doc: PageDoc, hint: string | null, tuning?: ExtractionTuning): { t: PriceText; amount: string } | null {
  for (const { t } of rankedPriceTexts(doc, tuning)) {
    if (t.score <= -1 || isFormer(t)) continue;
    const amount = parsePrice(t.text, { currency_hint: hint })?.amount;
    if (amount && Number(amount) > 0) return { t, amount };
  }
  return null;
}

/** The offer part of a structured offer's path (`offers[1].priceSpecification.price` → `offers[1]`). */
function offerBase(path: string): string {
  return path.replace(/\.(price|lowPrice|availability|priceSpecification(\.price)?)$/, '');
}

/** A structured offer with its price as a decimal string. */
type PricedOffer = { o: StructuredOffer; amount: string };

/**
 * The offers whose price is a price paid: an offer whose own price the markup types as a
 * reference (ListPrice / StrikethroughPrice specification of the same amount), or whose amount is
 * another offer's stated list price, is left out when an offer at another amount remains
 * (schema.org `Offer.price` is what the buyer pays; Google Merchant's `price` vs `sale_price`).
 */
function paidOffers(priced: PricedOffer[]): PricedOffer[] {
  const listAmounts = new Set(priced.map((x) => (x.o.list_price !== undefined ? jsonLdPrice(x.o.list_price) : null)).filter((a): a is string => a !== null));
  const paid = priced.filter((x) => !x.o.reference && !listAmounts.has(x.amount));
  return paid.length > 0 ? paid : priced;
}

/**
 * The offer to read among several at different prices (`price.shown-offer`): the one whose
 * price the page shows as its current price ({@link visibleMainPrice}), else the one the page's
 * text shows first, else the first.
 */
function chooseOffer(offers: PricedOffer[], main: { amount: string } | null, doc: PageDoc, tuning?: ExtractionTuning): PricedOffer | undefined {
  if (new Set(offers.map((x) => x.amount)).size <= 1 || !ruleOn(tuning, 'price.shown-offer')) return offers[0];
  const visible = main ? offers.find((x) => x.amount === main.amount) : undefined;
  if (visible) return visible;
  return [...offers].map((x) => ({ ...x, at: shownAt(x.amount, doc.text) })).sort((a, b) => (a.at < 0 ? Infinity : a.at) - (b.at < 0 ? Infinity : b.at))[0];
}

/**
 * Readings of the price a buyer pays on one page: the structured offer's price (a paid offer,
 * {@link paidOffers}; the one the page shows, {@link chooseOffer}), weakened when the page shows it
 * only as a sale's former price and marked doubtful when the page shows another amount as its
 * price; the current price of a sale; OpenGraph's price, checked against the visible price in the
 * same way; the best price element; a labelled price.
 */
export function priceCandidates(doc: PageDoc, p?: StructuredProduct, tuning?: ExtractionTuning): Candidate[] {
  const out: Candidate[] = [];
  const texts = rankedPriceTexts(doc, tuning);
  const hint = pageCurrency(doc, p);
  // Amounts of the page's plausible price elements: a structured price none of them shows is doubtful.
  const shown = new Set(
    texts
      .filter((x) => x.t.score >= -1)
      .map((x) => parsePrice(x.t.text, { currency_hint: hint })?.amount)
      .filter((a): a is string => !!a),
  );
  const priced = (p?.offers ?? [])
    .map((o) => ({ o, amount: o.price !== undefined ? jsonLdPrice(o.price) : null }))
    .filter((x): x is PricedOffer => x.amount !== null && Number(x.amount) > 0);
  const main = visibleMainPrice(doc, hint, tuning);
  // Several offers at different prices (sale vs list price, sellers): the one the page shows as its price.
  const chosen = chooseOffer(paidOffers(priced), main, doc, tuning);
  // A sale page whose markup carries the list price: the price the page offers now wins.
  const sale = ruleOn(tuning, 'price.sale-over-list') ? shownSale(doc, hint, tuning) : null;
  const listed = chosen !== undefined && structuredIsListPrice(chosen.amount, shown, sale);
  if (p && chosen) {
    const hidden = ruleOn(tuning, 'price.hidden-structured') && shown.size > 0 && !shown.has(chosen.amount);
    // The page shows another amount as its price: the markup may be stale or carry a reference price, so the value is not certain.
    const disputed = !listed && main !== null && main.amount !== chosen.amount;
    out.push({
      value: chosen.amount,
      method: p.origin,
      weight: listed ? 0.3 : (p.origin === 'jsonld' ? 1 : 0.95) - (hidden ? 0.15 : 0),
      url: doc.url,
      explanation: `${productLabel(p, chosen.o.path)} on ${doc.url}${listed ? ', which the page shows as the former price' : ''}`,
      ...(disputed ? { doubt: `the page shows ${main.amount} as its price (${main.t.locator} "${main.t.text}"), not the structured ${chosen.amount}` } : {}),
    });
  }
  if (listed && sale) out.push(salePriceCandidate(sale, doc.url));
  for (const v of ogValues(doc, /^(product|og):price(:amount)?$/i).slice(0, 1)) {
    const amount = jsonLdPrice(v);
    if (!amount || Number(amount) <= 0) continue;
    // OpenGraph is markup too, checked against the visible price as the structured offer is.
    const ogListed = structuredIsListPrice(amount, shown, sale);
    const ogDisputed = !ogListed && main !== null && main.amount !== amount;
    out.push({
      value: amount,
      method: 'opengraph',
      weight: ogListed ? 0.3 : 0.9,
      url: doc.url,
      explanation: `OpenGraph product:price:amount on ${doc.url}${ogListed ? ', which the page shows as the former price' : ''}`,
      ...(ogDisputed ? { doubt: `the page shows ${main.amount} as its price (${main.t.locator} "${main.t.text}"), not the OpenGraph ${amount}` } : {}),
    });
    if (ogListed && sale && !listed) out.push(salePriceCandidate(sale, doc.url));
  }
  for (const { t } of texts.filter((x) => x.t.score >= -2).slice(0, 3)) {
    const parsed = parsePrice(t.text, { currency_hint: hint });
    // Without a currency anywhere, only an element holding nothing but a number is read as a price.
    const bare = !parsed?.currency_text && !hint;
    if (!parsed?.amount || Number(parsed.amount) <= 0 || (bare && (!ruleOn(tuning, 'price.bare-number') || !/^\d[\d.,\s]*$/.test(t.text)))) continue;
    out.push({
      value: parsed.amount,
      method: 'text',
      weight: bare ? 0.4 : t.score >= 2 ? 0.6 : 0.5,
      url: doc.url,
      explanation: `price element ${t.locator} ("${t.text}") on ${doc.url}`,
      ...echo(doc, t.text),
    });
    break;
  }
  // No structured price and no price element: a price written after a price label in the text.
  for (const l of out.length === 0 && ruleOn(tuning, 'price.labelled-text') ? (doc.price_labels ?? []) : []) {
    const parsed = parsePrice(l.text, {});
    if (!parsed?.amount || !parsed.currency_text || Number(parsed.amount) <= 0 || (hint && parsed.currency && parsed.currency !== hint)) continue;
    out.push({ value: parsed.amount, method: 'text', weight: 0.4, url: doc.url, explanation: `labelled price "${l.label} ${l.text}" on ${doc.url}` });
    break;
  }
  return out;
}

/**
 * Readings of a list (reference) price: a `priceSpecification` the markup types as a list
 * price, an offer whose own price is typed as one beside an offer at another price ({@link paidOffers}),
 * the structured price when the page shows it as the former price of a sale
 * ({@link structuredIsListPrice}), and the former price element of a sale ({@link shownSale}).
 * None on a page without a sale: the reference price is then unknown, not the price.
 */
export function listPriceCandidates(doc: PageDoc, p?: StructuredProduct, tuning?: ExtractionTuning): Candidate[] {
  const out: Candidate[] = [];
  const hint = pageCurrency(doc, p);
  const offer = p?.offers.find((o) => o.list_price !== undefined && jsonLdPrice(o.list_price) !== null);
  if (p && offer)
    out.push({
      value: jsonLdPrice(offer.list_price!)!,
      method: p.origin,
      weight: 0.95,
      url: doc.url,
      explanation: `${productLabel(p, offerBase(offer.path) + '.priceSpecification')} of a list price type on ${doc.url}`,
    });
  // An offer whose own price is a reference price beside an offer at another price (the paid one).
  const priced = (p?.offers ?? [])
    .map((o) => ({ o, amount: o.price !== undefined ? jsonLdPrice(o.price) : null }))
    .filter((x): x is PricedOffer => x.amount !== null && Number(x.amount) > 0);
  const paid = paidOffers(priced);
  const reference = priced.find((x) => x.o.reference && !paid.includes(x));
  if (p && reference && !offer)
    out.push({
      value: reference.amount,
      method: p.origin,
      weight: 0.9,
      url: doc.url,
      explanation: `${productLabel(p, reference.o.path)}, typed as a list price, on ${doc.url}`,
    });
  if (!ruleOn(tuning, 'price.sale-over-list')) return out;
  const sale = shownSale(doc, hint, tuning);
  if (!sale) return out;
  const structured = p?.offers.map((o) => (o.price !== undefined ? jsonLdPrice(o.price) : null)).find((a) => a !== null);
  if (p && structured && structured === sale.former.amount)
    out.push({
      value: structured,
      method: p.origin,
      weight: 0.8,
      url: doc.url,
      explanation: `${productLabel(p, 'offers.price')}, shown as the former price, on ${doc.url}`,
    });
  out.push({
    value: sale.former.amount,
    method: 'text',
    weight: 0.55,
    url: doc.url,
    explanation: `former price element ${sale.former.t.locator} ("${sale.former.t.text}") on ${doc.url}`,
  });
  return out;
}

/** Readings of the currency: the offer's priceCurrency, OpenGraph, the sign of the best price elements. */
export function currencyCandidates(doc: PageDoc, p?: StructuredProduct, tuning?: ExtractionTuning): Candidate[] {
  const out: Candidate[] = [];
  const offer = p?.offers.find((o) => o.currency && currencyCode(o.currency));
  if (p && offer?.currency)
    out.push({
      value: currencyCode(offer.currency) as string,
      method: p.origin,
      weight: 1,
      url: doc.url,
      explanation: `${productLabel(p, offerBase(offer.path) + '.priceCurrency')} on ${doc.url}`,
    });
  for (const v of ogValues(doc, /^(product|og):price:currency$/i).slice(0, 1)) {
    const code = currencyCode(v);
    if (code) out.push({ value: code, method: 'opengraph', weight: 0.9, url: doc.url, explanation: `OpenGraph product:price:currency on ${doc.url}` });
  }
  for (const { t } of rankedPriceTexts(doc, tuning).slice(0, 3)) {
    const parsed = parsePrice(t.text);
    if (!parsed?.currency || !parsed.amount) continue;
    const code =
      parsed.currency_text && ruleOn(tuning, 'currency.regional')
        ? regionalCurrency(parsed.currency_text, parsed.currency, pageRegion(doc.lang, doc.url))
        : parsed.currency;
    out.push({
      value: code,
      method: 'text',
      weight: 0.5,
      url: doc.url,
      explanation: `currency sign "${parsed.currency_text}" of price element ${t.locator} on ${doc.url}`,
    });
    break;
  }
  return out;
}
