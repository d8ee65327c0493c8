/**
 * Vocabulary matching: a field's known surface forms (catalog values, `sample_values`,
 * `enum`) found in the text with longest-match, token-boundary, case-insensitive matching.
 */
import { findAll, phraseKey, phrasePattern, type Span } from './spans';

/** A field's vocabulary: entry key (see {@link phraseKey}) → how often the catalog holds it. */
export interface Vocabulary {
  counts: Map<string, number>;
  /** Sum of all counts (≥ 1 when the vocabulary is not empty). */
  total: number;
  /** One global, case-insensitive RegExp over all entries, longest first; null if empty. */
  pattern: RegExp | null;
}

/** A vocabulary hit: the span in the text and the matched entry's key. */
export interface VocabularyHit extends Span {
  key: string;
}

/**
 * True when a value is too generic to be matched as a phrase: no letter at all ("24",
 * "1/2") or a single character. Such values still count as evidence of the field's shape
 * (see templates.ts), never as vocabulary.
 */
export function isTooGeneric(value: string): boolean {
  const v = value.trim();
  return v.length < 2 || !/\p{L}/u.test(v);
}

/**
 * Builds a vocabulary from values (duplicates count: a value present on many catalog items
 * weighs more). Generic values (see {@link isTooGeneric}) are dropped unless `keepGeneric`
 * (used for `enum`, where the caller declares the values).
 */
export function buildVocabulary(values: Array<{ value: string; weight: number }>, keepGeneric = false): Vocabulary {
  const counts = new Map<string, number>();
  const surfaces = new Map<string, string>();
  for (const { value, weight } of values) {
    if (!keepGeneric && isTooGeneric(value)) continue;
    const key = phraseKey(value);
    if (key.length === 0) continue;
    counts.set(key, (counts.get(key) ?? 0) + weight);
    if (!surfaces.has(key)) surfaces.set(key, value);
  }
  let total = 0;
  for (const c of counts.values()) total += c;
  const sources = [...surfaces.values()]
    .sort((a, b) => b.length - a.length)
    .map(phrasePattern);
  const pattern = sources.length > 0 ? new RegExp(sources.join('|'), 'giu') : null;
  return { counts, total, pattern };
}

/** Every (leftmost-longest, non-overlapping) vocabulary hit in `text`. */
export function matchVocabulary(text: string, vocab: Vocabulary): VocabularyHit[] {
  if (vocab.pattern === null) return [];
  return findAll(text, vocab.pattern)
    .map((span) => ({ ...span, key: phraseKey(span.text) }))
    .filter((hit) => vocab.counts.has(hit.key));
}
