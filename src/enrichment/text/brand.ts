/**
 * Brands read from an item's own text (docs/enrich-options.md, "Brands read from the item's
 * text"). A title's first words are often its brand, but not always, and a multi-word brand
 * ("John Lewis & Partners") cannot be told from its product words ("Faux Fur Throw") by the
 * text alone: a brand the text path finds is a value only when something other than the text
 * knows it (the catalog's values for the field, the item's own value, the schema's listed
 * values). This module holds the pure parts of that rule: which fields are brands, the brands
 * known for a field, the longest known brand a title starts with, and whether a read value is
 * a known brand. The engine (src/enrichment/engine.ts) and the text suite of the evaluation
 * (bench/eval/text.ts) apply them the same way.
 */
import { fieldRole } from '../extract/roles';
import type { OutputField } from '../types';

/**
 * True when `field` holds the product's brand or maker: the `brand` role of
 * src/enrichment/extract/roles.ts (`brand`, `brand_name`, `manufacturer`, `make`, or a
 * description that says brand), except a sub-brand (a line inside a brand, "Sub brand"),
 * which is read like any other attribute.
 */
export function isBrandField(field: OutputField): boolean {
  return fieldRole(field) === 'brand' && !/sub[\s_-]*brand/i.test(`${field.name} ${field.description ?? ''}`);
}
