/**
 * Taxonomy prediction for one item (docs/api-enrichment.md "Category prediction": `taxonomy`,
 * `predict_taxonomy`, `predict_taxonomy_attributes`; result fields `category_id`,
 * `taxonomy_attributes`, `taxonomy_attribute_sources`, `taxonomy_attribute_explanations`;
 * docs/api-enrichment.md "Review info" review_info and low-confidence scopes `category` / `taxonomy_attribute`).
 * No LLM: ./classify matches the item's own text and the matched pages' product facts.
 */
import { breadcrumbPath } from '../parse/breadcrumbs';
import type { PageDoc } from '../parse/page';
import type { StructuredProduct } from '../parse/products';
import { addCandidates, lowConfidenceWanted } from '../semantics/low-confidence';
import type { EnrichInput, EnrichmentResult, LowConfidenceCandidate, OutputField } from '../types';
import { attributeFields } from './attributes';
import { classifyBridged } from './bridge';
import type { CategoryEvidence } from './classify';
import { categoryExampleModel } from './examples';
import { compileTaxonomy, type CompiledTaxonomy } from './tree';

export { classify, type CategoryEvidence, type CategoryPrediction } from './classify';
export { compileTaxonomy, type CompiledTaxonomy, type TaxonomyNode } from './tree';
export { classifyBridged, withinBridge, type BridgedPrediction, type BridgeUse } from './bridge';
export { readGoogleTaxonomy, googleTaxonomyLoader } from './google';
export { attributeFields } from './attributes';

/** A page that matched the item, with its matched product (if any). */
export interface MatchedPage {
  url: string;
  doc: PageDoc;
  product?: StructuredProduct;
}

/** Item keys read as category statements, titles, and free text. */
const CATEGORY_KEY = /^(category|categories|product_?type|breadcrumbs?|department|google_product_category|type)$/i;
const TITLE_KEY = /^(name|title|product_?name|product_?title)$/i;
const SKIP_KEY = /(^|_)(id|sku|gtin|ean|upc|mpn|url|link|image|images|price|currency)s?($|_)/i;

/**
 * The classifier's evidence: the item's own fields, then the first three matched pages'
 * product facts — product name (title), the product's `category` and the page's breadcrumb
 * trail ("Furniture > Tables", see parse/breadcrumbs; both category statements), and its
 * description (free text).
 */
export function categoryEvidence(item: Record<string, unknown>, pages: MatchedPage[]): CategoryEvidence {
  const evidence: CategoryEvidence = { titles: [], categories: [], texts: [] };
  for (const [key, value] of Object.entries(item)) {
    const text = Array.isArray(value) ? value.filter((v) => typeof v === 'string').join(' > ') : typeof value === 'string' ? value : '';
    if (!text.trim() || SKIP_KEY.test(key)) continue;
    if (CATEGORY_KEY.test(key)) evidence.categories.push(text);
    else if (TITLE_KEY.test(key)) evidence.titles.push(text);
    else evidence.texts.push(text);
  }
  for (const page of pages.slice(0, 3)) {
    const p = page.product;
    if (p?.name) evidence.titles.push(p.name);
    if (p?.properties.category) evidence.categories.push(p.properties.category);
    const trail = breadcrumbPath(page.doc.breadcrumbs);
    if (trail && trail !== p?.properties.category) evidence.categories.push(trail);
    if (p?.description) evidence.texts.push(p.description);
  }
  return evidence;
}

/**
 * Classifies the item into `input.options.taxonomy` and, unless `predict_taxonomy_attributes`
 * is false, extracts the category's attributes with `extractFields` (the engine's extraction
 * over the same evidence). Writes `category_id`, the taxonomy attribute maps, review
 * reasoning/flags and `category` / `taxonomy_attribute` candidates into `result` in place.
 * A low-confidence category is withheld when `category` candidates are requested (the
 * candidate carries it instead); otherwise it is kept and the result is flagged for review.
 * `bridge`: the compiled Google product taxonomy, through which a catalog's own taxonomy is
 * predicted into (./bridge.ts; not used when the taxonomy is Google's); absent = names alone.
 * When the classifier abstains (two top-level departments match alike) no category is set
 * whatever the request; the best node becomes a `category` candidate when that scope is requested.
 */
