/**
 * Category prediction without an LLM (interface-spec.md `predict_taxonomy`): the item's
 * evidence is matched against every node's own name (and, weaker, its description) with
 * idf-weighted term overlap, and a node inherits half the evidence of its ancestors, so a
 * deep node wins when its own name and its path both match. When two branches score alike,
 * the answer backs off to their deepest common ancestor (the deepest node that is still
 * certain). Deterministic: ties go to the shallower node, then the smaller id.
 */
import { terms } from './terms';
import type { CompiledTaxonomy, TaxonomyNode } from './tree';

/** What the classifier reads about an item. All fields are plain texts. */
export interface CategoryEvidence {
  /** Names/titles of the item (input name, matched pages' product names). */
  titles: string[];
  /** Category statements: breadcrumbs or category paths ("Furniture > Tables"), item category fields. */
  categories: string[];
  /** Free text: descriptions (read with a low weight, first 80 terms each). */
  texts: string[];
}

/** A scored node. */
export interface ScoredNode {
  id: string;
  path: string[];
  score: number;
}

/** The classifier's answer. */
export interface CategoryPrediction {
  /** The chosen node. */
  node: ScoredNode;
  confidence: 'high' | 'medium' | 'low';
  /** The best node of another branch, when there is one. */
  alternative?: ScoredNode;
  /** The more specific node that was not certain enough (when the answer backed off to an ancestor). */
  backed_off_from?: ScoredNode;
  /** The evidence terms that matched the chosen path. */
  matched: string[];
}

/** Source weights: a stated category > the item's title > free text. */
const WEIGHT = { categories: 1.2, titles: 1, texts: 0.35 } as const;
/** Share of an ancestor's own evidence a node inherits. */
const INHERIT = 0.5;
/** Weight of a node description's overlap relative to its name. */
const DESCRIPTION = 0.3;
/** Exponent of name coverage: a node whose name is only partly in the evidence scores less. */
const COVERAGE = 1;
/** Weight of the branch evidence: item terms that occur anywhere in the node's top-level branch. */
const BRANCH = 0.5;
/** Runner-up/best score ratios separating high, medium and low confidence. */
const CLEAR = 0.6;
const AMBIGUOUS = 0.85;
/** Share of the item's known terms the chosen path must explain for high confidence (half of it for medium). */
const EXPLAINED = 0.5;

interface Index {
  /** Terms of every name in a root's subtree (the branch's vocabulary). */
  branchTerms: Map<string, Set<string>>;
  nameTerms: Map<string, string[]>;
  descTerms: Map<string, string[]>;
  postings: Map<string, string[]>;
  idf: Map<string, number>;
}

const indexes = new WeakMap<CompiledTaxonomy, Index>();

function indexOf(tax: CompiledTaxonomy): Index {
  const hit = indexes.get(tax);
  if (hit) return hit;
  const nameTerms = new Map<string, string[]>();
  const descTerms = new Map<string, string[]>();
  const postings = new Map<string, string[]>();
  const df = new Map<string, number>();
  for (const node of tax.nodes.values()) {
    const name = [...new Set(terms(node.name))];
    const desc = [...new Set(terms(node.description ?? ''))].filter((t) => !name.includes(t));
    nameTerms.set(node.id, name);
    descTerms.set(node.id, desc);
    for (const t of [...name, ...desc]) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push(node.id);
    }
    for (const t of name) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const branchTerms = new Map<string, Set<string>>();
  for (const node of tax.nodes.values()) {
    let vocab = branchTerms.get(node.path_ids[0]);
    if (!vocab) branchTerms.set(node.path_ids[0], (vocab = new Set()));
    for (const t of nameTerms.get(node.id) ?? []) vocab.add(t);
  }
  const n = tax.nodes.size;
  const idf = new Map<string, number>();
  for (const t of postings.keys()) idf.set(t, Math.log(1 + n / (df.get(t) ?? 1)));
  const index = { branchTerms, nameTerms, descTerms, postings, idf };
  indexes.set(tax, index);
  return index;
}

/** Query term → weight (the strongest source that mentions it). */
function queryOf(evidence: CategoryEvidence): Map<string, number> {
  const q = new Map<string, number>();
  const add = (texts: string[], w: number, cap: number): void => {
    for (const text of texts) for (const t of terms(text).slice(0, cap)) q.set(t, Math.max(q.get(t) ?? 0, w));
  };
  add(evidence.texts, WEIGHT.texts, 80);
  add(evidence.titles, WEIGHT.titles, 60);
  add(evidence.categories, WEIGHT.categories, 40);
  return q;
}

