/**
 * Category prediction without an LLM (docs/api-enrichment.md "Category prediction").
 *
 * Term scoring over the taxonomy's node names, read the way product titles are written:
 * - A node's name is split into the phrases it lists ("Tea & Infusions" → tea, infusions; a
 *   shared head is distributed: "Ski & Snowboard Goggles" → ski goggles, snowboard goggles, but
 *   not to a plural noun: "Knives & Chopping Boards" → knives, chopping boards).
 *   A phrase counts only when its head (last word) is in the evidence; its other words add a
 *   little when present and cost a little when absent, so "Electric Guitar Pickups" does not
 *   beat "Guitars" on a guitar's title that mentions its pickups.
 * - The evidence's words are weighted by where they stand: the product type of a title is
 *   usually the last word of its first clause ("Folgers Classic Roast Ground Coffee, 38.4 oz"),
 *   so that word weighs most, the rest of the first clause less, later clauses least. A stated
 *   category (breadcrumb, category field) is read the same way and weighs more; free text little.
 *   The head is a word that names a kind of product: never a colour, and a flavour or scent
 *   ("Coconut Oil Hair Mask") only when nothing else is named; such words weigh as later ones.
 *   A description's first sentence is read as a weaker title, the rest as free text.
 * - Words are idf-weighted over the node names (rare words identify a node), and general
 *   retail words are expanded to the names taxonomies use (./lexicon: "oxford" → shoe), as are
 *   notations ("8.5 M US" → shoes, "400 mcg" → supplements); identifier labels ("Part #") are dropped.
 * - A node gains a little from its ancestors' words ("Coffee" under "Beverages").
 * - With a catalog's categorised items as examples (./examples), their nearest-neighbour votes
 *   are added to the normalised term score.
 *
 * When two branches score alike the answer backs off to their deepest common ancestor; when they
 * are in different top-level departments and score alike, the classifier abstains (`abstain`).
 * Deterministic: ties go to the shallower node, then the smaller id.
 */
import { exampleVotes, type CategoryExampleModel } from './examples';
import { AUDIENCE, FORMS, headOf, MATERIALS, withStyleNotationsJoined } from './head';
import { expandLexicon, FLAVOURS, generalsOf, KIND_WORDS, notationTerms, withoutIdentifierLabels } from './lexicon';
import { decodeEntities, terms } from './terms';
import { foreignNounsOfEnglish, translateTitle } from './translate';
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
  /**
   * True when the best node and the best node of another top-level department score too close
   * to choose ({@link ABSTAIN}): the caller should set no category and offer `node` as a
   * low-confidence candidate only (docs/evaluation-taxonomy.md, abstaining).
   */
  abstain?: boolean;
}

/**
 * Word weights by position: the head of a title's first clause, the rest of it, later clauses, free text; and the
 * word after a title's first (brand) word, which may be the brand's second word (chosen on the dev split: 0.3–0.45 tried).
 */
const POSITION = { head: 0.6, clause: 0.5, brandSecond: 0.4, later: 0.3, text: 0.1 } as const;
/** Words of a first clause, its first word set aside, from which the next word weighs {@link POSITION} `brandSecond`. */
const BRAND_SECOND_MIN = 3;
/** Scale of a description's first sentence read as a title (of at most LEAD_WORDS words). */
const LEAD = 0.5;
const LEAD_WORDS = 30;
/** A first clause longer than this many words is a list of keywords: no word of it is its head. */
const LONG_CLAUSE = 9;
/** A stated category's words weigh this much more than a title's. */
const CATEGORY_BOOST = 1.3;
/** Weight of a general word read from a notation in a title (./lexicon `notationTerms`: "8.5 M US" → shoes). */
const NOTATION = 0.45;
/** Extra weight per repeated occurrence of a word, and its cap. */
const REPEAT = 0.25;
const REPEAT_CAP = 0.5;
/** Weight of a kind a node's description lists against its name's phrases, and the longest such kind in words. */
const DESCRIBED = 0.8;
const DESCRIBED_WORDS = 3;
/** Share of a word's idf (over node names) in its weight. */
const IDF = 0.25;
/** Weight of a phrase's present modifiers, and cost of its absent ones (both × idf). */
const MODIFIER = 0.25;
const MISSING = 0.3;
/** A department's (a node with at least DEPARTMENT_CHILDREN children) name match counts this much of a product's. */
const INNER = 0.5;
const DEPARTMENT_CHILDREN = 6;
/** A top-level node's name match counts this much of a product's. */
const ROOT = 0.3;
/** Cost of each word of a node's name that the evidence does not have at all (× idf). */
const UNCOVERED = 0.1;
/** Words of quantity, packaging and sales talk: never a title's head, and weighed as a later clause's. */
const WEAK = new Set(
  terms(
    'pack packs count ct pcs pc piece pieces lot size ounce oz fl ml lb kg inch cm mm new hot sale free shipping men women kids unisex set flavor flavors flavour flavours',
  ),
);
/** Colour words: they describe a product and never name its type, so never a title's head. */
const COLOURS = new Set(
  terms(
    'black white grey gray silver gold golden red blue navy green yellow orange pink purple violet brown beige tan taupe ivory cream khaki olive maroon burgundy teal turquoise coral charcoal bronze copper multicolor multicolour',
  ),
);
/** Weight of the ancestors' words present in the evidence. */
const CONTEXT = 0.1;
/** Weight of the examples' votes (a share of the vote, 0–1) against the best term score (1). */
const EXAMPLES = 1.5;
/**
 * Sum of the neighbours' cosine similarities from which the vote counts in full; weaker
 * neighbours (an unseen kind of product sharing only "men" or "black" with the examples) count
 * in proportion, so they cannot outvote the taxonomy's names.
 */
