/**
 * Prediction into a catalog's own taxonomy with the Google product taxonomy as a bridge
 * (docs/evaluation-taxonomy.md, "A catalog's own taxonomy").
 *
 * A shop's own tree ("Women > Tops & Blouses", "Camp & Trek > Camp Kitchen") is small and names
 * its nodes its own way: a title's product word is often in none of its names ("Aviator
 * Polarized" under "Sunglasses & Eyewear" is found, "Trail Runner GTX" under "Footwear" is not).
 * The Google product taxonomy (5,595 nodes) names almost every kind of product, and its path says
 * what a product is in general words ("Apparel & Accessories > Shoes"). So the item is first
 * classified into Google ({@link classify}); the chosen Google node's path is then read as a
 * stated category of the item next to its own evidence, and the item classified into the
 * catalog's tree: the title still decides what the Google path cannot (an audience, "Men's …"),
 * the Google path adds the general words the tree's names and descriptions use.
 *
 * The bridge is not used when the tree is the Google taxonomy itself (or a part of it, by id and
 * name), nor when the Google classification abstains. When the bridged answer abstains or finds
 * nothing, the direct answer stands.
 */
import type { CategoryEvidence, CategoryPrediction } from './classify';
import { classify } from './classify';
import type { CategoryExampleModel } from './examples';
import type { CompiledTaxonomy } from './tree';

/** The bridge taxonomy's answer as used for a prediction (for the reasoning). */
export interface BridgeUse {
  /** The Google node the item was classified into. */
  id: string;
  path: string[];
}

/** A prediction into the catalog's tree, with the bridge node it read (absent when not bridged). */
export type BridgedPrediction = CategoryPrediction & { bridge?: BridgeUse };

const sameTrees = new WeakMap<CompiledTaxonomy, WeakMap<CompiledTaxonomy, boolean>>();

/** True when every node of `tax` is a node of `bridge` with the same id and name (a Google tree, or a part of it). */
export function withinBridge(tax: CompiledTaxonomy, bridge: CompiledTaxonomy): boolean {
  let byBridge = sameTrees.get(tax);
  if (!byBridge) sameTrees.set(tax, (byBridge = new WeakMap()));
  const hit = byBridge.get(bridge);
  if (hit !== undefined) return hit;
  const same = [...tax.nodes.values()].every((n) => bridge.nodes.get(n.id)?.name === n.name);
  byBridge.set(bridge, same);
  return same;
}

/**
 * Classifies `evidence` into the catalog's tree `tax`, bridged through `bridge` (the Google
 * product taxonomy, compiled) when given and `tax` is not part of it (see the module comment).
 * `examples`: the catalog's categorised items (./examples), used as in {@link classify}.
 * @returns the prediction (with `bridge` when the Google path was read), or null when nothing matched
 */
export function classifyBridged(
  tax: CompiledTaxonomy,
  evidence: CategoryEvidence,
  examples?: CategoryExampleModel,
  bridge?: CompiledTaxonomy | null,
): BridgedPrediction | null {
  const direct = classify(tax, evidence, examples);
  if (!bridge || withinBridge(tax, bridge)) return direct;
  const google = classify(bridge, evidence);
  if (!google || google.abstain) return direct;
  const path = google.node.path;
  const bridged = classify(tax, { ...evidence, categories: [...evidence.categories, path.join(' > ')] }, examples);
  if (!bridged || bridged.abstain) return direct;
  return { ...bridged, bridge: { id: google.node.id, path } };
}
