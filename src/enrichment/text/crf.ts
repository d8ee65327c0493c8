/**
 * A linear-chain conditional random field (Lafferty, McCallum and Pereira, "Conditional Random
 * Fields: Probabilistic Models for Segmenting and Labeling Sequence Data", ICML 2001) over the
 * BIO labels of tagger.ts, trained at run time on the user's catalog. Label 0 is O, label 2k+1
 * is B of field k, 2k+2 is I of field k; an I label may only continue a B or I of the same
 * field, and a sequence may be restricted to its `allowed` labels (see allowedLabels).
 *
 * Training maximises the L2-regularised conditional log-likelihood by stochastic gradient
 * descent as CRFsuite's `l2sgd` does (Okazaki, "CRFsuite", 2007; learning rate
 * η_t = 1/(λ·(t0 + t)) after Bottou, "Stochastic Gradient Descent Tricks", 2012, with the
 * weights stored as scale × vector so the regulariser's decay stays O(1) per example and each
 * update touches only the example's features). Marginals come from scaled forward-backward
 * (Rabiner 1989). Decoding proposes the spans of the Viterbi path, of the per-token most
 * probable labels and each field's most probable span, and gives each its exact posterior
 * probability (see crf-spans.ts `tag`). Deterministic: the training order comes from a seeded
 * generator.
 */
import type { Sequence } from './tagger';
import { seededRandom } from '../../lib/random';

/**
 * A trained CRF over `fields` (`size` = 2·fields + 1 labels). As CRFsuite by default
 * (`feature.possible_states=0`, `feature.possible_transitions=0`), only the feature/label pairs
 * and label bigrams seen in the training labels carry weights; every other pair weighs 0.
 * `ids` numbers the token features seen in training; feature `id`'s pairs are
 * `offsets[id]` … `offsets[id + 1] − 1`, pair `p` giving label `pairLabels[p]` the
 * log-potential `weights[p]`. `transitions[prev * size + label]` is a label bigram's
 * log-potential (prev = `size` at the start; 0 when unseen) and `bigrams` lists the seen
 * bigrams as `prev * size + label`.
 */
export interface Crf {
  fields: string[];
  ids: Map<string, number>;
  offsets: Int32Array;
  pairLabels: Int32Array;
  weights: Float64Array;
  transitions: Float64Array;
  bigrams: Int32Array;
}

/**
 * Training settings: L2 coefficient `c` = 3 (CRFsuite's `c2`), 15 passes, end-of-epoch weights
 * averaged from pass 5 (1-based) on, first learning rate η_0 = 0.1 (t0 = 1/(λ·η_0)).
 * `heldOutEpochs`: passes of the cross-fitting taggers (model.ts), which only propose held-out
 * spans for choosing field policies and training the reranker: 8 passes there cost 0.001 F1 or
 * less on the text evaluation against 15 (docs/evaluation-history.md, "Speed of text-only jobs").
 */
export const TRAINING = { c: 3, epochs: 15, heldOutEpochs: 8, averageFrom: 5, eta0: 0.1 };

/** An I label may only continue a B or I of the same field; prev `size` (start) counts as O. */
function allowed(prev: number, label: number): boolean {
  return label === 0 || label % 2 === 1 || prev === label || prev === label - 1;
}

/** Feature ids of each token's features; features without an id are skipped. */
function toIds(features: string[][], ids: Map<string, number>): Int32Array[] {
  return features.map((fs) => Int32Array.from(fs.flatMap((f) => (ids.has(f) ? [ids.get(f)!] : []))));
}

/** The feature/label pair weights of a {@link Crf} (see there). */
interface Pairs {
  offsets: Int32Array;
  pairLabels: Int32Array;
}

/**
 * Buffers a training reuses for every sequence it visits (the emissions and the lattice's
 * arrays, grown to the longest sequence): without them each visit allocates six arrays, and
 * the garbage collector took a tenth of a training's time (profile of bench/text-job.ts).
 * Only the first `n × size` entries (`n` entries of `scale`) of each are meaningful.
 */
interface LatticeBuffers {
  emit: Float64Array;
  E: Float64Array;
  alpha: Float64Array;
  beta: Float64Array;
  scale: Float64Array;
  next: Float64Array;
}

