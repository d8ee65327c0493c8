import { applyMapping } from './apply-mapping';
import type { ApplyContext, ChannelDefinition, ChannelMapping, FeedRow } from './types';

/**
 * A catalog's own spellings of enumerated values turned into the channel's (docs/channels.md,
 * "Mapping"): "In Stock", "instock", "available" → Google's `in_stock` / Meta's `in stock`;
 * "Men" → `male`; … Values it does not recognise are kept, for the rules to report.
 */

/** Canonical value (Google's spelling) of common spellings, per attribute; keys are lower case without spaces, `_` or `-`. */
const SYNONYMS: Record<string, Record<string, string>> = {
  availability: {
    instock: 'in_stock',
    available: 'in_stock',
    yes: 'in_stock',
    true: 'in_stock',
    outofstock: 'out_of_stock',
    soldout: 'out_of_stock',
    unavailable: 'out_of_stock',
    no: 'out_of_stock',
    false: 'out_of_stock',
    preorder: 'preorder',
    backorder: 'backorder',
    availablefororder: 'backorder',
    discontinued: 'discontinued',
  },
  condition: { new: 'new', newcondition: 'new', used: 'used', usedcondition: 'used', refurbished: 'refurbished', refurbishedcondition: 'refurbished' },
  gender: { male: 'male', men: 'male', man: 'male', mens: 'male', female: 'female', women: 'female', woman: 'female', womens: 'female', unisex: 'unisex' },
};

/** Google spelling → Meta spelling, where they differ. */
const META: Record<string, Record<string, string>> = {
  availability: { in_stock: 'in stock', out_of_stock: 'out of stock', backorder: 'available for order', preorder: 'available for order' },
};

/** The value in the channel's spelling, or the value unchanged when not recognised. */
export function channelValue(channel: ChannelDefinition, attribute: string, value: string): string {
  const canonical = SYNONYMS[attribute]?.[value.toLowerCase().replace(/[\s_'’-]+/g, '')];
  if (!canonical) return value;
  if (channel.id === 'meta_catalog') return META[attribute]?.[canonical] ?? canonical;
  if (channel.id === 'google_merchant_center' && canonical === 'discontinued') return 'out_of_stock';
  return canonical;
}

/**
 * An item's row for a channel: {@link applyMapping} (variants inherit from `parent`,
 * item_group_id = the product's id) with enumerated values in the channel's spelling.
 */
export function toChannelRow(
  channel: ChannelDefinition,
  mapping: ChannelMapping,
  item: Record<string, unknown>,
  parent?: Record<string, unknown>,
  ctx: ApplyContext = {},
): FeedRow {
  const row = applyMapping(mapping, item, parent, ctx);
  for (const attribute of Object.keys(SYNONYMS)) {
    const v = row[attribute];
    if (typeof v === 'string') row[attribute] = channelValue(channel, attribute, v);
  }
  return row;
}