const FULL_VOTE = 3;
/** Share of a neighbour's vote when its text does not name the kind the evidence names (./examples `exampleVotes`). */
const OTHER_KIND = 0.3;
/** Runner-up/best score ratios separating high, medium and low confidence, and backing off. */
const CLEAR = 0.6;
const AMBIGUOUS = 0.8;
const BACK_OFF = 0.99;
/** Runner-up/best ratio from which a runner-up in another top-level department makes the classifier abstain. */
const ABSTAIN = 0.98;

/** A phrase of a node's name (or a kind its description lists): its words, the last one its head, and its weight. */
interface Phrase {
  terms: string[];
  weight: number;
}

interface Index {
  phrases: Map<string, Phrase[]>;
  /** Words of each node's own name (all phrases). */
  nameTerms: Map<string, string[]>;
  /** Head word → nodes with a phrase of that head. */
  heads: Map<string, string[]>;
  idf: Map<string, number>;
  /** Nodes with many children: departments ("Cycling", "Luggage & Bags") rather than products. */
  inner: Set<string>;
  /** Top-level nodes: a whole branch of the taxonomy. */
  roots: Set<string>;
}

const indexes = new WeakMap<CompiledTaxonomy, Index>();

/** The phrases a node name lists (see the module comment). */
function phrasesOf(name: string): Phrase[] {
  const raw = name.split(/\s*(?:,|&|\/|\band\b)\s*/i).filter((p) => terms(p).length > 0);
  const parts = raw.map((p) => terms(p));
  // A noun modifying another is singular ("Coffee & Tea Cups", "Ski & Snowboard Goggles"); a plural one-word part of a
  // two-part name names a kind of its own ("Knives & Chopping Boards", "Shirts & Base Layers") and takes no shared head.
  const plural = raw.map((p) => raw.length === 2 && /^\s*\p{L}+[^s\W]s\s*$/iu.test(p));
  if (parts.length === 0) return [];
  const first = parts[0];
  const last = parts[parts.length - 1];
  const head = last[last.length - 1];
  // "Coffee & Tea Cups": the last phrase's head is shared; "Conductivity Gels & Lotions": the first phrase's modifiers are.
  if (last.length > 1) return parts.map((p, i) => ({ terms: i < parts.length - 1 && p.length === 1 && !plural[i] ? [...p, head] : p, weight: 1 }));
  if (first.length > 1) return parts.map((p, i) => ({ terms: i > 0 && p.length === 1 ? [...first.slice(0, -1), ...p] : p, weight: 1 }));
  return parts.map((p) => ({ terms: p, weight: 1 }));
}

/** The kinds a node's description lists ("Pans, skillets, pots and woks"): its short comma-separated parts. */
function describedKinds(description: string | undefined): Phrase[] {
  return (description ?? '')
    .split(/\s*(?:[,;.:]|\band\b|\bor\b)\s*/i)
    .map((p) => terms(p))
    .filter((t) => t.length > 0 && t.length <= DESCRIBED_WORDS)
    .map((t) => ({ terms: t, weight: DESCRIBED }));
}