/** `buffers` when they hold `n` tokens of `size` labels, otherwise new ones that do. */
function latticeBuffers(n: number, size: number, buffers?: LatticeBuffers): LatticeBuffers {
  if (buffers && buffers.scale.length >= n) return buffers;
  const cells = Math.max(n, 1) * size;
  return {
    emit: new Float64Array(cells),
    E: new Float64Array(cells),
    alpha: new Float64Array(cells),
    beta: new Float64Array(cells),
    scale: new Float64Array(Math.max(n, 1)),
    next: new Float64Array(size),
  };
}

/**
 * Label scores (log-potentials) of every token, flat: `out[t * size + k]` (labels without a
 * pair stay 0), pair weights multiplied by `scale`; written into `into` (its first
 * `features.length × size` entries) when given.
 */
function emissions(pairs: Pairs, weights: Float64Array, scale: number, features: Int32Array[], size: number, into?: Float64Array): Float64Array {
  const { offsets, pairLabels } = pairs;
  const cells = features.length * size;
  const out = into ? into.fill(0, 0, cells) : new Float64Array(cells);
  // Indexed loops, no closures: this and the training's updates are most of a training's time.
  for (let t = 0; t < features.length; t += 1) {
    const ids = features[t]!;
    const row = t * size;
    for (let f = 0; f < ids.length; f += 1) {
      const id = ids[f]!;
      const end = offsets[id + 1]!;
      for (let p = offsets[id]!; p < end; p += 1) out[row + pairLabels[p]!]! += weights[p]!;
    }
  }
  if (scale !== 1) for (let i = 0; i < cells; i += 1) out[i]! *= scale;
  return out;
}

/**
 * Scaled forward-backward lattice of one sequence (Rabiner, "A Tutorial on Hidden Markov
 * Models", Proc. IEEE 1989, §V.A), flat per token (`x[t * size + k]`): potentials `E` =
 * exp(emission − the token's largest emission) and `T[prev * size + k]` = exp(transition) (0
 * where the BIO constraint forbids the pair or a label is not in `labels`; prev `size` =
 * start); `alpha` = forward scores normalised to sum 1 per token with `scale[t]` the
 * normaliser, `beta` = backward scores divided by the later normalisers. Then
 * p(y_t = k) = alpha[t][k]·beta[t][k] and
 * p(y_t−1 = j, y_t = k) = alpha[t−1][j]·T[j,k]·E[t][k]·beta[t][k]/scale[t].
 */
export interface Lattice {
  E: Float64Array;
  T: Float64Array;
  alpha: Float64Array;
  beta: Float64Array;
  scale: Float64Array;
}

/**
 * The seen bigrams into and out of O and B labels within `labels` (start included as prev
 * `size`; see {@link Crf}): `into[k]` the prevs j of (j, k), `outOf[j]` the labels k of
 * (j, k). Bigrams into an I label are not listed: an I has only two predecessors, read directly.
 */
export interface SeenBigrams {
  into: Int32Array[];
  outOf: Int32Array[];
  /** Seen bigrams `prev * size + label` whose ends are both within the labels (start included) and allowed. */
  inside: Int32Array;
  /**
   * Bigram potentials `(size + 1) × size`: 1 for the unseen bigrams that are allowed within the
   * labels, 0 for those not allowed; the `inside` entries are rewritten by every lattice.
   */
  potentials: Float64Array;
}

/** The {@link SeenBigrams} of `bigrams` (see {@link Crf}) within `labels`. */
function seenBigrams(bigrams: Int32Array, size: number, labels: number[]): SeenBigrams {
  const inSet = new Uint8Array(size + 1);
  for (const k of labels) inSet[k] = 1;
  inSet[size] = 1;
  const into: number[][] = Array.from({ length: size }, () => []);
  const outOf: number[][] = Array.from({ length: size + 1 }, () => []);
  const inside: number[] = [];
  for (const b of bigrams) {
    const j = Math.floor(b / size);
    const k = b - j * size;
    if (!inSet[j] || !inSet[k] || !allowed(j, k)) continue;
    inside.push(b);
    if (k !== 0 && k % 2 === 0) continue;
    into[k]!.push(j);
    outOf[j]!.push(k);
  }
  const potentials = new Float64Array((size + 1) * size);
  for (const j of [...labels, size]) for (const k of labels) if (allowed(j, k)) potentials[j * size + k] = 1;
  return { into: into.map((x) => Int32Array.from(x)), outOf: outOf.map((x) => Int32Array.from(x)), inside: Int32Array.from(inside), potentials };
}

