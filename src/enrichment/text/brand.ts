/**
 * Brands read from an item's own text (docs/enrich-options.md, "Brands read from the item's
 * text"). A title's first words are often its brand, but not always, and a multi-word brand
 * ("John Lewis & Partners") cannot be told from its product words ("Faux Fur Throw") by the
 * text alone: a brand the text path finds is a value only when something other than the text
 * knows it (the catalog's values for the field, the item's own value, the schema's listed
 * values). This module holds the pure parts of that rule: which fields are brands, the brands
 * known for a field, the longest known brand a title starts with, and whether a read value is
 * a known brand. The engine (src/enrichment/engine.ts) and the text suite of the evaluation
 * (bench/eval/text.ts) apply them the same way.
 */
import { fieldRole } from '../extract/roles';
import type { OutputField, TextExample } from '../types';

/**
 * True when `field` holds the product's brand or maker: its name has the `brand` role of
 * src/enrichment/extract/roles.ts (`brand`, `brand_name`, `manufacturer`, `make`, `marke`), or
 * its name says nothing and its description is about the brand itself ("Brand of the
 * product", "Manufacturer"), not about something of the brand ("Product line of the brand",
 * "Manufacturer stock number"). A sub-brand ("Sub brand", a line inside a brand) is read like any other field.
 */
export function isBrandField(field: OutputField): boolean {
  if (/sub[\s_-]*brand/i.test(field.name)) return false;
  const byName = fieldRole({ ...field, description: '' });
  if (byName === 'brand') return true;
  return byName === 'generic' && /^(the\s+)?(product'?s\s+)?(brand|manufacturer|maker)(\s+name)?(\s+of\b|\s*[.,;:(]|$)/i.test((field.description ?? '').trim());
}

/** One word of a brand or title: its comparison key and where it ends in the text (UTF-16 offset). */
interface BrandWord {
  key: string;
  end: number;
}

/** Longest known brand considered, in words and characters (longer catalog values are descriptions, not brands). */
const MAX_BRAND_WORDS = 8;
const MAX_BRAND_CHARS = 80;

/**
 * The words of `text` as comparison keys, so that matching ignores case, accents, spacing
 * and punctuation: letters and digits (an apostrophe inside a word is dropped: "Levi's" =
 * "Levis"), `&` and `+` as the word "and" ("Marks & Spencer" = "Marks and Spencer"); any
 * other character separates words ("Coca-Cola" = "Coca Cola").
 */
function brandWords(text: string): BrandWord[] {
  const out: BrandWord[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*|[&+]/gu)) {
    const word = m[0];
    const key = word === '&' || word === '+' ? 'and' : word.normalize('NFKD').replace(/\p{M}/gu, '').replace(/['’]/g, '').toLowerCase();
    out.push({ key, end: m.index! + word.length });
  }
  return out;
}

/** The comparison key of a whole brand: its word keys joined by one space ('' when it has none). */
export function brandKey(text: string): string {
  return brandWords(text)
    .map((w) => w.key)
    .join(' ');
}

/**
 * The brands known for one field, indexed for matching: by comparison key ({@link brandKey})
 * the spelling to return, and by first word the word keys of every brand starting with it.
 */
export interface KnownBrands {
  byKey: Map<string, string>;
  byFirstWord: Map<string, string[][]>;
}

/**
 * Indexes `values` (the catalog's values for the field, the item's own value, the schema's
 * `enum` / `sample_values`, in that order of preference) as {@link KnownBrands}. The first
 * spelling of a key is the one returned (the catalog's most frequent first, when `values` come
 * most frequent first). Blank values and values over {@link MAX_BRAND_WORDS} words or
 * {@link MAX_BRAND_CHARS} characters are left out.
 */
export function knownBrands(values: Iterable<unknown>): KnownBrands {
  const byKey = new Map<string, string>();
  const byFirstWord = new Map<string, string[][]>();
  for (const value of values) {
    if (typeof value !== 'string' || value.trim().length > MAX_BRAND_CHARS) continue;
    const words = brandWords(value).map((w) => w.key);
    if (words.length === 0 || words.length > MAX_BRAND_WORDS) continue;
    const key = words.join(' ');
    if (byKey.has(key)) continue;
    byKey.set(key, value.trim());
    byFirstWord.set(words[0]!, [...(byFirstWord.get(words[0]!) ?? []), words]);
  }
  return { byKey, byFirstWord };
}

/** The known spelling of `value` when it is one of the `known` brands ({@link brandKey} equal), else null. */
export function knownBrand(value: string, known: KnownBrands): string | null {
  return known.byKey.get(brandKey(value)) ?? null;
}

/**
 * The longest known brand that `title` starts with, word for word under {@link brandKey}'s
 * comparison ("JOHN LEWIS and Partners faux fur throw" starts with the known "John Lewis &
 * Partners", which wins over a known "John Lewis"): its known spelling (`value`) and the
 * title's own words for it (`snippet`, an exact substring of `title`). Null when the title
 * starts with none.
 */
export function brandAtStart(title: string, known: KnownBrands): { value: string; snippet: string } | null {
  const words = brandWords(title.slice(0, MAX_BRAND_CHARS * 2));
  if (words.length === 0) return null;
  let best: string[] | null = null;
  for (const candidate of known.byFirstWord.get(words[0]!.key) ?? []) {
    if (candidate.length > words.length || (best && candidate.length <= best.length)) continue;
    if (candidate.every((k, i) => words[i]!.key === k)) best = candidate;
  }
  if (!best) return null;
  const start = title.search(/[\p{L}\p{N}&+]/u);
  return { value: known.byKey.get(best.join(' '))!, snippet: title.slice(start, words[best.length - 1]!.end) };
}

/**
 * The brands known for each brand field of `fields` ({@link isBrandField}), by field name: the
 * field's `enum` alone when it has one (no other value could be written); otherwise the
 * catalog's values of the field (`knownValues`, most frequent first), the values the catalog's
 * text examples state for it, the item's own brand (its value of the field, or of any key of
 * the brand role: `brand`, `manufacturer`, …), and the field's `sample_values`.
 */
export function brandKnowledge(
  fields: OutputField[],
  item: Record<string, unknown>,
  knownValues: Record<string, string[]> = {},
  examples: readonly TextExample[] = [],
): Map<string, KnownBrands> {
  const out = new Map<string, KnownBrands>();
  const own = Object.entries(item)
    .filter(([key]) => fieldRole({ name: key, type: 'string', description: '' }) === 'brand')
    .flatMap(([, value]) => value);
  for (const field of fields.filter(isBrandField)) {
    const { name } = field;
    if (field.enum?.length) {
      out.set(name, knownBrands(field.enum));
      continue;
    }
    const stated = examples.flatMap((e) => e.values[name] ?? []);
    out.set(name, knownBrands([...(knownValues[name] ?? []), ...stated, ...[item[name]].flat(), ...own, ...(field.sample_values ?? [])]));
  }
  return out;
}
