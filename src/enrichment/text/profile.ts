/**
 * Field profiles: what a field holds, learned from its name/description (general retail
 * vocabulary: "brand", "width", "UPC", ...) and from the values a catalog already holds for
 * it (their measurement dimensions, code shapes, typical length).
 */
import type { OutputField } from '../types';
import { COLOURS, GENDERS, MATERIALS } from './lexicons';
import { findCodeTokens, codeShape, isValidGtin } from './identifiers';
import { parseMeasurement, type Dimension } from './quantities';
import { buildTemplates, type TemplateSet } from './templates';
import { buildVocabulary, type Vocabulary } from './vocabulary';

/** Everything the extractor knows about one output field. */
export interface FieldProfile {
  field: OutputField;
  /** Catalog values, samples and enum values as phrases. */
  vocabulary: Vocabulary;
  /** Built-in lexicon for colour/material/gender fields (null otherwise). */
  lexicon: Vocabulary | null;
  templates: TemplateSet;
  /** Measurement dimensions the field accepts (empty: not a measurement field). */
  dimensions: Dimension[];
  /** Which side of an "A x B x C" size the field is (null: none). */
  axis: 'width' | 'height' | 'depth' | 'length' | null;
  isBrand: boolean;
  isGtin: boolean;
  isCode: boolean;
  isPack: boolean;
  /**
   * Words of the field name that anchor a bare number ("16 gauge", "304 series", "Shelves: 4")
   * for fields whose values are bare numbers; empty otherwise.
   */
  anchors: string[];
  /** Code shape (see identifiers.ts) → share of the field's known codes with that shape. */
  codeShapes: Map<string, number>;
  /** Number of catalog values the profile was learned from. */
  knownCount: number;
  /**
   * Estimated share of catalog items that have this field filled: its value count over the
   * count of the best-filled field of the schema (null when the catalog is too small to say).
   */
  fill: number | null;
  /** Median number of words of the vocabulary's entries, counted with their weights (1 when none): a title-prefix brand guess's length. */
  typicalWords: number;
  /**
   * Vocabulary key → its total weight over every profile built with this one by
   * {@link buildProfiles} (one map shared by them; for the ambiguity of a phrase between
   * fields). A profile built alone counts only its own vocabulary.
   */
  keyTotals: Map<string, number>;
}

/** Name/description hints → measurement dimensions (general retail vocabulary). */
const DIMENSION_HINTS: Array<[RegExp, Dimension[]]> = [
  [/\b(width|height|depth|length|diameter|thickness|screen size|splash)\b/i, ['length']],
  [/\b(weight|mass|net wt)\b/i, ['mass']],
  [/\b(volume)\b/i, ['volume']],
  [/\b(net content|size\/weight|contents?)\b/i, ['mass', 'volume', 'count']],
  [/\b(voltage)\b/i, ['voltage']],
  [/\b(power|wattage|thermal design)\b/i, ['power']],
  [/\b(clock speed|frequency|bus speed)\b/i, ['frequency']],
  [/\b(rotational speed|rpm)\b/i, ['rotation']],
  [/\b(cache|memory|storage)\b/i, ['data']],
  [/\b(capacity)\b/i, ['data', 'volume']],
];

/** First matching name hint of a field's name (then description), or undefined. */
function hint<T>(field: OutputField, table: Array<[RegExp, T]>): T | undefined {
  for (const text of [field.name, field.description]) {
    for (const [re, value] of table) if (re.test(text)) return value;
  }
  return undefined;
}

/** Measurement dimensions accepted by a field: from its known values when there are enough, else from its name. */
function dimensionsOf(field: OutputField, values: string[]): Dimension[] {
  const counts = new Map<Dimension, number>();
  let measured = 0;
  for (const v of values) {
    const m = parseMeasurement(v);
    if (m === null) continue;
    measured += 1;
    counts.set(m.dimension, (counts.get(m.dimension) ?? 0) + 1);
  }
  if (values.length >= 5) {
    if (measured / values.length < 0.3) return [];
    return [...counts.entries()].filter(([, c]) => c / measured >= 0.15).map(([d]) => d);
  }
  return hint(field, DIMENSION_HINTS) ?? [];
}

/** Share of values that look like codes (one token, with a digit). */
function codeShare(values: string[]): number {
  if (values.length === 0) return 0;
  return (
    values.filter((v) => {
      const t = findCodeTokens(v);
      return t.length === 1 && t[0]!.text === v.trim();
    }).length / values.length
  );
}

/** Words too generic to anchor a number. */
const NON_ANCHORS = new Set(['number', 'type', 'total', 'size', 'with', 'and', 'the', 'of']);