function indexOf(tax: CompiledTaxonomy): Index {
  const hit = indexes.get(tax);
  if (hit) return hit;
  const phrases = new Map<string, Phrase[]>();
  const nameTerms = new Map<string, string[]>();
  const heads = new Map<string, string[]>();
  const df = new Map<string, number>();
  for (const node of tax.nodes.values()) {
    const list = [...phrasesOf(node.name), ...describedKinds(node.description)];
    phrases.set(node.id, list);
    const words = [...new Set(terms(node.name))];
    nameTerms.set(node.id, words);
    for (const t of new Set([...words, ...list.flatMap((p) => p.terms)])) df.set(t, (df.get(t) ?? 0) + 1);
    for (const h of new Set(list.map((p) => p.terms[p.terms.length - 1]))) {
      let ids = heads.get(h);
      if (!ids) heads.set(h, (ids = []));
      ids.push(node.id);
    }
  }
  // A node named with a specific or less common word ("Footwear", "Rucksacks") also reads as the general word the
  // lexicon gives for it ("shoes", "backpacks"), when no node of the tree is named with that general word.
  for (const node of tax.nodes.values()) {
    const list = phrases.get(node.id) as Phrase[];
    for (const p of list.filter((q) => q.weight === 1)) {
      for (const general of generalsOf(p.terms)) {
        const h = general[general.length - 1];
        if (heads.has(h) || general.length === 0) continue;
        list.push({ terms: general, weight: DESCRIBED });
        for (const t of general) df.set(t, (df.get(t) ?? 0) + 1);
        heads.set(h, [node.id]);
      }
    }
  }
  const n = tax.nodes.size;
  // Flattened idf: a rare word (a colour, a fruit) must not outweigh the product type a title puts at its head.
  const idf = new Map<string, number>();
  for (const [t, d] of df) idf.set(t, 1 + IDF * Math.log(1 + n / d));
  const children = new Map<string, number>();
  for (const node of tax.nodes.values()) if (node.parent) children.set(node.parent, (children.get(node.parent) ?? 0) + 1);
  const inner = new Set([...children].filter(([, c]) => c >= DEPARTMENT_CHILDREN).map(([id]) => id));
  const roots = new Set([...tax.nodes.values()].filter((n) => !n.parent).map((n) => n.id));
  const index = { phrases, nameTerms, heads, idf, inner, roots };
  indexes.set(tax, index);
  return index;
}

