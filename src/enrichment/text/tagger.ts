/**
 * Tokens and token features of the learned BIO tagger (crf.ts), trained at run time on the
 * user's catalog: example texts whose known values are matched back into the text give token
 * labels `B-<field>`, `I-<field>`, `O`. Features are the usual ones of feature-based taggers
 * (Ratnaparkhi-style word/shape/affix/neighbour features, as in Collins, "Discriminative
 * Training Methods for Hidden Markov Models", EMNLP 2002, and Honnibal's "A good POS tagger
 * in about 200 lines of Python", 2013) plus "evidence" features supplied by the caller (e.g.
 * which rule-based candidate covers a token).
 */
import type { Span } from './spans';

/** One token of the input: a letter/digit run or a single other non-space character. */
export interface Token extends Span {
  lower: string;
  /** True when the token lies in the title (before the first line break). */
  title: boolean;
  /** True when whitespace (or the text start) precedes the token. */
  spaced: boolean;
}

/** Most tokens of one text the tagger looks at (titles plus the start of a description). */
export const MAX_TOKENS = 200;

const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** Tokens of `text` (at most {@link MAX_TOKENS}), each an exact substring with its offsets. */
export function tokenize(text: string): Token[] {
  const nl = text.indexOf('\n');
  const titleEnd = nl < 0 ? text.length : nl;
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null && out.length < MAX_TOKENS; m = TOKEN.exec(text)) {
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      text: m[0],
      lower: m[0].toLowerCase(),
      title: m.index < titleEnd,
      spaced: m.index === 0 || /\s/.test(text[m.index - 1]!),
    });
  }
  return out;
}

/** Collapsed character-class shape of a token ("Women" → "Xx", "YA24a" → "X9x", "-" → "-"). */
export function tokenShape(token: string): string {
  return token
    .replace(/\p{Lu}/gu, 'X')
    .replace(/\p{Ll}/gu, 'x')
    .replace(/\p{N}/gu, '9')
    .replace(/(.)\1+/gu, '$1');
}

/** Tokens that separate the segments of a title ("Brand Product, Flavor - Size | Pack"). */
const SEPARATORS = new Set([',', ';', '|', '(', ')', '[', ']', '–', '—', ':', '/']);

/** True when token `i` is a segment separator (a spaced dash counts, a joining one does not). */
export function isSeparator(tokens: Token[], i: number): boolean {
  const t = tokens[i];
  if (t === undefined) return true;
  return SEPARATORS.has(t.text) || (t.text === '-' && t.spaced && tokens[i + 1]?.spaced !== false);
}

/**
 * Per-token feature lists: lexical context features, whether the token begins or ends a
 * title segment (see {@link isSeparator}), plus caller-supplied `extra[i]`.
 */
export function tokenFeatures(tokens: Token[], extra: string[][]): string[][] {
  const word = (i: number): string => (i < 0 ? '<s>' : i >= tokens.length ? '</s>' : tokens[i]!.lower);
  const shape = (i: number): string => (i < 0 || i >= tokens.length ? '-' : tokenShape(tokens[i]!.text));
  return tokens.map((t, i) => {
    const w = t.lower;
    const f = [
      'b',
      `w=${w}`,
      `s=${shape(i)}`,
      `p3=${w.slice(0, 3)}`,
      `x3=${w.slice(-3)}`,
      `w-1=${word(i - 1)}`,
      `w+1=${word(i + 1)}`,
      `w-2=${word(i - 2)}`,
      `w+2=${word(i + 2)}`,
      `w-1w=${word(i - 1)}|${w}`,
      `ww+1=${w}|${word(i + 1)}`,
      `s-1=${shape(i - 1)}`,
      `s+1=${shape(i + 1)}`,
      `pos=${t.title ? Math.min(i, 8) : 'd'}`,
      `sp=${t.spaced ? 1 : 0}${tokens[i + 1]?.spaced === false ? 0 : 1}`,
    ];
    if (!t.title) f.push('desc');
    if (!isSeparator(tokens, i)) {
      if (isSeparator(tokens, i - 1)) f.push('segFirst');
      if (isSeparator(tokens, i + 1)) f.push('segLast');
    }
    return f.concat(extra[i] ?? []);
  });
}

/**
 * One training sequence: per-token features, gold label indices (0 = O) and, optionally, the
 * labels the sequence may take (ascending, 0 included; default: every label). A catalog whose
 * item groups have different fields restricts each group's sequences to its own fields.
 */
export interface Sequence {
  features: string[][];
  labels: number[];
  allowed?: number[];
}

/** Label indexes (ascending, O first) of the fields at `fieldIndexes`: B of field k is 2k+1, I is 2k+2. */
export function allowedLabels(fieldIndexes: number[]): number[] {
  return [0, ...[...fieldIndexes].sort((a, b) => a - b).flatMap((k) => [2 * k + 1, 2 * k + 2])];
}
