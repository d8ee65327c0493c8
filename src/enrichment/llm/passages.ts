import { unitSymbol } from '../normalize/units';
import type { PageDoc } from '../parse/page';
import type { StructuredProduct } from '../parse/products';
import type { OutputField } from '../types';

/** One piece of evidence shown to the model, cited by `source` (a URL, `SOURCE_X` or `INPUT:<field>`). */
export interface Passage {
  source: string;
  title: string;
  /** Compact facts and text windows; what grounding checks read. */
  text: string;
}

/** Size limits of {@link pagePassage}, in characters. */
export const PASSAGE_LIMITS = { perDocument: 4_000, total: 16_000, window: 240, description: 600 };

function productLines(p: StructuredProduct): string[] {
  const lines = [`${p.origin === 'jsonld' ? 'JSON-LD' : 'microdata'} Product:`];
  for (const key of ['name', 'brand', 'sku', 'gtin', 'mpn', 'product_id'] as const) if (p[key]) lines.push(`  ${key}: ${p[key]}`);
  if (p.description) lines.push(`  description: ${p.description.slice(0, PASSAGE_LIMITS.description)}`);
  for (const o of p.offers.slice(0, 3))
    lines.push(
      `  offer: ${[o.price && `price ${o.price}`, o.currency && `currency ${o.currency}`, o.availability && `availability ${o.availability}`].filter(Boolean).join(', ')}`,
    );
  // A quantity's unit (QuantitativeValue unitCode, e.g. KGM) shown as its symbol, so the model reads "1.2 kg", not "1.2".
  for (const [k, v] of Object.entries(p.properties).slice(0, 30)) lines.push(`  ${k}: ${v}${p.units?.[k] ? ` ${unitSymbol(p.units[k])}` : ''}`);
  if (p.images.length) lines.push(`  images: ${p.images.slice(0, 5).join(' ')}`);
  return lines;
}

/** Words that say what a field is about: its name parts and its description's longer words. */
function fieldTerms(fields: OutputField[]): string[] {
  const words = fields.flatMap((f) => [
    ...f.name.replace(/([a-z])([A-Z])/g, '$1 $2').split(/[\s_-]+/),
    ...f.description.split(/\W+/).filter((w) => w.length >= 5),
  ]);
  return [...new Set(words.map((w) => w.toLowerCase()).filter((w) => w.length >= 3))].slice(0, 40);
}

/** Text windows (± `PASSAGE_LIMITS.window` chars) around the first mention of each term, merged, in page order. */
function windows(text: string, terms: string[], budget: number): string {
  const lower = text.toLowerCase();
  const spans: Array<[number, number]> = [];
  for (const t of terms) {
    const i = lower.indexOf(t);
    if (i >= 0) spans.push([Math.max(0, i - PASSAGE_LIMITS.window), Math.min(text.length, i + t.length + PASSAGE_LIMITS.window)]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else merged.push([...s]);
  }
  let out = '';
  for (const [a, b] of merged) {
    if (out.length >= budget) break;
    out += `…${text.slice(a, b)}… `;
  }
  return out.slice(0, budget);
}

/**
 * A compact passage of one parsed page: title, structured products (JSON-LD/microdata facts,
 * offers, properties), key/value rows (spec tables, "Label: value" lines), then text windows
 * around the item's name words and the output fields' words; at most
 * `PASSAGE_LIMITS.perDocument` characters.
 * @param source what the passage is cited as (the page URL or `SOURCE_X`)
 * @param itemWords lower-cased words of the item's name and identifiers
 */
export function pagePassage(source: string, doc: PageDoc, fields: OutputField[], itemWords: string[]): Passage {
  const lines: string[] = [];
  if (doc.meta_description) lines.push(`meta description: ${doc.meta_description.slice(0, 300)}`);
  for (const p of doc.products.slice(0, 2)) lines.push(...productLines(p));
  for (const [k, v] of doc.opengraph.filter(([k]) => /^(og:title|og:description|product:)/i.test(k)).slice(0, 12)) lines.push(`${k}: ${v.slice(0, 300)}`);
  for (const kv of doc.key_values.slice(0, 80)) lines.push(`${kv.key}: ${kv.value}`);
  for (const pt of [...doc.price_texts].sort((a, b) => b.score - a.score).slice(0, 3)) lines.push(`price element ${pt.locator}: ${pt.text}`);
  for (const a of doc.availability_texts.slice(0, 3)) lines.push(`stock message: ${a}`);
  let text = lines.join('\n').slice(0, PASSAGE_LIMITS.perDocument);
  const rest = PASSAGE_LIMITS.perDocument - text.length;
  if (rest > 200) {
    const found = windows(doc.text, [...itemWords, ...fieldTerms(fields)], rest - 20);
    text += `\ntext: ${found || doc.text.slice(0, rest - 20)}`;
  }
  return { source, title: doc.title, text };
}

/** The item's own string/number fields as `INPUT:<field>` passages (values may be cited from the item). */
export function inputPassages(item: Record<string, unknown>): Passage[] {
  return Object.entries(item)
    .filter(([, v]) => (typeof v === 'string' && v.trim() !== '') || typeof v === 'number')
    .map(([k, v]) => ({ source: `INPUT:${k}`, title: `item field ${k}`, text: String(v).slice(0, 2_000) }));
}

/** Keeps passages in order until `PASSAGE_LIMITS.total` characters are used (input passages count too). */
export function boundPassages(passages: Passage[]): Passage[] {
  const out: Passage[] = [];
  let used = 0;
  for (const p of passages) {
    if (used + p.text.length > PASSAGE_LIMITS.total && out.length > 0) break;
    out.push(p);
    used += p.text.length;
  }
  return out;
}
