/**
 * A small BIO sequence tagger (greedy left-to-right averaged perceptron) trained at run time
 * on the user's catalog: example texts whose known values are matched back into the text
 * give token labels `B-<field>`, `I-<field>`, `O`. Features are the usual ones of
 * feature-based taggers (Collins, "Discriminative Training Methods for Hidden Markov
 * Models", EMNLP 2002; Ratinaparkhi-style word/shape/affix/neighbour features; the greedy
 * averaged perceptron of Honnibal's "A good POS tagger in about 200 lines of Python", 2013)
 * plus "evidence" features supplied by the caller (e.g. which rule-based candidate covers a
 * token). Deterministic: fixed training order permutation from a seeded generator.
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
    out.push({ start: m.index, end: m.index + m[0].length, text: m[0], lower: m[0].toLowerCase(), title: m.index < titleEnd, spaced: m.index === 0 || /\s/.test(text[m.index - 1]!) });
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

/** Per-token feature lists: lexical context features plus caller-supplied `extra[i]`. */
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
    return f.concat(extra[i] ?? []);
  });
}

/** One training sequence: per-token features and gold label indices (0 = O). */
export interface Sequence {
  features: string[][];
  labels: number[];
}

/**
 * Averaged-perceptron BIO tagger over `fields`: label 0 is O, label 2k+1 is B of field k,
 * 2k+2 is I of field k. Weights map a feature to one score per label.
 */
export interface Tagger {
  fields: string[];
  weights: Map<string, Float64Array>;
}

/** Name of a label index ("O", "B-Brand", "I-Brand"). */
function labelName(fields: string[], label: number): string {
  if (label === 0) return 'O';
  return `${label % 2 === 1 ? 'B' : 'I'}-${fields[(label - 1) >> 1]}`;
}

/** An I label may only continue a B or I of the same field. */
function allowed(prev: number, label: number): boolean {
  return label === 0 || label % 2 === 1 || prev === label || prev === label - 1;
}

/** Scores of every label for one token's features plus the previous-label feature. */
function scores(weights: Map<string, Float64Array>, features: string[], prevName: string, size: number): Float64Array {
  const out = new Float64Array(size);
  for (const f of [...features, `L=${prevName}`]) {
    const w = weights.get(f);
    if (w) for (let k = 0; k < size; k += 1) out[k]! += w[k]!;
  }
  return out;
}

/** Best allowed label of a score vector after label `prev`. */
function best(s: Float64Array, prev: number): number {
  let arg = 0;
  for (let k = 1; k < s.length; k += 1) if (allowed(prev, k) && s[k]! > s[arg]!) arg = k;
  return arg;
}

/** Deterministic pseudo-random generator (mulberry32) for the training order. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Trains a tagger on `sequences` for `epochs` passes (greedy decoding with the predicted
 * previous label, as at inference), returning averaged weights.
 */
export function trainTagger(fields: string[], sequences: Sequence[], epochs = 6): Tagger {
  const size = 2 * fields.length + 1;
  const weights = new Map<string, Float64Array>();
  const accumulated = new Map<string, Float64Array>();
  let step = 1;
  const update = (features: string[], label: number, delta: number): void => {
    for (const f of features) {
      let w = weights.get(f);
      let u = accumulated.get(f);
      if (!w || !u) {
        w = new Float64Array(size);
        u = new Float64Array(size);
        weights.set(f, w);
        accumulated.set(f, u);
      }
      w[label]! += delta;
      u[label]! += step * delta;
    }
  };
  const random = mulberry32(20240521);
  const order = sequences.map((_, i) => i);
  for (let epoch = 0; epoch < epochs; epoch += 1) {
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const index of order) {
      const seq = sequences[index]!;
      let prev = 0;
      for (let t = 0; t < seq.labels.length; t += 1) {
        const features = [...seq.features[t]!, `L=${labelName(fields, prev)}`];
        const guess = best(scores(weights, seq.features[t]!, labelName(fields, prev), size), prev);
        const gold = seq.labels[t]!;
        if (guess !== gold) {
          update(features, gold, 1);
          update(features, guess, -1);
        }
        step += 1;
        prev = guess;
      }
    }
  }
  for (const [f, w] of weights) {
    const u = accumulated.get(f)!;
    for (let k = 0; k < size; k += 1) w[k] = w[k]! - u[k]! / step;
  }
  return { fields, weights };
}

/** A tagged span: field, token range `[from, to)`, and its least per-token margin over O. */
export interface TaggedSpan {
  field: string;
  from: number;
  to: number;
  margin: number;
}

/** Tags one sequence of token features; returns the spans of every field. */
export function tag(tagger: Tagger, features: string[][]): TaggedSpan[] {
  const size = 2 * tagger.fields.length + 1;
  const out: TaggedSpan[] = [];
  let prev = 0;
  let open: TaggedSpan | null = null;
  for (let t = 0; t < features.length; t += 1) {
    const s = scores(tagger.weights, features[t]!, labelName(tagger.fields, prev), size);
    const label = best(s, prev);
    const margin = s[label]! - s[0]!;
    if (label !== 0 && label % 2 === 0 && open !== null) {
      open.to = t + 1;
      open.margin = Math.min(open.margin, margin);
    } else {
      if (open !== null) out.push(open);
      open = label === 0 ? null : { field: tagger.fields[(label - 1) >> 1]!, from: t, to: t + 1, margin };
    }
    prev = label;
  }
  if (open !== null) out.push(open);
  return out;
}
