/**
 * A small BIO sequence tagger (averaged structured perceptron with Viterbi decoding) trained at run time
 * on the user's catalog: example texts whose known values are matched back into the text
 * give token labels `B-<field>`, `I-<field>`, `O`. Features are the usual ones of
 * feature-based taggers (Collins, "Discriminative Training Methods for Hidden Markov
 * Models", EMNLP 2002; Ratnaparkhi-style word/shape/affix/neighbour features, as in Honnibal's "A good POS
 * tagger in about 200 lines of Python", 2013)
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

/** Tokens that separate the segments of a title ("Brand Product, Flavor - Size | Pack"). */
const SEPARATORS = new Set([',', ';', '|', '(', ')', '[', ']', '–', '—', ':', '/']);

/** True when token `i` is a segment separator (a spaced dash counts, a joining one does not). */
function isSeparator(tokens: Token[], i: number): boolean {
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

/** Label indexes (ascending, O first) of the fields at `fieldIndexes` among `size` labels. */
export function allowedLabels(fieldIndexes: number[]): number[] {
  return [0, ...[...fieldIndexes].sort((a, b) => a - b).flatMap((k) => [2 * k + 1, 2 * k + 2])];
}

/**
 * Averaged-perceptron BIO tagger over `fields`: label 0 is O, label 2k+1 is B of field k,
 * 2k+2 is I of field k (`size` = 2·fields + 1 labels). `ids` numbers the token features
 * seen in training; `weights[id * size + label]` is a feature's score for a label, and
 * `transitions[prev * size + label]` scores label bigrams (prev = `size` at the start).
 */
export interface Tagger {
  fields: string[];
  ids: Map<string, number>;
  weights: Float64Array;
  transitions: Float64Array;
}

/** An I label may only continue a B or I of the same field. */
function allowed(prev: number, label: number): boolean {
  return label === 0 || label % 2 === 1 || prev === label || prev === label - 1;
}

/** Per-token label scores from the token features (as feature ids) alone, for the `allowed` labels (others stay 0). */
function emissions(weights: Float64Array, features: Int32Array[], size: number, allowed: number[]): Float64Array[] {
  return features.map((ids) => {
    const out = new Float64Array(size);
    for (const id of ids) {
      const base = id * size;
      for (const k of allowed) out[k]! += weights[base + k]!;
    }
    return out;
  });
}

/** Feature ids of each token's features; features without an id are skipped. */
function toIds(features: string[][], ids: Map<string, number>): Int32Array[] {
  return features.map((fs) => Int32Array.from(fs.flatMap((f) => (ids.has(f) ? [ids.get(f)!] : []))));
}

/** Allowed predecessors of each label within `labels` (any label for O and B, the same field's B or I for I). */
function predecessors(size: number, labels: number[]): number[][] {
  const preds: number[][] = Array.from({ length: size }, () => []);
  for (const k of labels) preds[k] = labels.filter((j) => allowed(j, k));
  return preds;
}

/**
 * Best label sequence under emission plus transition scores (Viterbi) over the `labels`
 * allowed, with the BIO constraint (see {@link allowed}); prev index `size` stands for the
 * sequence start.
 */
function viterbi(emit: Float64Array[], transitions: Float64Array, size: number, labels: number[]): number[] {
  if (emit.length === 0) return [];
  const back: Int32Array[] = [];
  const preds = predecessors(size, labels);
  let score = new Float64Array(size).fill(-Infinity);
  for (const k of labels) score[k] = allowed(size, k) ? emit[0]![k]! + transitions[size * size + k]! : -Infinity;
  for (let t = 1; t < emit.length; t += 1) {
    const next = new Float64Array(size).fill(-Infinity);
    const from = new Int32Array(size);
    for (const k of labels) {
      for (const j of preds[k]!) {
        const v = score[j]! + transitions[j * size + k]!;
        if (v > next[k]!) {
          next[k] = v;
          from[k] = j;
        }
      }
      next[k]! += emit[t]![k]!;
    }
    back.push(from);
    score = next;
  }
  let label = 0;
  for (const k of labels) if (score[k]! > score[label]!) label = k;
  const path = [label];
  for (let t = back.length - 1; t >= 0; t -= 1) {
    label = back[t]![label]!;
    path.push(label);
  }
  return path.reverse();
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
 * Trains a tagger on `sequences` for `epochs` passes with the structured perceptron
 * (Collins 2002): Viterbi-decode each sequence, and where the decoded labels differ from
 * the gold ones, add the gold token/transition features and subtract the decoded ones.
 * Returns averaged weights.
 */
export function trainTagger(fields: string[], sequences: Sequence[], epochs = 6): Tagger {
  const size = 2 * fields.length + 1;
  const ids = new Map<string, number>();
  for (const seq of sequences) for (const fs of seq.features) for (const f of fs) if (!ids.has(f)) ids.set(f, ids.size);
  const encoded = sequences.map((seq) => toIds(seq.features, ids));
  const every = Array.from({ length: size }, (_, k) => k);
  const weights = new Float64Array(ids.size * size);
  const accumulated = new Float64Array(ids.size * size);
  const transitions = new Float64Array((size + 1) * size);
  const transitionsAcc = new Float64Array((size + 1) * size);
  let step = 1;
  const update = (features: Int32Array, label: number, delta: number): void => {
    for (const id of features) {
      weights[id * size + label]! += delta;
      accumulated[id * size + label]! += step * delta;
    }
  };
  const updateTransition = (prev: number, label: number, delta: number): void => {
    transitions[prev * size + label]! += delta;
    transitionsAcc[prev * size + label]! += step * delta;
  };
  const random = mulberry32(20240521);
  const order = sequences.map((_, i) => i);
  for (let epoch = 0; epoch < epochs; epoch += 1) {
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const index of order) {
      const labels = sequences[index]!.labels;
      const features = encoded[index]!;
      const labelSet = sequences[index]!.allowed ?? every;
      const guess = viterbi(emissions(weights, features, size, labelSet), transitions, size, labelSet);
      for (let t = 0; t < guess.length; t += 1) {
        const gold = labels[t]!;
        const goldPrev = t === 0 ? size : labels[t - 1]!;
        const guessPrev = t === 0 ? size : guess[t - 1]!;
        if (guess[t] !== gold) {
          update(features[t]!, gold, 1);
          update(features[t]!, guess[t]!, -1);
        }
        if (guess[t] !== gold || guessPrev !== goldPrev) {
          updateTransition(goldPrev, gold, 1);
          updateTransition(guessPrev, guess[t]!, -1);
        }
      }
      step += 1;
    }
  }
  for (let k = 0; k < weights.length; k += 1) weights[k] = weights[k]! - accumulated[k]! / step;
  for (let k = 0; k < transitions.length; k += 1) transitions[k] = transitions[k]! - transitionsAcc[k]! / step;
  return { fields, ids, weights, transitions };
}

/**
 * A tagged span: field, token range `[from, to)`, and its least per-token margin (score of
 * the chosen label minus that of O, after the same previous label).
 */
export interface TaggedSpan {
  field: string;
  from: number;
  to: number;
  margin: number;
}

/**
 * Tags one sequence of token features (Viterbi) with the `allowed` labels (see
 * {@link allowedLabels}; default every label); returns the spans of every field.
 */
export function tag(tagger: Tagger, features: string[][], allowedSet?: number[]): TaggedSpan[] {
  const size = 2 * tagger.fields.length + 1;
  const labelSet = allowedSet ?? Array.from({ length: size }, (_, k) => k);
  const emit = emissions(tagger.weights, toIds(features, tagger.ids), size, labelSet);
  const labels = viterbi(emit, tagger.transitions, size, labelSet);
  const out: TaggedSpan[] = [];
  let open: TaggedSpan | null = null;
  labels.forEach((label, t) => {
    const prev = t === 0 ? size : labels[t - 1]!;
    const margin = emit[t]![label]! + tagger.transitions[prev * size + label]! - (emit[t]![0]! + tagger.transitions[prev * size]!);
    if (label !== 0 && label % 2 === 0 && open !== null) {
      open.to = t + 1;
      open.margin = Math.min(open.margin, margin);
    } else {
      if (open !== null) out.push(open);
      open = label === 0 ? null : { field: tagger.fields[(label - 1) >> 1]!, from: t, to: t + 1, margin };
    }
  });
  if (open !== null) out.push(open);
  return out;
}