/**
 * Builds the {@link Lattice} of `emit` (flat log-potentials, see {@link emissions}) under
 * `transitions` over the `labels`, in O(labels + seen bigrams) per token: every unseen bigram
 * into an O or B label has potential exp(0) = 1, so its share of a sum is the sum of all
 * scores, corrected for the seen bigrams (`seen`); an I label sums its two predecessors
 * directly. `n` tokens; the arrays are `buffers`' (see {@link LatticeBuffers}) and `T` is
 * `seen.potentials`, valid until the next lattice of the same `seen` or buffers.
 */
function lattice(
  emit: Float64Array,
  n: number,
  transitions: Float64Array,
  seen: SeenBigrams,
  size: number,
  labels: number[],
  buffers: LatticeBuffers,
): Lattice {
  const { into, outOf } = seen;
  // Unseen bigrams weigh 0 (potential 1): only the seen ones need exp.
  const T = seen.potentials;
  const inside = seen.inside;
  for (let i = 0; i < inside.length; i += 1) T[inside[i]!] = Math.exp(transitions[inside[i]!]!);
  const cells = n * size;
  const E = buffers.E.fill(0, 0, cells);
  const alpha = buffers.alpha.fill(0, 0, cells);
  const beta = buffers.beta.fill(0, 0, cells);
  const scale = buffers.scale;
  const L = labels.length;
  for (let t = 0; t < n; t += 1) {
    const row = t * size;
    let max = -Infinity;
    for (let x = 0; x < L; x += 1) if (emit[row + labels[x]!]! > max) max = emit[row + labels[x]!]!;
    for (let x = 0; x < L; x += 1) E[row + labels[x]!] = Math.exp(emit[row + labels[x]!]! - max);
    const prev = row - size;
    let total = 0;
    for (let x = 0; x < L; x += 1) {
      const k = labels[x]!;
      let sum: number;
      if (t === 0) sum = T[size * size + k]!;
      else if (k !== 0 && k % 2 === 0) sum = alpha[prev + k - 1]! * T[(k - 1) * size + k]! + alpha[prev + k]! * T[k * size + k]!;
      else {
        // alpha[t − 1] sums to 1 over the labels.
        sum = 1;
        const js = into[k]!;
        for (let y = 0; y < js.length; y += 1) {
          const j = js[y]!;
          if (j !== size) sum += alpha[prev + j]! * (T[j * size + k]! - 1);
        }
      }
      const a = sum * E[row + k]!;
      alpha[row + k] = a;
      total += a;
    }
    for (let x = 0; x < L; x += 1) alpha[row + labels[x]!]! /= total;
    scale[t] = total;
  }
  if (n > 0) for (let x = 0; x < L; x += 1) beta[(n - 1) * size + labels[x]!] = 1;
  const next = buffers.next;
  for (let t = n - 2; t >= 0; t -= 1) {
    const row = t * size;
    const after = row + size;
    let open = 0;
    for (let x = 0; x < L; x += 1) {
      const k = labels[x]!;
      next[k] = (E[after + k]! * beta[after + k]!) / scale[t + 1]!;
      if (k === 0 || k % 2 === 1) open += next[k]!;
    }
    for (let x = 0; x < L; x += 1) {
      const j = labels[x]!;
      let sum = open;
      const base = j * size;
      const ks = outOf[j]!;
      for (let y = 0; y < ks.length; y += 1) sum += (T[base + ks[y]!]! - 1) * next[ks[y]!]!;
      // The I of j's own field (B_f → I_f, I_f → I_f), when allowed.
      if (j !== 0) {
        const i = j % 2 === 1 ? j + 1 : j;
        sum += T[base + i]! * next[i]!;
      }
      beta[row + j] = sum;
    }
  }
  return { E, T, alpha, beta, scale };
}