/** Clauses of a title or category statement: split at commas, brackets, " - ", "|", " with ", " for ", ">". */
function clauses(text: string): string[] {
  return text.split(/\s*(?:[,;|([\]{}]|\s[-–—]\s|\bwith\b|\bfor\b|\bw\/)\s*/i).filter((c) => c.trim());
}

/** The evidence as read: word → weight, and word → positions (clauses of titles and categories apart by a gap). */
interface Read {
  w: Map<string, number>;
  pos: Map<string, number[]>;
  counts: Map<string, number>;
  next: number;
}

/** Positions between clauses: wider than {@link WINDOW}, so a phrase never spans two clauses. */
const GAP = 10;
/** A phrase's modifier counts as its own when it stands at most this many words before the head. */
const WINDOW = 3;

/** Adds an occurrence of `t` (largest weight kept, repeats adding a little) at the next position. */
function add(r: Read, t: string, weight: number): void {
  const seen = r.counts.get(t) ?? 0;
  r.counts.set(t, seen + 1);
  r.w.set(t, Math.max(r.w.get(t) ?? 0, weight) + (seen > 0 && seen * REPEAT <= REPEAT_CAP ? REPEAT * weight : 0));
  let list = r.pos.get(t);
  if (!list) r.pos.set(t, (list = []));
  list.push(r.next++);
}

/** Reads a title-like text: the head of its first clause (./head), the rest, later clauses; other languages through ./translate. */
function readTitle(index: Index, text: string, scale: number, r: Read): void {
  // Character references decoded first: the ";" of "Men&#39;s" ends no clause.
  const isEnglish = (w: string): boolean => terms(w).some((t) => index.heads.has(t) || KIND_WORDS.has(t));
  const decoded = decodeEntities(text);
  const translated = translateTitle(decoded, isEnglish);
  const english = withStyleNotationsJoined(translated);
  // "… by Whole Foods Market": what follows "by" names the maker, read as a later clause's words and never the head.
  const parts = clauses(english).flatMap((c) => {
    const [own, ...maker] = c.split(/\s+by\s+/i);
    return [{ words: terms(own), maker: false }, ...maker.map((m) => ({ words: terms(m), maker: true }))];
  });
  const isProduct = (t: string): boolean => (index.heads.has(t) || KIND_WORDS.has(t)) && !WEAK.has(t) && !COLOURS.has(t);
  // A title's first word is most often its brand ("Banana Boat Sunscreen …"): it weighs as a later clause's.
  const own = (words: string[], i: number): string[] => (i === 0 && words.length > 2 ? words.slice(1) : words);
  // The first clause is the first that names a product ("Traditional Medicinals, Organic Reishi Mushroom Tea": a maker's
  // name alone before the comma); failing that, the first with any word a node name uses.
  const namesOwn = (i: number, strict: boolean): boolean =>
    !parts[i].maker && own(parts[i].words, i).some((t) => isProduct(t) && !(strict && (FLAVOURS.has(t) || MATERIALS.has(t))));
  // A clause naming only a flavour or material ("Honey And Sage, Deep Conditioner") gives way to a later one naming a product.
  const strict = parts.findIndex((_, i) => namesOwn(i, true));
  const named = strict >= 0 ? strict : parts.findIndex((_, i) => namesOwn(i, false));
  const first = named >= 0 ? named : parts.findIndex((p) => !p.maker && p.words.some((t) => index.idf.has(t) || KIND_WORDS.has(t)));
  parts.forEach(({ words, maker }, i) => {
    const p = own(words, i);
    if (p.length < words.length) add(r, words[0], scale * POSITION.later);
    // The head names what is sold (./head): never a colour, material or audience word, and a flavour only when the clause
    // names nothing else ("Lip Balm Mango": balm). When it is the form the product is sold in ("Floral Tea Tin", "Iced Tea
    // Drink Mix", "Cappuccino Single Serve Cups": ./head FORMS), the one product the clause names before it is the head (of
    // several, "Acoustic Guitar … Spruce Top Beginner Kit", none is surely the product: the form stays the head).
    let head = i === first && p.length <= LONG_CLAUSE ? headOf(p, isProduct, (t) => FLAVOURS.has(t)) : undefined;
    if (head !== undefined && FORMS.has(head)) {
      const sold = p.slice(0, p.lastIndexOf(head)).filter((t) => isProduct(t) && !FORMS.has(t) && !FLAVOURS.has(t) && !MATERIALS.has(t) && !AUDIENCE.has(t));
      if (new Set(sold).size === 1) head = sold[0];
    }
    const modifier = (t: string): boolean => WEAK.has(t) || FLAVOURS.has(t) || AUDIENCE.has(t) || maker;
    // A kind of product named before the head modifies it ("Oxford Dress Shirt": an oxford shirt, not shoes),
    // unless the head is the form it is sold in ("Oatmeal Cup", ./head FORMS).
    const headAt = head === undefined || FORMS.has(head) ? -1 : p.lastIndexOf(head);
    const adjunct = (t: string, k: number): boolean => k < headAt && KIND_WORDS.has(t) && !index.heads.has(t);
    // The word after the brand's first word is often the brand's second ("Celestial Seasonings Herbal Tea", "Arm & Hammer …"):
    // in a title of four words or more it weighs between the first clause's words and a later clause's.
    const brandSecond = (k: number): boolean => k === 0 && p.length < words.length && p.length >= BRAND_SECOND_MIN;
    const inClause = (k: number): number => (brandSecond(k) ? POSITION.brandSecond : POSITION.clause);
    p.forEach((t, k) => add(r, t, scale * (t === head ? POSITION.head : i === first && !modifier(t) && !adjunct(t, k) ? inClause(k) : POSITION.later)));
    r.next += GAP;
  });
  // A product named in another language in an English title ("Snow Gafas") is read as a later clause's word.
  const foreign = translated === decoded ? foreignNounsOfEnglish(decoded, isEnglish) : [];
  for (const t of foreign.flatMap((e) => terms(e))) add(r, t, scale * POSITION.later);
  r.next += GAP;
}

/** Reads the evidence (see the module comment), with the lexicon's expansions. */
function readEvidence(index: Index, evidence: CategoryEvidence): Read {
  const r: Read = { w: new Map(), pos: new Map(), counts: new Map(), next: 0 };
  for (const given of evidence.titles) {
    const title = withoutIdentifierLabels(given);
    readTitle(index, title, 1, r);
    for (const t of notationTerms(title)) add(r, t, NOTATION);
    r.next += GAP;
  }
  for (const category of evidence.categories) {
    const segments = category.split(/\s*>\s*/).filter((s) => s.trim());
    // The last segment of a path names the category; the others are its context.
    segments.forEach((s, i) => readTitle(index, s, i === segments.length - 1 ? CATEGORY_BOOST : POSITION.clause, r));
  }
  for (const text of evidence.texts.map(withoutIdentifierLabels)) {
    // A description's first sentence most often says what the product is ("Utility Cart, 3 shelf, …"): read as a weaker title.
    const lead = text.split(/(?<=[.!?])\s+|\n/)[0] ?? '';
    if (terms(lead).length <= LEAD_WORDS) readTitle(index, lead, LEAD, r);
    for (const t of terms(text).slice(0, 80)) add(r, t, POSITION.text);
    for (const t of notationTerms(text)) add(r, t, POSITION.text);
    r.next += GAP;
  }
  expandLexicon(r.w, r.pos);
  return r;
}

/** True when `t` stands at most {@link WINDOW} words before an occurrence of `head`. */
function before(r: Read, t: string, head: string): boolean {
  const heads = r.pos.get(head) ?? [];
  return (r.pos.get(t) ?? []).some((p) => heads.some((h) => h > p && h - p <= WINDOW));
}

/** How much of a name match counts for choosing a node: less for a whole branch or a department than for a product. */
function breadth(index: Index, id: string): number {
  return index.roots.has(id) ? ROOT : index.inner.has(id) ? INNER : 1;
}

/**
 * Score of a node's own name: its best phrase whose head is in the evidence; a modifier standing
 * just before the head adds, one elsewhere counts nothing, one absent costs. `heads`, when given,
 * receives the head word of that best phrase.
 */
function nameScore(index: Index, id: string, r: Read, heads?: Set<string>): number {
  let best = 0;
  let bestHead: string | undefined;
  for (const p of index.phrases.get(id) ?? []) {
    const head = p.terms[p.terms.length - 1];
    const hw = r.w.get(head);
    if (!hw) continue;
    let s = p.weight * (index.idf.get(head) ?? 0) * hw;
    for (const t of p.terms.slice(0, -1)) {
      const tw = r.w.get(t);
      if (!tw) s -= MISSING * (index.idf.get(t) ?? 0);
      else if (before(r, t, head)) s += MODIFIER * tw * (index.idf.get(t) ?? 0);
    }
    if (s > best) bestHead = head;
    best = Math.max(best, s);
  }
  if (best <= 0) return 0;
  if (heads && bestHead) heads.add(bestHead);
  for (const t of index.nameTerms.get(id) ?? []) if (!r.w.has(t)) best -= UNCOVERED * (index.idf.get(t) ?? 0);
  return best;
}

/** Score of a node's ancestors' words present in the evidence (each word once, the node's own excluded). */
function contextScore(index: Index, node: TaxonomyNode, w: Map<string, number>): number {
  const own = new Set(index.nameTerms.get(node.id));
  const seen = new Set<string>();
  let s = 0;
  for (const a of node.path_ids.slice(0, -1)) {
    for (const t of index.nameTerms.get(a) ?? []) {
      if (own.has(t) || seen.has(t)) continue;
      seen.add(t);
      s += (w.get(t) ?? 0) * (index.idf.get(t) ?? 0);
    }
  }
  return CONTEXT * s;
}

function better(a: { score: number; node: TaxonomyNode }, b: { score: number; node: TaxonomyNode }): boolean {
  if (a.score !== b.score) return a.score > b.score;
  // A node that refines the other ("Conditioners" under "Shampoo & Conditioner") wins a tie; otherwise the shallower.
  if (a.node.path_ids.includes(b.node.id)) return true;
  if (b.node.path_ids.includes(a.node.id)) return false;
  if (a.node.level !== b.node.level) return a.node.level < b.node.level;
  return a.node.id < b.node.id;
}

/**
 * Classifies an item into a compiled taxonomy; with `examples` (a model trained on the
 * catalog's categorised items, ./examples `trainCategoryExamples`) their votes count too.
 * @returns the prediction, or null when no evidence word matches any node (and no example votes)
 */
export function classify(tax: CompiledTaxonomy, evidence: CategoryEvidence, examples?: CategoryExampleModel): CategoryPrediction | null {
  const index = indexOf(tax);
  const read = readEvidence(index, evidence);
  const w = read.w;
  const candidates = new Set<string>();
  for (const t of w.keys()) for (const id of index.heads.get(t) ?? []) candidates.add(id);
  const termScores = new Map<string, number>();
  // Before the breadth factor: how strongly the evidence names a node, whatever its breadth (for the confidence).
  const rawScores = new Map<string, number>();
  for (const id of candidates) {
    const s = nameScore(index, id, read);
    if (s > 0) {
      const raw = s + contextScore(index, tax.nodes.get(id) as TaxonomyNode, w);
      termScores.set(id, breadth(index, id) * raw);
      rawScores.set(id, raw);
    }
  }
  const best = Math.max(0, ...termScores.values());
  // The word the evidence names its product with: the head of the best-named node's phrase (and the
  // lexicon kinds the evidence states, whose general word that may be). Neighbours naming another
  // kind vote for less (./examples `exampleVotes`).
  const kind = new Set<string>();
  const bestId = [...termScores].find(([, s]) => s === best)?.[0];
  if (bestId) nameScore(index, bestId, read, kind);
  if (kind.size > 0) for (const t of read.counts.keys()) if (KIND_WORDS.has(t)) kind.add(t);
  const votes = examples ? exampleVotes(examples, [...evidence.titles, ...evidence.categories].join(' \n '), kind, OTHER_KIND) : new Map<string, number>();
  const totalVotes = [...votes.values()].reduce((a, b) => a + b, 0);
  const scored: Array<{ score: number; node: TaxonomyNode }> = [];
  for (const id of new Set([...termScores.keys(), ...votes.keys()])) {
    const node = tax.nodes.get(id);
    if (!node) continue;
    const term = termScores.get(id) ?? 0;
    const vote = (EXAMPLES * (votes.get(id) ?? 0)) / Math.max(totalVotes, FULL_VOTE);
    const score = totalVotes > 0 ? (best > 0 ? term / best : 0) + vote : term;
    if (score > 0) scored.push({ score, node });
  }
  if (scored.length === 0) return null;
  const top = scored.reduce((a, b) => (better(b, a) ? b : a));
  const related = (n: TaxonomyNode): boolean => n.path_ids.includes(top.node.id) || top.node.path_ids.includes(n.id);
  const rivals = scored.filter((s) => !related(s.node));
  const rival = rivals.length > 0 ? rivals.reduce((a, b) => (better(b, a) ? b : a)) : undefined;
  // Confidence: how close the best other branch comes, each read at full strength (a title naming
  // a department as strongly as a product is ambiguous even when the product is chosen).
  const strength = (n: { score: number; node: TaxonomyNode }): number => (totalVotes > 0 ? n.score : (rawScores.get(n.node.id) ?? n.score));
  const ratio = rival ? Math.min(1, strength(rival) / strength(top)) : 0;
  const asScored = (s: { score: number; node: TaxonomyNode }): ScoredNode => ({ id: s.node.id, path: s.node.path, score: Number(s.score.toFixed(4)) });
  const matchedOf = (node: TaxonomyNode): string[] => [...new Set(node.path_ids.flatMap((id) => index.nameTerms.get(id) ?? []).filter((t) => w.has(t)))];
  if (rival && ratio >= BACK_OFF) {
    const common = top.node.path_ids.filter((id, i) => rival.node.path_ids[i] === id);
    // A root says too little to back off to.
    const ancestor = common.length > 1 ? tax.nodes.get(common[common.length - 1]) : undefined;
    if (ancestor) {
      return {
        node: asScored({ score: termScores.get(ancestor.id) ?? 0, node: ancestor }),
        confidence: 'medium',
        alternative: asScored(rival),
        backed_off_from: asScored(top),
        matched: matchedOf(top.node),
      };
    }
  }
  const confidence = ratio < CLEAR ? 'high' : ratio < AMBIGUOUS ? 'medium' : 'low';
  // Two departments named about as strongly ("Trekking Poles Carbon Fiber": hiking or crafts?): no guess across them.
  const abstain = rival !== undefined && ratio >= ABSTAIN && rival.node.path_ids[0] !== top.node.path_ids[0];
  return {
    node: asScored(top),
    confidence: abstain ? 'low' : confidence,
    ...(rival ? { alternative: asScored(rival) } : {}),
    matched: matchedOf(top.node),
    ...(abstain ? { abstain } : {}),
  };
}
