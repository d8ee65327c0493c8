// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Prediction into a catalog's own small taxonomy through the Google product taxonomy
 * (src/enrichment/taxonomy/bridge.ts; docs/evaluation-taxonomy.md, "A catalog's own
 * taxonomy"): a shop tree of six top-level departments with no descriptions and no categorised
 * items, and product titles in five languages written for this test.
 */
import path from 'node:path';
import { classifyBridged, withinBridge } from '../../../src/enrichment/taxonomy/bridge';
import { applyTaxonomy } from '../../../src/enrichment/taxonomy';
import { readGoogleTaxonomy } from '../../../src/enrichment/taxonomy/google';
import { compileTaxonomy } from '../../../src/enrichment/taxonomy/tree';
import type { EnrichInput, EnrichmentResult, TaxonomyInput } from '../../../src/enrichment/types';
import { SHARED_DATA } from '../enrichment/data-dir';

const GOOGLE_INPUT = readGoogleTaxonomy(path.join(SHARED_DATA, 'taxonomy/google/taxonomy-with-ids.en-US.txt'));
const GOOGLE = compileTaxonomy(GOOGLE_INPUT);

/** A general store's own tree: six departments, names only, none of them Google's words for the products below. */
const SHOP: TaxonomyInput = {
  name: 'Corner Store',
  hierarchy_levels: ['department', 'aisle'],
  nodes: {
    wardrobe: { name: 'Wardrobe', parent: null },
    tops: { name: 'Tops', parent: 'wardrobe' },
    footwear: { name: 'Footwear', parent: 'wardrobe' },
    kitchen: { name: 'Kitchen', parent: null },
    cookware: { name: 'Cookware', parent: 'kitchen' },
    cutlery: { name: 'Cutlery & Knives', parent: 'kitchen' },
    outdoors: { name: 'Outdoors', parent: null },
    camping: { name: 'Camping', parent: 'outdoors' },
    bikes: { name: 'Cycling', parent: 'outdoors' },
    beauty: { name: 'Beauty & Care', parent: null },
    haircare: { name: 'Hair', parent: 'beauty' },
    oral: { name: 'Oral Care', parent: 'beauty' },
    tech: { name: 'Tech', parent: null },
    audio: { name: 'Audio', parent: 'tech' },
    music: { name: 'Instruments', parent: 'tech' },
    pantry: { name: 'Pantry', parent: null },
    hot: { name: 'Hot Drinks', parent: 'pantry' },
  },
};
const TREE = compileTaxonomy(SHOP);

/** Titles in several languages and the aisle each belongs to. */
const TITLES: Array<[string, string]> = [
  ['Zapatillas de running para hombre, suela de goma', 'footwear'],
  ['Herren Wanderschuhe wasserdicht Gr. 44', 'footwear'],
  ['Poêle antiadhésive 28 cm, tous feux dont induction', 'cookware'],
  ['Coltello da cucina in acciaio inox 20 cm', 'cutlery'],
  ['Tenda da campeggio 3 posti impermeabile', 'camping'],
  ['Casco de bicicleta de montaña con visera', 'bikes'],
  ['Wireless Bluetooth Over-Ear Headphones with Noise Cancelling', 'audio'],
  ['Guitarra acústica 4/4 con cuerdas de acero', 'music'],
  ['Bio Grüner Tee lose, 100 g', 'hot'],
  ['Brosse à dents électrique rechargeable', 'oral'],
];

const under = (id: string | undefined, want: string): boolean => Boolean(id && TREE.nodes.get(id)?.path_ids.includes(want));
const predicted = (title: string, bridge = true): string | undefined => {
  const p = classifyBridged(TREE, { titles: [title], categories: [], texts: [] }, undefined, bridge ? GOOGLE : undefined);
  return p && !p.abstain ? p.node.id : undefined;
};

describe("a catalog's own taxonomy, bridged through the Google product taxonomy", () => {
  it('puts at least 8 of 10 titles in five languages into the right aisle of a six-department tree', () => {
    const right = TITLES.filter(([title, want]) => under(predicted(title), want));
    expect(right.length).toBeGreaterThanOrEqual(8);
  });

  it("does better than the tree's own names alone on the same titles", () => {
    const bridged = TITLES.filter(([title, want]) => under(predicted(title), want)).length;
    const direct = TITLES.filter(([title, want]) => under(predicted(title, false), want)).length;
    expect(bridged).toBeGreaterThan(direct);
  });

  it("takes a page's breadcrumb trail as evidence when the title names no product", () => {
    const evidence = { titles: ['Trail Runner GTX 2'], categories: [] as string[], texts: [] };
    expect(classifyBridged(TREE, evidence, undefined, GOOGLE)?.node.id).not.toBe('footwear');
    evidence.categories.push('Sport > Laufschuhe');
    expect(classifyBridged(TREE, evidence, undefined, GOOGLE)?.node.id).toBe('footwear');
  });

  it('reads the Google path it went through into the review reasoning', () => {
    const input = {
      item: { name: 'Zapatillas de running para hombre' },
      output_schema: [],
      options: { speed: 'fast', web_search: false, taxonomy: SHOP, predict_taxonomy: true, predict_taxonomy_attributes: false },
    } as unknown as EnrichInput;
    const result = {
      review_info: { reasoning: '', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
      all_sources: [],
    } as unknown as EnrichmentResult;
    applyTaxonomy(result, input, [], () => result, GOOGLE);
    expect(result.category_id).toBe('footwear');
    expect(result.review_info.reasoning).toMatch(/Google product taxonomy's Apparel & Accessories > Shoes/);
  });

  it("does not bridge a tree that is Google's own taxonomy or a part of it", () => {
    expect(withinBridge(GOOGLE, GOOGLE)).toBe(true);
    expect(withinBridge(TREE, GOOGLE)).toBe(false);
    const part = compileTaxonomy({ name: 'part', nodes: { '187': { name: 'Shoes', parent: null }, '166': { name: 'Apparel & Accessories', parent: null } } });
    expect(withinBridge(part, GOOGLE)).toBe(true);
    expect(classifyBridged(part, { titles: ['Running shoes'], categories: [], texts: [] }, undefined, GOOGLE)?.bridge).toBeUndefined();
  });
});
