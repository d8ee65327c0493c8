/**
 * General retail words onto the words taxonomies name their categories with (a product title
 * says "oxford" or "sneaker", a taxonomy says "shoes"): each entry maps a kind of product to the
 * more general word(s) a category name uses. General English retail vocabulary, not keyed to
 * any catalog or taxonomy; ./classify reads a title's words with these expansions added.
 */
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
  shirts: ['tee', 't-shirt', 'tshirt', 'polo', 'blouse', 'tank top', 'camisole', 'henley', 'tunic'],
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
  vitamins: ['multivitamin', 'multi-vitamin', 'supplement', 'softgel', 'probiotic', 'omega-3', 'biotin', 'gummy vitamins'],
  cereal: ['granola', 'muesli', 'cornflakes', 'bran flakes'],
  'hot cereal': ['oatmeal', 'oats', 'porridge', 'grits'],
  coffee: ['espresso', 'cappuccino', 'decaf', 'ground coffee', 'coffee pods', 'coffee beans', 'cold brew', 'arabica', 'robusta'],
  tea: ['tea bag', 'tea bags', 'chai', 'matcha', 'rooibos', 'chamomile', 'oolong', 'sencha', 'earl grey', 'herbal infusion'],
  'laundry detergent': ['detergent', 'laundry liquid', 'laundry pods', 'washing powder', 'washing liquid', 'laundry soap'],
  conditioners: ['leave-in', 'detangler', 'hair mask', 'conditioning'],
  guitars: ['stratocaster', 'telecaster', 'les paul', 'bass guitar', 'electric guitar', 'acoustic guitar'],
  'portable cooking stoves': ['camping stove', 'gas stove', 'camp stove', 'backpacking stove', 'alcohol stove', 'gas burner'],
  'fishing lures': ['crankbait', 'swimbait', 'spinnerbait', 'minnow lure', 'popper', 'wobbler', 'spoon lure', 'soft bait', 'jig head', 'hard bait'],
  laptops: ['notebook computer', 'ultrabook', 'chromebook'],
  televisions: ['tv', 'smart tv', 'hdtv'],
  'mobile phones': ['smartphone', 'cell phone', 'cellphone'],
  sofas: ['couch', 'settee', 'loveseat'],
  pants: ['trousers', 'jeans', 'chinos', 'slacks', 'leggings', 'joggers'],
};

/** Expansion weight: a general word read from a kind counts a little less than the word itself. */
const EXPANSION = 0.9;
/** Share of an expansion's weight added to a general word the evidence already has. */
const AGREEING = 0.3;

/** Stemmed single-word or last-word kinds → stemmed general words, compiled once. */
function compile(): Array<{ kind: string[]; general: string[] }> {
  return Object.entries(KINDS).flatMap(([general, kinds]) => kinds.map((k) => ({ kind: terms(k), general: terms(general) })));
}

const ENTRIES = compile();

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
