/**
 * General retail words onto the words taxonomies name their categories with (a product title
 * says "oxford" or "sneaker", a taxonomy says "shoes"): each entry maps a kind of product to the
 * more general word(s) a category name uses. General English retail vocabulary, not keyed to
 * any catalog or taxonomy; ./classify reads a title's words with these expansions added. Common
 * shoppers' words for everyday products (./synonyms `GENERAL_KINDS`) are merged in.
 */
import { GENERAL_KINDS } from './synonyms';
import { terms } from './terms';

/** General word(s) → the kinds of product they cover (plain words; stemmed when compiled). */
const KINDS: Record<string, string[]> = {
  shoes: [
    'oxford',
    'oxfords',
    'pump',
    'loafer',
    'sneaker',
    'trainer',
    'moccasin',
    'sandal',
    'slipper',
    'clog',
    'mule',
    'espadrille',
    'stiletto',
    'brogue',
    'flats',
    'heel',
    'boot',
    'bootie',
    'slingback',
    'footwear',
    'slip-on',
    'slip-ons',
    'mary jane',
    'ballet flat',
    'wedge sandal',
    'hardsole',
    'softsole',
    'chukka',
    'huarache',
    'cleat',
    'cleats',
    'flip flop',
    'flip-flops',
    'boat shoe',
    'running shoe',
  ],
  swimwear: [
    'bikini',
    'bikinis',
    'swimsuit',
    'tankini',
    'monokini',
    'swim trunks',
    'swimming trunks',
    'swim briefs',
    'swim shorts',
    'swimming shorts',
    'boardshorts',
    'bathing suit',
    'beachwear',
    'rash guard',
  ],
  shirts: ['tee', 't-shirt', 'tshirt', 'polo', 'blouse', 'tank top', 'camisole', 'henley', 'tunic', 'jersey'],
  'sports uniforms': ['jersey', 'jerseys'],
  hats: ['cap', 'snapback', 'beanie', 'fedora', 'trucker'],
  sunglasses: ['sun glasses', 'uv400', 'polarized', 'polarised', 'cycling glasses', 'sport glasses', 'sports glasses', 'shades'],
  'protective masks': [
    'face mask',
    'face cover',
    'face covering',
    'dust mask',
    'disposable mask',
    'cloth mask',
    'surgical mask',
    'earloop',
    'n95',
    'kn95',
    'respirator',
  ],
  sunscreen: ['spf', 'sunblock', 'sun cream', 'suncream', 'sun lotion', 'sun screen'],
  vitamins: [
    'multivitamin',
    'multi-vitamin',
    'supplement',
    'softgel',
    'softgels',
    'veg caps',
    'veggie caps',
    'vcaps',
    'lozenge',
    'lozenges',
    'gummies',
    'probiotic',
    'prebiotic',
    'omega-3',
    'fish oil',
    'biotin',
    'gummy vitamins',
    'folate',
    'folic acid',
    'niacin',
    'niacinamide',
    'b-complex',
    'b12',
    'b-12',
    'riboflavin',
    'thiamine',
    'zinc',
    'magnesium',
    'calcium',
    'collagen',
    'melatonin',
    'glucosamine',
    'coq10',
    'electrolytes',
  ],
  cereal: ['granola', 'muesli', 'cornflakes', 'corn flakes', 'bran flakes', 'rice puffs', 'puffed rice', 'puffed wheat'],
  toothbrushes: ['tooth brush', 'tooth brushes'],
  'hot cereal': ['oatmeal', 'oats', 'porridge', 'grits'],
  coffee: [
    'espresso',
    'cappuccino',
    'latte',
    'mocha',
    'frappe',
    'macchiato',
    'decaf',
    'ground coffee',
    'coffee pods',
    'coffee beans',
    'cold brew',
    'arabica',
    'robusta',
    'single serve pods',
  ],
  tea: [
    'tea bag',
    'tea bags',
    'teabags',
    'chai',
    'matcha',
    'rooibos',
    'chamomile',
    'oolong',
    'sencha',
    'earl grey',
    'herbal infusion',
    'yerba mate',
    'pu-erh',
    'tisane',
  ],
  'laundry detergent': ['detergent', 'laundry liquid', 'laundry pods', 'washing powder', 'washing liquid', 'laundry soap'],
  conditioners: ['leave-in', 'detangler', 'hair mask', 'conditioning', 'deep conditioner', 'co-wash', 'cowash', 'creme rinse', 'cream rinse', 'hair treatment'],
  guitars: ['stratocaster', 'telecaster', 'les paul', 'bass guitar', 'electric guitar', 'acoustic guitar'],
  'portable cooking stoves': ['camping stove', 'gas stove', 'camp stove', 'backpacking stove', 'alcohol stove', 'gas burner'],
  'fishing lures': ['crankbait', 'swimbait', 'spinnerbait', 'minnow lure', 'popper', 'wobbler', 'spoon lure', 'soft bait', 'jig head', 'hard bait'],
  laptops: ['notebook computer', 'ultrabook', 'chromebook'],
  'hard drives': ['hdd', 'ssd', 'solid state drive'],
  televisions: ['tv', 'smart tv', 'hdtv'],
  'mobile phones': ['smartphone', 'cell phone', 'cellphone'],
  sofas: ['couch', 'settee', 'loveseat'],
  pants: ['trousers', 'jeans', 'chinos', 'slacks', 'leggings', 'joggers'],
  shorts: ['short pants', 'short pant'],
};