/**
 * Best label sequence under emission plus transition scores (Viterbi) over the `labels`
 * allowed, with the BIO constraint (see {@link allowed}); prev index `size` stands for the
 * sequence start. Ties go to the predecessor that comes first in `labels`. In O(labels ·
 * log labels + seen bigrams) per token rather than O(labels²): every label may precede an O or
 * B label, and an unseen bigram weighs 0, so an O or B label's best predecessor is the best of
 * its seen predecessors (`seen.into`, with their transitions) and of the highest-scoring
 * label whose bigram into it is unseen; an I label has two predecessors, read directly.
 * Long on purpose: one tight loop over flat typed arrays (the decoder's hot path).
 */
export function viterbi(emit: Float64Array, transitions: Float64Array, size: number, labels: number[], seen: SeenBigrams): number[] {
  const n = emit.length / size;
  if (n === 0) return [];
  const L = labels.length;
  // A label's place in `labels`, for ties; -1 when not allowed.
  const place = new Int32Array(size + 1).fill(-1);
  labels.forEach((k, x) => (place[k] = x));
  // Labels whose bigram into the current label is seen (marked with that label).
  const mark = new Int32Array(size).fill(-1);
  // The TOP highest-scoring labels of the previous token, best first (ties by place).
  const top = new Int32Array(Math.min(TOP, L));
  const back: Int32Array[] = [];
  let score = new Float64Array(size).fill(-Infinity);
  for (const k of labels) score[k] = allowed(size, k) ? emit[k]! + transitions[size * size + k]! : -Infinity;
  /** True when label a (score va) beats label b (score vb): higher, or equal and earlier in `labels`. */
  const beats = (va: number, a: number, vb: number, b: number): boolean => va > vb || (va === vb && place[a]! < place[b]!);
  for (let t = 1; t < n; t += 1) {
    const next = new Float64Array(size).fill(-Infinity);
    const from = new Int32Array(size);
    const prev = score;
    let filled = 0;
    for (let x = 0; x < L; x += 1) {
      const j = labels[x]!;
      if (filled === top.length && !beats(prev[j]!, j, prev[top[filled - 1]!]!, top[filled - 1]!)) continue;
      let y = filled === top.length ? filled - 1 : filled++;
      while (y > 0 && beats(prev[j]!, j, prev[top[y - 1]!]!, top[y - 1]!)) {
        top[y] = top[y - 1]!;
        y -= 1;
      }
      top[y] = j;
    }
    for (let x = 0; x < L; x += 1) {
      const k = labels[x]!;
      let best = -Infinity;
      let arg = -1;
      if (k !== 0 && k % 2 === 0) {
        // An I label: its own B, or itself.
        for (let j = k - 1; j <= k; j += 1) {
          if (place[j]! < 0) continue;
          const v = prev[j]! + transitions[j * size + k]!;
          if (v > -Infinity && (arg < 0 || beats(v, j, best, arg))) {
            best = v;
            arg = j;
          }
        }
      } else {
        const into = seen.into[k]!;
        for (let y = 0; y < into.length; y += 1) {
          const j = into[y]!;
          if (j === size || place[j]! < 0) continue;
          mark[j] = k;
          const v = prev[j]! + transitions[j * size + k]!;
          if (v > -Infinity && (arg < 0 || beats(v, j, best, arg))) {
            best = v;
            arg = j;
          }
        }
        // The best label whose bigram into k is unseen (weight 0): among the top ones, else any.
        let unseen = -1;
        for (let y = 0; y < filled && unseen < 0; y += 1) if (mark[top[y]!] !== k) unseen = top[y]!;
        if (unseen < 0)
          for (let y = 0; y < L; y += 1)
            if (mark[labels[y]!] !== k && (unseen < 0 || beats(prev[labels[y]!]!, labels[y]!, prev[unseen]!, unseen))) unseen = labels[y]!;
        if (unseen >= 0 && prev[unseen]! > -Infinity && (arg < 0 || beats(prev[unseen]!, unseen, best, arg))) {
          best = prev[unseen]!;
          arg = unseen;
        }
      }
      next[k] = (arg < 0 ? -Infinity : best) + emit[t * size + k]!;
      if (arg >= 0) from[k] = arg;
    }
    back.push(from);
    score = next;
  }
  let label = labels[0]!;
  for (const k of labels) if (score[k]! > score[label]!) label = k;
  const path = [label];
  for (let t = back.length - 1; t >= 0; t -= 1) {
    label = back[t]![label]!;
    path.push(label);
  }
  return path.reverse();
}

/** How many of the previous token's best labels {@link viterbi} keeps at hand (more only when an O or B label has that many seen predecessors among them). */
const TOP = 8;

