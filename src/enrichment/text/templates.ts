/**
 * Value templates: the shape of a field's known values with every number generalised
 * ("12 Ounce" → "# ounce", "SPF 30" → "spf #", "Pack of 6" → "pack of #"). A template seen
 * in the catalog matches new numbers in new text; templates without a letter ("#") are too
 * generic and are dropped.
 */
import { findAll, escapeRegExp, isAlnum, type Span } from './spans';
import { NUMBER_SOURCE } from './quantities';

/** Learned templates of one field: template key → count, plus one RegExp over all of them. */
export interface TemplateSet {
  counts: Map<string, number>;
  total: number;
  pattern: RegExp | null;
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
  const pattern = keys.length > 0 ? new RegExp(keys.map(templateSource).join('|'), 'giu') : null;
  return { counts, total, pattern };
}

/** Every (leftmost-longest, non-overlapping) template hit in `text`. */
export function matchTemplates(text: string, set: TemplateSet): TemplateHit[] {
  if (set.pattern === null) return [];
  return findAll(text, set.pattern).flatMap((span) => {
    const key = templateKey(span.text);
    return key !== null && set.counts.has(key) ? [{ ...span, key }] : [];
  });
}
