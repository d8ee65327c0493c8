/**
 * Vocabulary matching: a field's known surface forms (catalog values, `sample_values`,
 * `enum`) found in the text with leftmost-longest, token-boundary, case-insensitive matching
 * (runs of spaces, dashes and underscores are one separator, as in {@link phraseKey}). A
 * character trie over the entries' keys does the matching in time linear in the text times
 * the longest entry, independent of the vocabulary size.
 */
import { isAlnum, phraseKey, type Span } from './spans';

/** Character trie node; `key` is set where an entry ends. */
interface TrieNode {
  next: Map<string, TrieNode>;
  key?: string;
}

/** A field's vocabulary: entry key (see {@link phraseKey}) → how often the catalog holds it. */
export interface Vocabulary {
  counts: Map<string, number>;
  /** Sum of all counts (≥ 1 when the vocabulary is not empty). */
  total: number;
  /** Trie over all entry keys. */
  trie: TrieNode;
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
  const trie: TrieNode = { next: new Map() };
  for (const { value, weight } of values) {
    if (!keepGeneric && isTooGeneric(value)) continue;
    const key = phraseKey(value);
    if (key.length === 0) continue;
    counts.set(key, (counts.get(key) ?? 0) + weight);
    let node = trie;
    for (const ch of key) {
      let child = node.next.get(ch);
      if (!child) {
        child = { next: new Map() };
        node.next.set(ch, child);
      }
      node = child;
    }
    node.key = key;
  }
  let total = 0;
  for (const c of counts.values()) total += c;
  return { counts, total, trie };
}

/** Lower-case character of `ch` when that keeps one UTF-16 unit (offsets stay aligned). */
function lowerUnit(ch: string): string {
  const l = ch.toLowerCase();
  return l.length === 1 ? l : ch;
}

/**
 * A text in the vocabulary's key form (see {@link phraseKey}: lower case, separator runs as one
 * space), one character per entry, with each character's offset in the original text. Made once
 * per text by {@link vocabularyText} and read by {@link matchVocabulary} for every field.
 */
export interface VocabularyText {
  text: string;
  norm: string[];
  offset: number[];
}

/** The {@link VocabularyText} of `text`. */
export function vocabularyText(text: string): VocabularyText {
  const norm: string[] = [];
  const offset: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (/[\s\-_]/.test(ch)) {
      if (norm[norm.length - 1] !== ' ') {
        norm.push(' ');
        offset.push(i);
      }
      continue;
    }
    norm.push(lowerUnit(ch));
    offset.push(i);
  }
  return { text, norm, offset };
}

/**
 * Every (leftmost-longest, non-overlapping) vocabulary hit in `text` (a string, or its
 * {@link vocabularyText} when several vocabularies are matched against one text), as written.
 */
export function matchVocabulary(text: string | VocabularyText, vocab: Vocabulary): VocabularyHit[] {
  if (vocab.trie.next.size === 0) return [];
  const { text: original, norm, offset } = typeof text === 'string' ? vocabularyText(text) : text;
  const hits: VocabularyHit[] = [];
  for (let s = 0; s < norm.length; s += 1) {
    const start = offset[s]!;
    if (isAlnum(norm[s]) && isAlnum(original[start - 1])) continue;
    let node: TrieNode | undefined = vocab.trie;
    let found: { key: string; end: number } | null = null;
    for (let e = s; e < norm.length && node !== undefined; e += 1) {
      node = node.next.get(norm[e]!);
      if (node?.key === undefined) continue;
      const end = offset[e]! + 1;
      if (!(isAlnum(norm[e]) && isAlnum(original[end]))) found = { key: node.key, end };
    }
    if (found === null) continue;
    hits.push({ start, end: found.end, text: original.slice(start, found.end), key: found.key });
    while (s + 1 < norm.length && offset[s + 1]! < found.end) s += 1;
  }
  return hits;
}
