/**
 * The item fields a category prediction stages (docs/api-enrichment.md "Category prediction", `predict_taxonomy_attributes`): a result's predicted
 * `category_id` and, when the job predicted them, its taxonomy attribute values become fields of
 * the staged `after_data`, so applying the change writes them onto the item. They stay in
 * `source_data` too (with `taxonomy_attribute_sources`), where the review reads their evidence.
 */
import type { EnrichmentResult } from '../../../enrichment/types';

/**
 * `{...taxonomy_attributes, category_id}` of a result, or `{}` when no category was predicted.
 * The engine fills `taxonomy_attributes` only when `predict_taxonomy_attributes` is not false and
 * only with values it found a source for (src/enrichment/taxonomy/index.ts `applyTaxonomy`), so
 * nothing else is decided here; the category id wins over an attribute of the same name.
 */
export function categoryItemFields(result: EnrichmentResult): Record<string, unknown> {
  if (result.category_id === undefined) return {};
  return { ...(result.taxonomy_attributes ?? {}), category_id: result.category_id };
}