export function applyTaxonomy(
  result: EnrichmentResult,
  input: EnrichInput,
  pages: MatchedPage[],
  extractFields: (fields: OutputField[]) => EnrichmentResult,
  bridge?: CompiledTaxonomy | null,
): void {
  const { options, item } = input;
  if (!options.predict_taxonomy || !options.taxonomy) return;
  const review = result.review_info;
  const tax = compileTaxonomy(options.taxonomy);
  const evidence = categoryEvidence(item, pages);
  const examples = options.category_examples?.length ? categoryExampleModel(tax, options.category_examples) : undefined;
  const prediction = classifyBridged(tax, evidence, examples, bridge);
  const sources = pages.slice(0, 3).map((p) => p.url);
  if (!prediction) {
    review.reasoning = `${review.reasoning} Taxonomy: no category matched the item's text.`.trim();
    review.flags.push('no_category');
    return;
  }
  const { node, confidence } = prediction;
  const path = node.path.join(' > ');
  const why = `matched terms ${prediction.matched.map((t) => `"${t}"`).join(', ') || 'none'}`;
  const alt = prediction.alternative ? `; runner-up ${prediction.alternative.path.join(' > ')} (${prediction.alternative.score} vs ${node.score})` : '';
  const via = prediction.bridge ? `; read with the Google product taxonomy's ${prediction.bridge.path.join(' > ')}` : '';
  const backoff = prediction.backed_off_from ? `; backed off from ${prediction.backed_off_from.path.join(' > ')}, too close to the runner-up` : '';
  const candidate = (id: string, p: string[], reason: string): LowConfidenceCandidate => ({
    name: 'category_id',
    scope: 'category',
    candidate_value: id,
    confidence: 'LOW',
    reason: `${p.join(' > ')}: ${reason}`,
    sources: sources.length > 0 ? sources : ['INPUT:name'],
    source_explanation: `Category predicted from the item's text (${why}).`,
  });
  if (prediction.abstain) {
    // Two departments tie: no guess across them; the best node is offered as a candidate when candidates are requested.
    addCandidates(result, options, [candidate(node.id, node.path, `too close to a node of another department${alt}`)]);
    review.reasoning = `${review.reasoning} Taxonomy: no category set, ${path} and another department match alike (${why}${alt}).`.trim();
    review.flags.push('low_confidence_category');
    return;
  }
  if (confidence === 'low' && lowConfidenceWanted(options, 'category')) {
    addCandidates(result, options, [candidate(node.id, node.path, `weak match${alt}`)]);
    review.reasoning = `${review.reasoning} Taxonomy: only a weak match (${path}, ${why}${alt}); left as a candidate.`.trim();
    review.flags.push('low_confidence_category');
    return;
  }
  result.category_id = node.id;
  review.reasoning = `${review.reasoning} Taxonomy: ${path} (${confidence} confidence; ${why}${via}${alt}${backoff}).`.trim();
  if (confidence === 'low') review.flags.push('low_confidence_category');
  if (prediction.backed_off_from)
    addCandidates(result, options, [candidate(prediction.backed_off_from.id, prediction.backed_off_from.path, `more specific category, not certain${alt}`)]);
  if (options.predict_taxonomy_attributes === false) return;
  const compiled = tax.nodes.get(node.id);
  const fields = attributeFields(compiled?.all_attributes ?? []);
  if (fields.length === 0) return;
  const extracted = extractFields(fields);
  result.taxonomy_attributes = {};
  result.taxonomy_attribute_sources = {};
  result.taxonomy_attribute_explanations = {};
  for (const f of fields) {
    const cited = extracted.after_data.sources[f.name];
    if (!cited) continue;
    result.taxonomy_attributes[f.name] = extracted.after_data[f.name];
    result.taxonomy_attribute_sources[f.name] = cited;
    result.taxonomy_attribute_explanations[f.name] = extracted.after_data.source_explanations[f.name] ?? '';
    cited.filter((s) => !s.startsWith('INPUT:') && !result.all_sources.includes(s)).forEach((s) => result.all_sources.push(s));
  }
  for (const issue of extracted.review_info.field_issues) review.field_issues.push({ field: `taxonomy_attributes.${issue.field}`, message: issue.message });
  addCandidates(
    result,
    options,
    (extracted.low_confidence_candidates ?? []).map((c) => ({ ...c, scope: 'taxonomy_attribute' as const })),
  );
}
