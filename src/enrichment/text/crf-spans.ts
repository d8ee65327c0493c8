/**
 * Decoding of a trained CRF (./crf.ts) into candidate spans: the spans of the Viterbi path, of
 * the per-token most probable labels and each field's most probable spans, each with its exact
 * posterior probability from forward-backward (Rabiner 1989).
 */
import { posterior, viterbi, type Crf } from './crf';

/** A tagged span: field, token range `[from, to)`, and its posterior probability (0–1, see {@link tag}). */
export interface TaggedSpan {
  field: string;
  from: number;
  to: number;
  probability: number;
}

/** Maximal B/I runs `[from, to, label of B]` of a label path (an I without its B starts nothing). */
function runs(path: number[]): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let t = 0; t < path.length; t += 1) {
    const b = path[t]!;
    if (b === 0 || b % 2 === 0) continue;
    let to = t + 1;
    while (to < path.length && path[to] === b + 1) to += 1;
    out.push([t, to, b]);
  }
  return out;
}

/** Longest span, in tokens, {@link tag} searches for a field's most probable span. */
const MAX_SPAN = 8;

/** Most probable spans per field that {@link tag} proposes (besides those of the best paths). */
const PER_FIELD = 4;

/** Least marginal of a field's B label at a token for {@link tag} to search spans starting there. */
const MIN_START = 0.01;

/**
 * Spans of one sequence of token features under the `allowed` labels (see allowedLabels;
 * default every label), each once: the maximal spans of the Viterbi path and of the per-token
 * most probable labels, and for every field its {@link PER_FIELD} most probable spans among
 * those of at most {@link MAX_SPAN} tokens starting where its B label has a marginal of at
 * least {@link MIN_START} (so that a field the best path leaves out still gets its likeliest
 * span, for the caller's threshold to judge, and a reranker gets the nearest alternatives).
 * Each span comes with its posterior probability
 * p(y_from = B, y_from+1..to−1 = I, y_to ≠ I | x) of its field's labels (forward-backward:
 * the value is exactly this span, neither longer nor shorter). Sorted by probability, highest
 * first.
 */
export function tag(crf: Crf, features: string[][], allowedSet?: number[]): TaggedSpan[] {
  const {
    size,
    labels,
    emit,
    seen: bigramsSeen,
    lattice: { E, T, alpha, beta, scale },
  } = posterior(crf, features, allowedSet);
  const n = emit.length / size;
  if (n === 0) return [];
  const marginal = (t: number, k: number): number => alpha[t * size + k]! * beta[t * size + k]!;
  // The end factor of a span whose last label is `last` and which stops before token `to`
  // depends on those two only: computed once each (NaN = not yet).
  const ends = new Float64Array((size + 1) * (n + 1)).fill(NaN);
  /** Posterior probability of span [from, to) with B label b (see the lattice's identities). */
  const probability = (from: number, to: number, b: number): number => {
    let p = alpha[from * size + b]!;
    for (let t = from + 1; t < to; t += 1) p *= (T[(t === from + 1 ? b : b + 1) * size + b + 1]! * E[t * size + b + 1]!) / scale[t]!;
    if (to < n) {
      const last = to - 1 === from ? b : b + 1;
      let end = ends[last * (n + 1) + to]!;
      if (Number.isNaN(end)) {
        end = 0;
        for (let x = 0; x < labels.length; x += 1) {
          const k = labels[x]!;
          if (k !== b + 1) end += T[last * size + k]! * E[to * size + k]! * beta[to * size + k]!;
        }
        ends[last * (n + 1) + to] = end;
      }
      p *= end / scale[to]!;
    }
    return Math.min(1, p);
  };
  const best = Array.from({ length: n }, (_, t) => {
    let m = labels[0]!;
    for (let x = 1; x < labels.length; x += 1) if (marginal(t, labels[x]!) > marginal(t, m)) m = labels[x]!;
    return m;
  });
  const likeliest: Array<[number, number, number]> = [];
  for (const b of labels.filter((k) => k % 2 === 1)) {
    const spans: Array<[number, number, number, number]> = [];
    for (let from = 0; from < n; from += 1) {
      if (marginal(from, b) < MIN_START) continue;
      for (let to = from + 1; to <= Math.min(n, from + MAX_SPAN); to += 1) spans.push([from, to, b, probability(from, to, b)]);
    }
    spans.sort((x, y) => y[3] - x[3] || x[0] - y[0] || x[1] - y[1]);
    for (const [from, to] of spans.slice(0, PER_FIELD)) likeliest.push([from, to, b]);
  }
  const seen = new Set<string>();
  const out: TaggedSpan[] = [];
  for (const [from, to, b] of [...runs(viterbi(emit, crf.transitions, size, labels, bigramsSeen)), ...runs(best), ...likeliest]) {
    const key = `${from}:${to}:${b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: crf.fields[(b - 1) >> 1]!, from, to, probability: probability(from, to, b) });
  }
  return out.sort((x, y) => y.probability - x.probability || x.from - y.from);
}
