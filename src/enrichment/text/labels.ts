/**
 * Gold labels and rule evidence of training texts for the text tagger (./model.ts): which tokens
 * of an example's text spell its field values (B/I labels), and which rule candidates cover each
 * token.
 */
import type { TextExample } from '../types';
import type { Candidate } from './candidates';
import type { Token } from './tagger';

/** Acceptable values of one example field as a list (empty for none). */
export function valuesOf(v: TextExample['values'][string]): string[] {
  if (v === null || v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x) => x.trim().length > 0);
}

/** Inflection endings a written form may add to a catalog value ("Jersey" written "Jerseys"). */
const ENDINGS = /^(?:s|es)$/i;

/**
 * Token range `[from, to)` whose text spans `[start, end)`, or that span plus a plural
 * ending of its last token (see {@link ENDINGS}); null when the span cuts a token otherwise.
 */
function tokenRange(tokens: Token[], start: number, end: number): [number, number] | null {
  const from = tokens.findIndex((t) => t.start === start);
  const last = tokens.findIndex((t) => t.end >= end && t.start < end);
  if (from < 0 || last < from) return null;
  const tok = tokens[last]!;
  return tok.end === end || ENDINGS.test(tok.text.slice(end - tok.start)) ? [from, last + 1] : null;
}

/** Every occurrence of `value` in `text` (case-sensitive; case-insensitive when none). */
function occurrences(text: string, value: string): number[] {
  const find = (hay: string, needle: string): number[] => {
    const out: number[] = [];
    for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) out.push(i);
    return out;
  };
  const exact = find(text, value);
  return exact.length > 0 ? exact : find(text.toLowerCase(), value.toLowerCase());
}

/**
 * Gold labels of an example's tokens: every occurrence of the first of a field's values that
 * occurs on token boundaries is labelled B/I of that field (longer values first; a token
 * keeps its first label). Returns the labels and the fields found.
 */
export function labelTokens(text: string, tokens: Token[], values: TextExample['values'], fields: string[]): { labels: number[]; found: Set<string> } {
  const labels = new Array<number>(tokens.length).fill(0);
  const found = new Set<string>();
  const entries = fields
    .map((field, k) => ({
      field,
      k,
      value: valuesOf(values[field])
        .map((v) => ({ v, at: occurrences(text, v) }))
        .find((x) => x.at.length > 0),
    }))
    .filter((e) => e.value !== undefined)
    .sort((a, b) => b.value!.v.length - a.value!.v.length);
  for (const { field, k, value } of entries) {
    for (const at of value!.at) {
      const range = tokenRange(tokens, at, at + value!.v.length);
      if (range === null || labels.slice(range[0], range[1]).some((l) => l !== 0)) continue;
      for (let t = range[0]; t < range[1]; t += 1) labels[t] = t === range[0] ? 2 * k + 1 : 2 * k + 2;
      found.add(field);
    }
  }
  return { labels, found };
}

/**
 * Evidence features of each token from rule candidates: which field and kind of evidence
 * covers it (and whether it begins or ends that candidate), and which field the rule layer's
 * resolution gives it.
 */
export function evidenceFeatures(tokens: Token[], candidates: Candidate[], resolved: Candidate[]): string[][] {
  const out = tokens.map(() => [] as string[]);
  const mark = (c: Candidate, prefix: string): void => {
    let first = true;
    for (let t = 0; t < tokens.length; t += 1) {
      const tok = tokens[t]!;
      if (tok.start < c.start || tok.end > c.end) continue;
      out[t]!.push(`${prefix}=${c.field}|${c.method}|${first ? 'B' : 'I'}`);
      if (tokens[t + 1] === undefined || tokens[t + 1]!.end > c.end) out[t]!.push(`${prefix}E=${c.field}|${c.method}`);
      first = false;
    }
  };
  for (const c of candidates) mark(c, 'c');
  for (const c of resolved) mark(c, 'r');
  return out;
}
