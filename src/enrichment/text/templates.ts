/**
 * Value templates: the shape of a field's known values with every number generalised
 * ("12 Ounce" → "# ounce", "SPF 30" → "spf #", "Pack of 6" → "pack of #"). A template seen
 * in the catalog matches new numbers in new text; templates without a letter ("#") are too
 * generic and are dropped.
 */
import { escapeRegExp, isAlnum, type Span } from './spans';
import { NUMBER_SOURCE } from './quantities';

/**
 * Learned templates of one field: template key → count; `keys` in matching order (longest
 * first), each with its RegExp (`patterns[i]`, flags `giu`) and the ASCII words a text must
 * contain for it to match (`words[i]`, see {@link requiredWords}).
 */
export interface TemplateSet {
  counts: Map<string, number>;
  total: number;
  keys: string[];
  patterns: RegExp[];
  words: string[][];
}

/** A template hit: span in the text and the template key it matched. */
export interface TemplateHit extends Span {
  key: string;
}

const NUMBER_RUN = new RegExp(NUMBER_SOURCE, 'g');

/**
 * Template key of a value: numbers replaced by "#", lower case, separators collapsed; null
 * when the value has no number or no letter.
 */
export function templateKey(value: string): string | null {
  const v = value.trim();
  if (!/\d/.test(v) || !/\p{L}/u.test(v)) return null;
  return v
    .replace(NUMBER_RUN, '#')
    .toLowerCase()
    .replace(/[\s\-_]+/g, ' ')
    .replace(/\s*#\s*/g, '#')
    .trim();
}

/** RegExp source of a template key: "#" → a number, literal text with flexible separators. */
function templateSource(key: string): string {
  // Split on "#" and separators, keeping "#" tokens, then join literals with optional separators.
  const parts = key.split(/(#)/).filter((p) => p.length > 0);
  const body = parts
    .map((p) => (p === '#' ? NUMBER_SOURCE : p.trim().split(' ').filter(Boolean).map(escapeRegExp).join('[\\s\\-_]+')))
    .filter((p) => p.length > 0)
    .join('[\\s\\-_]*');
  const head = isAlnum(key[0]) || key[0] === '#' ? '(?<![\\p{L}\\p{N}.,/])' : '';
  const last = key[key.length - 1];
  const tail = isAlnum(last) || last === '#' ? '(?![\\p{L}\\p{N}])' : '';
  return `${head}${body}${tail}`;
}

/** Learns templates from weighted values (see {@link templateKey}). */
export function buildTemplates(values: Array<{ value: string; weight: number }>): TemplateSet {
  const counts = new Map<string, number>();
  for (const { value, weight } of values) {
    const key = templateKey(value);
    if (key !== null) counts.set(key, (counts.get(key) ?? 0) + weight);
  }
  let total = 0;
  for (const c of counts.values()) total += c;
  const keys = [...counts.keys()].sort((a, b) => b.length - a.length);
  return { counts, total, keys, patterns: keys.map((k) => new RegExp(templateSource(k), 'giu')), words: keys.map(requiredWords) };
}

/**
 * The words of a template key's literal text that are printable ASCII: a text the key matches
 * contains each of them, in any case. Under the `iu` flags an ASCII letter also matches only
 * U+212A (Kelvin sign, k) and U+017F (long s, s) besides its own two cases, which
 * {@link foldedText} maps; words with other characters are not required (their case folding is
 * left to the RegExp).
 */
function requiredWords(key: string): string[] {
  return key
    .split('#')
    .flatMap((part) => part.trim().split(' '))
    .filter((w) => w.length > 0 && /^[\x21-\x7e]+$/.test(w));
}

/** `text` in lower case with the two non-ASCII characters that fold to ASCII letters mapped (see {@link requiredWords}). */
function foldedText(text: string): string {
  return text
    .toLowerCase()
    .replace(/\u212a/g, 'k')
    .replace(/\u017f/g, 's');
}

/** The match of global `re` in `text` starting at or after `from`, or null. */
function nextMatch(re: RegExp, text: string, from: number): RegExpExecArray | null {
  re.lastIndex = from;
  return re.exec(text);
}

/**
 * The matches of the alternation of `set`'s keys (in key order) over `text`, left to right
 * and non-overlapping: at the leftmost position where any key matches, the first key in order
 * that matches there. Computed from each key's own RegExp, and only for the keys whose
 * required words occur in the text (a key whose literal words are missing cannot match): the
 * same matches as one RegExp of all keys joined by `|`, which on a field of 344 templates cost
 * 3.6 ms per 200-character text (bench/text-job.ts profile).
 */
function alternationMatches(text: string, set: TemplateSet): RegExpExecArray[] {
  if (set.keys.length === 0 || !/\d/.test(text)) return [];
  const folded = foldedText(text);
  const kept: RegExp[] = [];
  for (let i = 0; i < set.keys.length; i += 1) if (set.words[i]!.every((w) => folded.includes(w))) kept.push(set.patterns[i]!);
  const next = kept.map((re) => nextMatch(re, text, 0));
  const out: RegExpExecArray[] = [];
  for (;;) {
    let best = -1;
    for (let k = 0; k < next.length; k += 1) if (next[k] !== null && (best < 0 || next[k]!.index < next[best]!.index)) best = k;
    if (best < 0) return out;
    const m = next[best]!;
    out.push(m);
    // Templates always hold a number, so a match is never empty.
    const from = m.index + Math.max(m[0].length, 1);
    for (let k = 0; k < next.length; k += 1) if (next[k] !== null && next[k]!.index < from) next[k] = nextMatch(kept[k]!, text, from);
  }
}

/** Every (leftmost-longest, non-overlapping) template hit in `text`. */
export function matchTemplates(text: string, set: TemplateSet): TemplateHit[] {
  return alternationMatches(text, set).flatMap((m) => {
    const span = { start: m.index, end: m.index + m[0].length, text: m[0] };
    const key = templateKey(span.text);
    return key !== null && set.counts.has(key) ? [{ ...span, key }] : [];
  });
}