/**
 * Flavours, scents and ingredients: words a title uses to describe a product far more often than
 * to name it ("Coconut Oil Hair Mask", "Lemon Ginger Herbal Tea", "Honey Vanilla Crunch Cereal").
 * Unless such a word is the title's head, ./classify weighs it as a later clause's word.
 */
export const FLAVOURS: ReadonlySet<string> = new Set(
  terms(
    'coconut honey lemon lime orange banana mango berry berries strawberry blueberry raspberry blackberry cranberry cherry peach apple pear pineapple watermelon grape avocado almond walnut pecan peanut hazelnut vanilla chocolate cocoa caramel maple cinnamon ginger mint peppermint spearmint lavender rose jasmine hibiscus aloe shea argan milk sugar salt pepper garlic turmeric',
  ),
);

/**
 * Notations that name a kind of product without naming it: a US shoe size with its width letter
 * ("8.5 M US", "10 4E US", "Women's B US", "9 D(M) US": the width codes of US shoe sizing), a bare US size ending a
 * clause ("…, Tan Leather, 7.5 US") or a European shoe size ("41 M EU", "EU38") is a shoe's; a dose in milligrams,
 * micrograms or international units ("400 mcg", "1000 IU"), or a count of capsules, softgels,
 * tablets or lozenges ("240 Veg Caps", "100 Tablets"), a supplement's; a capacity in gigabytes or terabytes,
 * or a clock in megahertz or gigahertz, a computer's; a sun protection factor or PA grade ("SPF50",
 * "PA+++") a sunscreen's.
 */
const NOTATIONS: Array<{ pattern: RegExp; general: string }> = [
  { pattern: /\b(?:\d{1,2}(?:\.5)?|Women's|Men's)\s?(?:[MWNDBC]|[2-6]?E{1,4}|XW|WW|Medium|Wide)\s?US\b/, general: 'shoes' },
  // "9 D(M) US", a bare "8 US" ending a clause, and the European (Paris point) sizes "41 M EU", "EU38".
  { pattern: /\b\d{1,2}(?:\.5)?\s?(?:[MWNDBC]\s?)?\([MW]\)\s?US\b|\b\d{1,2}(?:\.5)?\s?US(?=\s*[,)]|\s*$)/, general: 'shoes' },
  { pattern: /\b\d{2}(?:\.5)?\s?(?:[MWN]\s)?EU\b|\bEU\s?\d{2}(?:\.5)?\b/, general: 'shoes' },
  { pattern: /\b\d+(?:[.,]\d+)?\s?(?:mg|mcg|µg|iu)\b/i, general: 'supplements' },
  {
    pattern: /\b\d+\s*(?:(?:veg|veggie|vegetarian|vegan)\s+)?(?:capsules|caps|vcaps|softgels|gummies|lozenges|chewables|tablets|tabs|caplets)\b/i,
    general: 'supplements',
  },
  { pattern: /\b\d+(?:[.,]\d+)?[\s-]?(?:[GT]B|[MG]Hz)\b/, general: 'computer' },
  { pattern: /\bSPF\s?\d{1,3}|\bPA\+{2,4}/i, general: 'sunscreen' },
];

