/**
 * A span reranker: a conditional logit model (McFadden 1973; as a reranker of a tagger's
 * candidates, Collins, "Ranking Algorithms for Named-Entity Extraction: Boosting and the
 * Voted Perceptron", ACL 2002) that chooses among a field's candidate spans, or none, from
 * span-level features a token-level tagger cannot weigh: the tagger's own probability, whether
 * the span is a value the catalog already holds, how often the span stands as a phrase of its
 * own in the catalog's texts (corpus.ts), its length and its place in the title.
 *
 * p(choice i | candidates) = exp(w·f_i) / Σ_j exp(w·f_j), the last choice being "none".
 * Trained by full-batch gradient ascent with AdaGrad step sizes (Duchi, Hazan and Singer,
 * 2011) on the L2-regularised log-likelihood. Deterministic.
 */

/** Sparse feature vector: feature name → value (1 for an indicator). */
export type SparseFeatures = Map<string, number>;

/** One decision: feature vectors of the candidates and of "none", and the right choice (index; `candidates.length` = none). */
export interface RankingList {
  candidates: SparseFeatures[];
  none: SparseFeatures;
  gold: number;
}

/** Learned weights of a {@link Reranker} (feature name → weight). */
export interface Reranker {
  weights: Map<string, number>;
}

/** Training settings: L2 coefficient (per list), iterations, AdaGrad base step. */
const TRAINING = { l2: 10, iterations: 150, step: 0.3 };

/** w·f. */
function dot(weights: Map<string, number>, f: SparseFeatures): number {
  let s = 0;
  for (const [k, v] of f) s += (weights.get(k) ?? 0) * v;
  return s;
}

/** Softmax of `scores` (shifted by their maximum, so large scores do not overflow); sums to 1. */
function softmax(scores: number[]): number[] {
  const max = Math.max(...scores);
  const exps = scores.map((s) => Math.exp(s - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** Softmax of the choices' scores: one probability per candidate, then that of none (sums to 1). */
export function choiceProbabilities(reranker: Reranker, candidates: SparseFeatures[], none: SparseFeatures): number[] {
  return softmax([...candidates, none].map((f) => dot(reranker.weights, f)));
}

/**
 * Trains a {@link Reranker} on `lists` (settings in {@link TRAINING}): maximises
 * Σ log p(gold | list) − (l2/2)·‖w‖² by full-batch gradient ascent with AdaGrad step sizes.
 * Lists without candidates teach nothing and are skipped.
 */
export function trainReranker(lists: RankingList[]): Reranker {
  // Every choice's features flat: list l's choices are listStart[l] … listStart[l + 1] − 1 (none
  // last), choice c's features are featStart[c] … featStart[c + 1] − 1. One pass per iteration
  // over typed arrays, no allocation: the arithmetic, in the same order, of softmax and dot above.
  const ids = new Map<string, number>();
  const kept = lists.filter((l) => l.candidates.length > 0);
  const listStart = new Int32Array(kept.length + 1);
  const gold = Int32Array.from(kept, (l) => l.gold);
  const choices = kept.flatMap((l) => [...l.candidates, l.none]);
  kept.forEach((l, i) => (listStart[i + 1] = listStart[i]! + l.candidates.length + 1));
  const featStart = new Int32Array(choices.length + 1);
  choices.forEach((f, c) => (featStart[c + 1] = featStart[c]! + f.size));
  const featId = new Int32Array(featStart[choices.length]!);
  const featValue = new Float64Array(featId.length);
  choices.forEach((f, c) => {
    let i = featStart[c]!;
    for (const [k, v] of f) {
      if (!ids.has(k)) ids.set(k, ids.size);
      featId[i] = ids.get(k)!;
      featValue[i] = v;
      i += 1;
    }
  });
  const w = new Float64Array(ids.size);
  const squared = new Float64Array(ids.size);
  const gradient = new Float64Array(ids.size);
  const score = new Float64Array(Math.max(0, ...kept.map((l) => l.candidates.length + 1)));
  for (let it = 0; it < TRAINING.iterations; it += 1) {
    gradient.fill(0);
    for (let l = 0; l < kept.length; l += 1) {
      const c0 = listStart[l]!;
      const n = listStart[l + 1]! - c0;
      let max = -Infinity;
      for (let c = 0; c < n; c += 1) {
        let s = 0;
        for (let i = featStart[c0 + c]!; i < featStart[c0 + c + 1]!; i += 1) s += w[featId[i]!]! * featValue[i]!;
        score[c] = s;
        if (s > max) max = s;
      }
      let total = 0;
      for (let c = 0; c < n; c += 1) {
        score[c] = Math.exp(score[c]! - max);
        total += score[c]!;
      }
      for (let c = 0; c < n; c += 1) {
        const by = (c === gold[l] ? 1 : 0) - score[c]! / total;
        for (let i = featStart[c0 + c]!; i < featStart[c0 + c + 1]!; i += 1) gradient[featId[i]!]! += by * featValue[i]!;
      }
    }
    for (let k = 0; k < w.length; k += 1) {
      const g = gradient[k]! - TRAINING.l2 * w[k]!;
      squared[k]! += g * g;
      if (squared[k]! > 0) w[k]! += (TRAINING.step * g) / Math.sqrt(squared[k]!);
    }
  }
  return { weights: new Map([...ids].map(([k, id]) => [k, w[id]!])) };
}
