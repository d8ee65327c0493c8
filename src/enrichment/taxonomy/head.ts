/**
 * The product in a title: the head of its first noun phrase, i.e. what is sold, not what it is
 * made of, for whom, or in which style. English titles put the head last in their first noun
 * phrase ("Men's Slim Fit Long Sleeve Oxford Dress **Shirt**", "Ultralight Trekking **Poles**
 * Carbon Fiber"), which ends at a preposition ("for", "with", "in", …; ./classify splits clauses
 * there). POS-free: a word is a head candidate when it names a kind of product (a taxonomy node's
 * head word or a lexicon kind) and is not one of the modifier words below, which describe a
 * product's material, audience, style or build. Words are general English vocabulary, written
 * by hand from general knowledge (not from any evaluation title). See
 * docs/evaluation-taxonomy.md (the head of a title).
 */
import { terms } from './terms';

/**
 * Materials: a title names them before or after the product ("Carbon Fiber Trekking Poles",
 * "Trekking Poles Carbon Fiber"); they are the head only when the title names nothing else.
 */
export const MATERIALS: ReadonlySet<string> = new Set(
  terms(
    'carbon fiber fibre cotton leather wool merino silk linen denim polyester nylon spandex elastane lycra steel stainless aluminum aluminium titanium bamboo suede cashmere velvet satin chiffon lace fleece silicone acrylic microfiber faux vegan genuine',
  ),
);

/** Audience words ("Kids Boys …", "Ladies …"): never the head, weighed as a later clause's words. */
export const AUDIENCE: ReadonlySet<string> = new Set(terms('boys girls ladies mens womens youth adult adults teen teens toddlers gents'));

/**
 * Forms and containers a product is sold in ("Oatmeal Cup", "Sunblock Lotion", "Multivitamin
 * Gummies"): when one is the head, the kind named before it is what is sold, not a modifier.
 */
export const FORMS: ReadonlySet<string> = new Set(
  terms(
    'cup cups pod pods lotion spray sprays gummy gummies capsule capsules softgel softgels tablet tablets drop drops mix powder liquid cream gel oil stick sticks bar bars kit refill refills pack bottle bottles jar can cans box boxes bag bags tube sachet sachets packet packets balm serum wash shot shots chews granules pouch pouches',
  ),
);

/**
 * Style and build words two-word sleeve, fit and cut notations are made of ("Short Sleeve",
 * "Slim Fit", "Low Top"): in these notations they describe the product, so the pair is read as
 * one unknown word and never as "Shorts" or "Tops".
 */
const STYLE_NOTATION =
  /\b(short|long|half|cap|3\/4|three[- ]quarter|elbow)[\s-]+(sleeved?|sleeves)\b|\b(slim|regular|relaxed|loose|skinny|straight|tailored)[\s-]+(fit|cut|leg)\b|\b(low|high|mid)[\s-]+(top|tops|rise|waist)\b/gi;

/** The title with its style notations ({@link STYLE_NOTATION}) joined into one word each ("Short Sleeve" → "ShortSleeve"). */
export function withStyleNotationsJoined(text: string): string {
  return text.replace(STYLE_NOTATION, (all) => all.replace(/[\s-]+/g, ''));
}

/**
 * The head of a clause's words (stemmed terms, in order): the last product word that is neither
 * weak, a colour, a material nor an audience word; failing that, a flavour-free product word;
 * failing that, any product word.
 * @param words the clause's stemmed words
 * @param isProduct true for a word that names a kind of product
 * @param isModifierWord true for words never a head while another is named (colours, flavours, sales talk)
 * @returns the head word, or undefined when the clause names no product
 */
export function headOf(words: string[], isProduct: (t: string) => boolean, isModifierWord: (t: string) => boolean): string | undefined {
  const nouns = words.filter((t) => isProduct(t) && !AUDIENCE.has(t));
  const tiers = [nouns.filter((t) => !isModifierWord(t) && !MATERIALS.has(t)), nouns.filter((t) => !isModifierWord(t)), nouns];
  const pool = tiers.find((t) => t.length > 0) ?? [];
  return pool[pool.length - 1];
}
