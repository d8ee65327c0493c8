/**
 * The switchable hand-written rules of page extraction, and the tuning an engine is built with.
 *
 * Every rule below was written while reading labelled product pages (the dev pages of the
 * evaluation), so it counts as fitted to them: leave-one-site-family-out evaluation
 * (`npm run eval -- pages --cv family`, bench/eval/lofo.ts) keeps a rule for a scored family only
 * when the pages of the other families support it. Which pages motivated each rule is measured
 * by ablation, not kept here: engine code never names a labelled page, host or family.
 */
import type { Calibration } from './calibration';

/** Ids of the switchable rules, with what each does (the source of each is in its reading site). */
export const RULE_IDS = [
  // price elements (src/enrichment/parse/page.ts priceTexts): score signals, recorded per element
  /** `id` naming a price (+2): themes give the page's own price an id, tiles only classes. */
  'price.id-names-price',
  /** class words of a current price (`sale`, `final`, `buybox`, +1). */
  'price.current-class',
  /** class words of a former/reference price (`old`, `rrp`, `regular`: −1, −3 with a current price beside it). */
  'price.former-class',
  /** text calling the price a former one ("Was", "statt", "RRP", −3). */
  'price.former-text',
  /** inside `<del>`/`<s>`/`<strike>` (HTML's struck-through text, −3); a price element holding a struck amount beside an unstruck one is read as two prices, the struck one with this signal. */
  'price.struck',
  /** "from 9.99", "ab", "desde": the low end of a range (−3). */
  'price.from',
  /** a before-tax label next to the price ("excl. VAT", "zzgl. MwSt.", −3). */
  'price.ex-tax',
  /** several amounts in one element (−1). */
  'price.multi-amount',
  /** inside a widget of other products (related, carousel, −4). */
  'price.widget',
  /** in a footer, nav or another product's tile (−2). */
  'price.tile',
  // price candidates (src/enrichment/extract/candidates.ts)
  /** a structured price none of the page's price elements shows loses 0.15 of its weight. */
  'price.hidden-structured',
  /** a structured price the page shows only as the former price of a sale loses to the current price it shows (and reads as the list price). */
  'price.sale-over-list',
  /** several offers at different prices: the one whose amount the page shows as its price, else the one the text shows first. */
  'price.shown-offer',
  /** no structured price and no price element: a price after a price label in the text. */
  'price.labelled-text',
  /** without a currency anywhere, an element holding only a number is read as a price (weight 0.4). */
  'price.bare-number',
  /** a sign shared by several currencies (`$`, `kr`) resolved by the page's language region or ccTLD. */
  'currency.regional',
  /** with a price field asked for and no price found, a currency read alone is withheld (it denominates nothing). */
  'currency.needs-price',
  /** a shown sold-out message or buy control outranks the structured availability. */
  'availability.shown-overrules',
  /** sibling Products of the same name count as offers of one product (in stock when any is). */
  'availability.variants',
  /** an enabled add-to-cart control is an InStock reading. */
  'availability.buy-button',
  /** a markup-only SKU loses to a code the page labels and shows. */
  'sku.shown-label-wins',
  /** `productID` as a SKU reading. */
  'sku.product-id',
  /** the article number in the page URL as a SKU reading. */
  'sku.url-token',
  /** a code shown with separators whose digits are the URL's id as a SKU reading. */
  'sku.url-code-shown',
  /** a structured MPN that is the shop's page id in the URL is dropped. */
  'mpn.not-site-id',
  /** a structured MPN equal to the SKU and shown nowhere is dropped. */
  'mpn.not-copied-sku',
  /** an unshown SKU/MPN naming the product's image file is dropped. */
  'id.not-asset-id',
  /** a GTIN supported only by markup the page never shows is withheld. */
  'gtin.withhold-markup-only',
  /** unrendered template placeholders (`{{brand}}`) are no brand. */
  'brand.template',
] as const;

/** One switchable rule's id. */
export type RuleId = (typeof RULE_IDS)[number];

/**
 * How page extraction is tuned: the rules left out (every rule is on by default) and the
 * confidence calibration (the built-in one, src/enrichment/extract/calibration-table.ts, when
 * absent). The service runs with the defaults; the evaluation builds engines with a tuning
 * fitted without the scored site family. `observe` (evaluation only) is told, for every
 * calibrated value placed, its field, calibration cell and probability.
 */
export interface ExtractionTuning {
  disabled_rules?: ReadonlySet<RuleId>;
  calibration?: Calibration;
  observe?: (field: string, cell: string, probability: number) => void;
  /**
   * Told every rule the extraction asked about (evaluation only). The engine is deterministic and
   * a rule acts only where {@link ruleOn} is asked, so an extraction that never asked about any
   * rule of a set gives the same result with that set off: the evaluation's rule ablation
   * re-extracts only the pages that asked (docs/evaluation.md, "Leave-one-site-family-out").
   */
  consulted?: (rule: RuleId) => void;
}

/** Whether a rule is on under a tuning (absent tuning: every rule on); tells `tuning.consulted`. */
export function ruleOn(tuning: ExtractionTuning | undefined, rule: RuleId): boolean {
  tuning?.consulted?.(rule);
  return !tuning?.disabled_rules?.has(rule);
}