/**
 * The features, feature/label pairs and label bigrams of `sequences`' training labels (see
 * {@link Crf}): features numbered in order of first appearance, each feature's pairs and the
 * bigrams sorted by label.
 */
function structure(sequences: Sequence[], size: number): { ids: Map<string, number>; offsets: Int32Array; pairLabels: Int32Array; bigrams: Int32Array } {
  const ids = new Map<string, number>();
  const labelsOf: Array<Set<number>> = [];
  const bigrams = new Set<number>();
  for (const seq of sequences) {
    seq.features.forEach((fs, t) => {
      const y = seq.labels[t]!;
      bigrams.add((t === 0 ? size : seq.labels[t - 1]!) * size + y);
      for (const f of fs) {
        let id = ids.get(f);
        if (id === undefined) {
          id = ids.size;
          ids.set(f, id);
          labelsOf.push(new Set());
        }
        labelsOf[id]!.add(y);
      }
    });
  }
  const offsets = new Int32Array(ids.size + 1);
  labelsOf.forEach((set, id) => (offsets[id + 1] = offsets[id]! + set.size));
  const pairLabels = new Int32Array(offsets[ids.size]!);
  labelsOf.forEach((set, id) =>
    pairLabels.set(
      [...set].sort((a, b) => a - b),
      offsets[id]!,
    ),
  );
  return { ids, offsets, pairLabels, bigrams: Int32Array.from([...bigrams].sort((a, b) => a - b)) };
}

/**
 * Trains a CRF for `fields` on `sequences` by SGD on the L2-regularised log-likelihood
 * (CRFsuite `l2sgd`; settings in {@link TRAINING}): per example the objective is
 * log p(y|x) − c·‖w‖²/(2N) (N = number of sequences, λ = c/N), the rate is
 * η_t = 1/(λ·(t0 + t)) with t0 = 1/(λ·η_0), examples are visited in a seeded shuffled order
 * each of the `epochs` passes (default 15), and the result is the average of the end-of-epoch
 * weights from pass 5 on. Weights exist only for the feature/label pairs and label bigrams of the
 * training labels (CRFsuite's defaults, see {@link Crf}). Gradient = observed minus expected
 * counts (token marginals for feature/label pairs, pair marginals for bigrams), restricted to
 * each sequence's `allowed` labels.
 * Long on purpose: the SGD epochs share the weight buffers and scale; split, they would pass a dozen typed arrays around.
 */
