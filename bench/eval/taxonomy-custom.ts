/**
 * The `custom_tree` figure of `npm run eval -- taxonomy`: top-1 of labelled titles predicted into
 * shops' own taxonomies (docs/evaluation-taxonomy.md, "A catalog's own taxonomy").
 *
 * `taxonomy-gold/custom-trees.json` holds five small trees written from general retail knowledge
 * (a fashion, an outdoor, a home, an electronics and a drugstore shop; renamed, merged and split
 * departments, no categorised items) and, per tree, a hand-written map from Google product
 * taxonomy ids to its nodes. A title's accepted nodes are the mapped nodes of its accepted Google
 * nodes (the labelled datasets' categories through `taxonomy-gold/google.json`, the multilingual
 * set's own nodes); a title with none is outside the tree and not scored on it. A prediction is
 * right when it is an accepted node or below one; an abstention is a miss.
 *
 * Two figures per tree: `bridged` (the service's path: src/enrichment/taxonomy/bridge.ts, the
 * Google taxonomy as a bridge) and `direct` (the tree's own names and descriptions alone).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classifyBridged, compileTaxonomy, type CompiledTaxonomy } from '../../src/enrichment/taxonomy';
import type { TaxonomyInput } from '../../src/enrichment/types';

/** One tree of the gold file: its name, its taxonomy and Google id → accepted node ids. */
export interface CustomTree {
  name: string;
  taxonomy: TaxonomyInput;
  map: Record<string, string[]>;
}

/** A title to score with its accepted Google nodes and a group (dataset or `multilingual/<lang>`). */
export interface CustomTitle {
  title: string;
  google: string[];
  group: string;
}

/** Figures of one tree. */
export interface TreeFigures {
  items: number;
  bridged: number;
  direct: number;
  abstained: number;
  by_group: Record<string, number>;
}

const round = (x: number): number => Number(x.toFixed(3));

/** The default gold file. */
export const CUSTOM_TREES_FILE = path.join(__dirname, 'taxonomy-gold', 'custom-trees.json');

/** Reads the trees of a gold file shaped as `taxonomy-gold/custom-trees.json` (`{trees: CustomTree[]}`); throws on unreadable JSON. */
export function readCustomTrees(file: string = CUSTOM_TREES_FILE): CustomTree[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { trees: CustomTree[] }).trees;
}

/** True when `id` is one of `accepted` or below one. */
function within(tax: CompiledTaxonomy, id: string | undefined, accepted: Set<string>): boolean {
  const node = id ? tax.nodes.get(id) : undefined;
  return Boolean(node && node.path_ids.some((p) => accepted.has(p)));
}

/**
 * Scores `titles` on every tree of `file`, classified into each tree bridged through `google`
 * and directly. Returns per-tree figures and the overall figures (all scored titles of all trees).
 */
export function scoreCustomTrees(
  google: CompiledTaxonomy,
  titles: CustomTitle[],
  file: string = CUSTOM_TREES_FILE,
): { trees: Record<string, TreeFigures>; overall: { items: number; bridged: number; direct: number } } {
  const trees: Record<string, TreeFigures> = {};
  const total = { items: 0, bridged: 0, direct: 0 };
  for (const tree of readCustomTrees(file)) {
    const tax = compileTaxonomy(tree.taxonomy);
    const hits = { items: 0, bridged: 0, direct: 0, abstained: 0 };
    const groups = new Map<string, [number, number]>();
    for (const t of titles) {
      const accepted = new Set(t.google.flatMap((g) => tree.map[g] ?? []));
      if (accepted.size === 0) continue;
      const evidence = { titles: [t.title], categories: [], texts: [] };
      const bridged = classifyBridged(tax, evidence, undefined, google);
      const direct = classifyBridged(tax, evidence);
      const ok = !bridged?.abstain && within(tax, bridged?.node.id, accepted);
      hits.items++;
      if (ok) hits.bridged++;
      if (bridged?.abstain) hits.abstained++;
      if (!direct?.abstain && within(tax, direct?.node.id, accepted)) hits.direct++;
      const [h, n] = groups.get(t.group) ?? [0, 0];
      groups.set(t.group, [h + (ok ? 1 : 0), n + 1]);
    }
    trees[tree.name] = {
      items: hits.items,
      bridged: round(hits.bridged / Math.max(1, hits.items)),
      direct: round(hits.direct / Math.max(1, hits.items)),
      abstained: hits.abstained,
      by_group: Object.fromEntries([...groups].map(([k, [h, n]]) => [k, round(h / n)])),
    };
    total.items += hits.items;
    total.bridged += hits.bridged;
    total.direct += hits.direct;
  }
  return {
    trees,
    overall: { items: total.items, bridged: round(total.bridged / Math.max(1, total.items)), direct: round(total.direct / Math.max(1, total.items)) },
  };
}
