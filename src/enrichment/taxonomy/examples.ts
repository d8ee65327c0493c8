/**
 * The learned part of category prediction: a catalog's own categorised items as examples
 * ("with the catalog's own categorised items as examples"). A k-nearest-neighbour
 * vote over tf-idf vectors of the examples' texts: the k most similar examples each vote for
 * their category with their cosine similarity. ./classify combines the votes with its term
 * scoring over the taxonomy's node paths.
 */
import type { CategoryExample } from '../types';
import { terms } from './terms';
import type { CompiledTaxonomy } from './tree';

export type { CategoryExample } from '../types';

/** A trained example model (opaque to callers): examples as unit tf-idf vectors and an inverted index. */
export interface CategoryExampleModel {
  categories: string[];
  vectors: Array<Map<string, number>>;
  postings: Map<string, number[]>;
  idf: Map<string, number>;
}

/** Neighbours that vote. */
const K = 10;
/** Cosine similarity below which a neighbour does not vote (tuned on the dev split with a product type left out: docs/evaluation-taxonomy.md). */
const MIN_SIMILARITY = 0.3;

/** A text's tf-idf vector (log tf), unit length; terms without idf (unseen) are dropped. */
function vectorOf(text: string, idf: Map<string, number>): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of terms(text)) if (idf.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
  const v = new Map<string, number>();
  let norm = 0;
  for (const [t, n] of tf) {
    const w = (1 + Math.log(n)) * (idf.get(t) as number);
    v.set(t, w);
    norm += w * w;
  }
  const len = Math.sqrt(norm) || 1;
  for (const [t, w] of v) v.set(t, w / len);
  return v;
}

/**
 * Trains the model on `examples`; examples whose category is not a node of `tax` are left out.
 * Linear in the examples' terms.
 */
export function trainCategoryExamples(tax: CompiledTaxonomy, examples: CategoryExample[]): CategoryExampleModel {
  const kept = examples.filter((e) => tax.nodes.has(e.category_id) && e.text.trim());
  const df = new Map<string, number>();
  for (const e of kept) for (const t of new Set(terms(e.text))) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [t, n] of df) idf.set(t, Math.log(1 + kept.length / n));
  const vectors = kept.map((e) => vectorOf(e.text, idf));
  const postings = new Map<string, number[]>();
  vectors.forEach((v, i) => {
    for (const t of v.keys()) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push(i);
    }
  });
  return { categories: kept.map((e) => e.category_id), vectors, postings, idf };
}

/**
 * The examples' votes for a text: category → sum of the cosine similarities of the (at most
 * {@link K}) most similar examples of that category among the K most similar overall, those
 * less similar than {@link MIN_SIMILARITY} left out.
 * @param kind the stemmed words naming the kind of product the text's own words point to (./classify:
 *   the head of the best-named node's phrase); a neighbour whose text has none of them is similar by
 *   other words ("running", "quick dry", "men") and its vote counts `otherKind` of its similarity
 * @param otherKind share (0–1) of a vote from a neighbour naming none of `kind`
 * @returns votes (empty when no example shares a term with the text)
 */
export function exampleVotes(model: CategoryExampleModel, text: string, kind?: ReadonlySet<string>, otherKind = 1): Map<string, number> {
  const q = vectorOf(text, model.idf);
  const sims = new Map<number, number>();
  for (const [t, w] of q) for (const i of model.postings.get(t) ?? []) sims.set(i, (sims.get(i) ?? 0) + w * (model.vectors[i].get(t) as number));
  const top = [...sims].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, K);
  const votes = new Map<string, number>();
  // A neighbour this far is one by other words ("cycling", "men"), not by the kind of product: it does not vote.
  for (const [i, s] of top) {
    if (s < MIN_SIMILARITY) continue;
    const same = !kind || kind.size === 0 || [...kind].some((t) => model.vectors[i].has(t));
    votes.set(model.categories[i], (votes.get(model.categories[i]) ?? 0) + s * (same ? 1 : otherKind));
  }
  return votes;
}

const models = new WeakMap<CategoryExample[], { tax: CompiledTaxonomy; model: CategoryExampleModel }>();

/**
 * {@link trainCategoryExamples}, trained once per examples array and taxonomy (cached by their
 * identity: every row of a job gets the same arrays, src/services/enrichment/rows/category-examples.ts).
 */
export function categoryExampleModel(tax: CompiledTaxonomy, examples: CategoryExample[]): CategoryExampleModel {
  const hit = models.get(examples);
  if (hit && hit.tax === tax) return hit.model;
  const model = trainCategoryExamples(tax, examples);
  models.set(examples, { tax, model });
  return model;
}