/** Anchor patterns (name words, optional plural) of a bare-number field (see FieldProfile.anchors). */
function anchorsOf(field: OutputField, values: string[]): string[] {
  const bare = values.filter((v) => /^\s*\d+(?:[.,]\d+)?\s*$/.test(v)).length;
  const numeric = values.length >= 5 ? bare / values.length >= 0.5 : field.type === 'number' || field.type === 'integer';
  if (!numeric) return [];
  return field.name
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length >= 4 && !NON_ANCHORS.has(w))
    .map((w) => (w.endsWith('s') ? `${w.slice(0, -1)}s?` : `${w}s?`));
}

/**
 * Builds a field's profile. `known` = values already in the catalog for this field
 * (duplicates allowed: frequency is evidence).
 */
export function buildProfile(field: OutputField, known: string[]): FieldProfile {
  const name = `${field.name} ${field.semantic_type ?? ''}`;
  const samples = (field.sample_values ?? []).map(String);
  const weighted = [...known.map((value) => ({ value, weight: 1 })), ...samples.filter((s) => !known.includes(s)).map((value) => ({ value, weight: 1 }))];
  const enumValues = (field.enum ?? field.items_enum ?? []).map(String);
  const values = weighted.map((w) => w.value);
  const isGtin =
    /\b(upc|gtin|ean|barcode|isbn)\b/i.test(name) || (values.length >= 5 && values.filter((v) => isValidGtin(v.trim())).length / values.length > 0.6);
  const codeHint = /\b(number|no\.?|id|sku|mpn|part|model|code|stock|ref(erence)?)\b/i.test(name);
  const isCode = !isGtin && (values.length >= 5 ? codeShare(values) >= 0.5 : codeHint);
  // A code field's catalog entries without a digit are descriptions filed in the wrong place.
  const phrases = isCode ? weighted.filter((w) => /\d/.test(w.value)) : weighted;
  const vocabulary = buildVocabulary([...phrases, ...enumValues.map((value) => ({ value, weight: 1 }))], enumValues.length > 0);
  const lexiconWords = /colou?r/i.test(name) ? COLOURS : /material|fabric/i.test(name) ? MATERIALS : /gender|sex\b/i.test(name) ? GENDERS : null;
  const codeShapes = new Map<string, number>();
  if (isCode) {
    const codes = values.filter((v) => /\d/.test(v));
    for (const c of codes) codeShapes.set(codeShape(c.trim()), (codeShapes.get(codeShape(c.trim())) ?? 0) + 1 / codes.length);
  }
  const axisMatch = /\b(width|height|depth|length)\b/i.exec(field.name);
  return {
    field,
    vocabulary,
    lexicon: lexiconWords ? buildVocabulary(lexiconWords.map((value) => ({ value, weight: 1 }))) : null,
    templates: buildTemplates(weighted),
    dimensions: isCode || isGtin ? [] : dimensionsOf(field, values),
    axis: axisMatch ? (axisMatch[1]!.toLowerCase() as FieldProfile['axis']) : null,
    isBrand: /\b(brand|manufacturer|maker|make)\b/i.test(field.name),
    isGtin,
    isCode,
    anchors: anchorsOf(field, values),
    isPack: /\b(pack|quantity|count|pieces)\b/i.test(field.name),
    codeShapes,
    knownCount: values.length,
    fill: null,
    typicalWords: medianWords(vocabulary),
    keyTotals: new Map(vocabulary.counts),
  };
}

/** Median number of words of a vocabulary's entries, each counted as often as its weight (1 when none). */
function medianWords(vocabulary: Vocabulary): number {
  const lengths: number[] = [];
  for (const [key, count] of vocabulary.counts) for (let i = 0; i < count; i += 1) lengths.push(key.split(' ').length);
  lengths.sort((a, b) => a - b);
  return lengths.length > 0 ? lengths[Math.floor(lengths.length / 2)]! : 1;
}

/** Smallest value count of the best-filled field for fill estimates to be meaningful. */
const MIN_CATALOG = 10;

/**
 * Profiles of a whole schema; each profile's `fill` is estimated against the best-filled
 * field (a catalog's most complete field is taken as filled on every item), and their
 * `keyTotals` is one map over all of them.
 */
export function buildProfiles(fields: OutputField[], knownValues: Record<string, string[]> = {}): Map<string, FieldProfile> {
  const profiles = new Map(fields.map((f) => [f.name, buildProfile(f, knownValues[f.name] ?? [])]));
  const most = Math.max(0, ...[...profiles.values()].map((p) => p.knownCount));
  if (most >= MIN_CATALOG) for (const p of profiles.values()) p.fill = p.knownCount / most;
  const totals = new Map<string, number>();
  for (const p of profiles.values()) for (const [k, c] of p.vocabulary.counts) totals.set(k, (totals.get(k) ?? 0) + c);
  for (const p of profiles.values()) p.keyTotals = totals;
  return profiles;
}