/** Labels of identifiers ("Part #", "Part Number(s)", "Model No.", "SKU #"): they name a code, never the product's kind. */
const IDENTIFIER_LABEL = /\b(?:part|item|model|style|catalog|catalogue|article|order|sku|mpn|upc|ean|gtin|asin)\s*(?:#|no\b\.?|nos\b\.?|numbers?(?:\(s\))?)/gi;

/** The text with its identifier labels ({@link IDENTIFIER_LABEL}) removed. */
export function withoutIdentifierLabels(text: string): string {
  return text.replace(IDENTIFIER_LABEL, ' ');
}

/** The general words (stemmed) of the notations a text carries (see {@link NOTATIONS}). */
export function notationTerms(text: string): string[] {
  // Each general word once: two notations of one kind (a US and a European shoe size) say it once.
  return [...new Set(NOTATIONS.filter((n) => n.pattern.test(text)).map((n) => n.general))].flatMap((g) => terms(g));
}

/** Expansion weight: a general word read from a kind counts as much as the kind itself (tuned on the dev split: 0.9 → 1). */
const EXPANSION = 1;
/** Share of an expansion's weight added to a general word the evidence already has. */
const AGREEING = 0.3;

/** Stemmed single-word or last-word kinds → stemmed general words, compiled once. */
function compile(): Array<{ kind: string[]; general: string[] }> {
  return [...Object.entries(KINDS), ...Object.entries(GENERAL_KINDS)].flatMap(([general, kinds]) =>
    kinds.map((k) => ({ kind: terms(k), general: terms(general) })),
  );
}

const ENTRIES = compile();

/**
 * The general words (stemmed phrases) the lexicon gives for a kind named exactly by `kind`
 * (stemmed words): a category named "Footwear" or "Rucksacks" covers what the general words
 * "shoes" and "backpacks" name (./classify reads a node name so when no node uses the general word).
 */
export function generalsOf(kind: string[]): string[][] {
  const key = kind.join(' ');
  return ENTRIES.filter((e) => e.kind.join(' ') === key).map((e) => e.general);
}

/** The last words of the lexicon's kinds: words that name a kind of product although no node name uses them. */
export const KIND_WORDS: ReadonlySet<string> = new Set(ENTRIES.map((e) => e.kind[e.kind.length - 1]).filter((t): t is string => Boolean(t)));

/**
 * Adds to `weights` (stemmed word → weight) and `positions` (word → positions), in place, each
 * general word of a kind present (a multi-word kind when all its words are present): weight
 * {@link EXPANSION} × the weight of the kind's last word (a word present already keeps the larger
 * weight plus {@link AGREEING} × the expansion's), at the positions of that last word.
 */
export function expandLexicon(weights: Map<string, number>, positions: Map<string, number[]>): void {
  const found: Array<{ general: string[]; weight: number; at: number[] }> = [];
  for (const { kind, general } of ENTRIES) {
    if (kind.length === 0 || !kind.every((t) => weights.has(t))) continue;
    const last = kind[kind.length - 1];
    found.push({ general, weight: EXPANSION * (weights.get(last) as number), at: positions.get(last) ?? [] });
  }
  for (const { general, weight, at } of found) {
    general.forEach((g, i) => {
      // A general word the title states too gains as a repeat does: two words say the same kind.
      const had = weights.get(g) ?? 0;
      weights.set(g, Math.max(had, weight) + (had > 0 ? AGREEING * weight : 0));
      // The general words keep their order just before the kind's position, so a general phrase reads as one.
      positions.set(g, [...(positions.get(g) ?? []), ...at.map((p) => p - (general.length - 1 - i) * 0.01)]);
    });
  }
}