export function trainCrf(fields: string[], sequences: Sequence[], epochs = TRAINING.epochs): Crf {
  const { c, averageFrom, eta0 } = TRAINING;
  const size = 2 * fields.length + 1;
  const { ids, offsets, pairLabels, bigrams } = structure(sequences, size);
  const pairs = { offsets, pairLabels };
  const encoded = sequences.map((seq) => toIds(seq.features, ids));
  const every = Array.from({ length: size }, (_, k) => k);
  // Real weights = scale × (weights, transitions): the L2 decay multiplies `scale` only.
  const weights = new Float64Array(pairLabels.length);
  const transitions = new Float64Array((size + 1) * size);
  const avgWeights = new Float64Array(weights.length);
  const avgTransitions = new Float64Array(transitions.length);
  let averaged = 0;
  let scale = 1;
  const lambda = c / Math.max(sequences.length, 1);
  const t0 = 1 / (lambda * eta0);
  const real = new Float64Array(transitions.length);
  const random = seededRandom(20240521);
  const order = sequences.map((_, i) => i);
  // Token marginals (0 for labels outside the sequence's `allowed`).
  const marg = new Float64Array(size);
  // The seen bigrams from the start (prev = size), and the others with their ends.
  const start = bigrams.filter((b) => b >= size * size);
  const inner = bigrams.filter((b) => b < size * size);
  const innerFrom = Int32Array.from(inner, (b) => Math.floor(b / size));
  const innerTo = Int32Array.from(inner, (b, i) => b - innerFrom[i]! * size);
  // Seen bigrams per distinct `allowed` label set (by identity: a group shares its array).
  const seenFor = new Map<number[], SeenBigrams>();
  let buffers: LatticeBuffers | undefined;
  let step = 0;
  for (let epoch = 1; epoch <= epochs; epoch += 1) {
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const index of order) {
      const gold = sequences[index]!.labels;
      const features = encoded[index]!;
      if (features.length === 0) continue;
      const labels = sequences[index]!.allowed ?? every;
      let seen = seenFor.get(labels);
      if (!seen) seenFor.set(labels, (seen = seenBigrams(bigrams, size, labels)));
      const eta = 1 / (lambda * (t0 + step));
      step += 1;
      // Π(1 − η_t·λ) = t0/(t0 + steps) ≥ 1/(1 + c·η_0·epochs) ≈ 0.18: no renormalisation needed.
      scale *= 1 - eta * lambda;
      for (const b of bigrams) real[b] = transitions[b]! * scale;
      buffers = latticeBuffers(features.length, size, buffers);
      const emit = emissions(pairs, weights, scale, features, size, buffers.emit);
      const { E, T, alpha, beta, scale: norm } = lattice(emit, features.length, real, seen, size, labels, buffers);
      const gain = eta / scale;
      for (let t = 0; t < features.length; t += 1) {
        const row = t * size;
        if (labels.length !== size) marg.fill(0);
        for (const k of labels) marg[k] = alpha[row + k]! * beta[row + k]!;
        const y = gold[t]!;
        const ids = features[t]!;
        for (let f = 0; f < ids.length; f += 1) {
          const id = ids[f]!;
          const end = offsets[id + 1]!;
          for (let p = offsets[id]!; p < end; p += 1) {
            const k = pairLabels[p]!;
            weights[p]! += gain * ((k === y ? 1 : 0) - marg[k]!);
          }
        }
        transitions[(t === 0 ? size : gold[t - 1]!) * size + y]! += gain;
        if (t === 0) {
          for (let b = 0; b < start.length; b += 1) transitions[start[b]!]! -= gain * marg[start[b]! - size * size]!;
          continue;
        }
        const prev = row - size;
        const g = gain / norm[t]!;
        for (let b = 0; b < inner.length; b += 1) {
          const bigram = inner[b]!;
          const k = innerTo[b]!;
          const tb = T[bigram]!;
          if (tb !== 0) transitions[bigram]! -= g * alpha[prev + innerFrom[b]!]! * tb * E[row + k]! * beta[row + k]!;
        }
      }
    }
    if (epoch >= averageFrom) {
      for (let k = 0; k < weights.length; k += 1) avgWeights[k]! += weights[k]! * scale;
      for (const b of bigrams) avgTransitions[b]! += transitions[b]! * scale;
      averaged += 1;
    }
  }
  for (let k = 0; k < weights.length; k += 1) avgWeights[k]! /= averaged;
  for (const b of bigrams) avgTransitions[b]! /= averaged;
  return { fields, ids, offsets, pairLabels, weights: avgWeights, transitions: avgTransitions, bigrams };
}

/**
 * Posterior label marginals of one sequence of token features: `out[t][k]` = p(y_t = k | x)
 * (0 for labels outside `allowedSet`, default every label; each row sums to 1).
 */
export function marginals(crf: Crf, features: string[][], allowedSet?: number[]): Float64Array[] {
  const {
    size,
    lattice: { alpha, beta },
  } = posterior(crf, features, allowedSet);
  return features.map((_, t) => Float64Array.from({ length: size }, (_x, k) => alpha[t * size + k]! * beta[t * size + k]!));
}

/**
 * The label space (`size` labels, the `labels` allowed: `allowedSet`, default every label),
 * emissions, seen bigrams and forward-backward {@link Lattice} of one sequence of token features under a
 * trained CRF: what {@link marginals} and crf-spans.ts `tag` read.
 */
export function posterior(
  crf: Crf,
  features: string[][],
  allowedSet?: number[],
): { size: number; labels: number[]; emit: Float64Array; seen: SeenBigrams; lattice: Lattice } {
  const size = 2 * crf.fields.length + 1;
  const labels = allowedSet ?? Array.from({ length: size }, (_, k) => k);
  const emit = emissions(crf, crf.weights, 1, toIds(features, crf.ids), size);
  const n = features.length;
  const seen = seenBigrams(crf.bigrams, size, labels);
  return { size, labels, emit, seen, lattice: lattice(emit, n, crf.transitions, seen, size, labels, latticeBuffers(n, size)) };
}