function ownScore(index: Index, id: string, q: Map<string, number>): number {
  const name = index.nameTerms.get(id) ?? [];
  let matched = 0;
  let total = 0;
  let covered = 0;
  for (const t of name) {
    const idf = index.idf.get(t) ?? 0;
    total += idf;
    const w = q.get(t);
    if (w !== undefined) {
      matched += w * idf;
      covered += idf;
    }
  }
  const nameScore = total > 0 ? matched * (covered / total) ** COVERAGE : 0;
  let desc = 0;
  for (const t of index.descTerms.get(id) ?? []) desc += (q.get(t) ?? 0) * (index.idf.get(t) ?? 0);
  return nameScore + DESCRIPTION * desc;
}

function better(a: { score: number; node: TaxonomyNode }, b: { score: number; node: TaxonomyNode }): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.node.level !== b.node.level) return a.node.level < b.node.level;
  return a.node.id < b.node.id;
}

/**
 * Classifies an item into a compiled taxonomy.
 * @returns the prediction, or null when no evidence term matches any node
 */
export function classify(tax: CompiledTaxonomy, evidence: CategoryEvidence): CategoryPrediction | null {
  const index = indexOf(tax);
  const q = queryOf(evidence);
  const own = new Map<string, number>();
  for (const t of q.keys()) for (const id of index.postings.get(t) ?? []) if (!own.has(id)) own.set(id, ownScore(index, id, q));
  const branch = new Map<string, number>();
  for (const [root, vocab] of index.branchTerms) {
    let b = 0;
    for (const [t, w] of q) if (vocab.has(t)) b += w * (index.idf.get(t) ?? 0);
    branch.set(root, b);
  }
  const scored: Array<{ score: number; node: TaxonomyNode }> = [];
  for (const [id, s] of own) {
    const node = tax.nodes.get(id);
    if (!node || s <= 0) continue;
    const inherited = node.path_ids.slice(0, -1).reduce((sum, a) => sum + (own.get(a) ?? 0), 0);
    scored.push({ score: s + INHERIT * inherited + BRANCH * (branch.get(node.path_ids[0]) ?? 0), node });
  }
  if (scored.length === 0) return null;
  const best = scored.reduce((a, b) => (better(b, a) ? b : a));
  const related = (n: TaxonomyNode): boolean => n.path_ids.includes(best.node.id) || best.node.path_ids.includes(n.id);
  const rivals = scored.filter((s) => !related(s.node));
  const rival = rivals.length > 0 ? rivals.reduce((a, b) => (better(b, a) ? b : a)) : undefined;
  // Within one branch the branch evidence is shared, so only the rest of the score separates the two.
  const shared = rival && rival.node.path_ids[0] === best.node.path_ids[0] ? BRANCH * (branch.get(best.node.path_ids[0]) ?? 0) : 0;
  const ratio = rival ? (rival.score - shared) / Math.max(best.score - shared, 1e-9) : 0;
  const asScored = (s: { score: number; node: TaxonomyNode }): ScoredNode => ({ id: s.node.id, path: s.node.path, score: Number(s.score.toFixed(4)) });
  const matchedOf = (node: TaxonomyNode): string[] => [
    ...new Set(node.path_ids.flatMap((id) => [...(index.nameTerms.get(id) ?? []), ...(index.descTerms.get(id) ?? [])]).filter((t) => q.has(t))),
  ];
  if (rival && ratio >= AMBIGUOUS) {
    const common = best.node.path_ids.filter((id, i) => rival.node.path_ids[i] === id);
    const ancestor = common.length > 0 ? tax.nodes.get(common[common.length - 1]) : undefined;
    if (ancestor) {
      const score = scored.find((s) => s.node.id === ancestor.id)?.score ?? 0;
      return {
        node: asScored({ score, node: ancestor }),
        confidence: 'medium',
        alternative: asScored(rival),
        backed_off_from: asScored(best),
        matched: matchedOf(best.node),
      };
    }
  }
  // Share of the evidence (terms the taxonomy knows) that the chosen path explains.
  const known = [...q].filter(([t]) => index.postings.has(t));
  const mass = (list: Array<[string, number]>): number => list.reduce((sum, [t, w]) => sum + w * (index.idf.get(t) ?? 0), 0);
  const matched = matchedOf(best.node);
  const explained = mass(known.filter(([t]) => matched.includes(t))) / Math.max(mass(known), 1e-9);
  const confidence = ratio < CLEAR && explained >= EXPLAINED ? 'high' : ratio < AMBIGUOUS && explained >= EXPLAINED / 2 ? 'medium' : 'low';
  return { node: asScored(best), confidence, ...(rival ? { alternative: asScored(rival) } : {}), matched };
}
