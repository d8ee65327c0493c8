import type { Inference } from '../services/sheets/infer';
import type { SuggestedField } from '../services/sheets/enrichment-fields';

/**
 * Wire JSON of inference results (docs/api-enrichment.md "Enrichment jobs": `POST /public/infer-schema`,
 * `POST /public/infer-enrichment`).
 */

/** A suggested field as an output-schema field (`reason` stays in `suggested_schema`'s `x-reason`). */
function outputField(s: SuggestedField): Record<string, unknown> {
  return {
    name: s.name,
    type: s.type === 'integer' ? 'integer' : s.type,
    description: s.description,
    ...(s.unit ? { unit: s.unit } : {}),
    ...(s.enum ? { enum: s.enum } : {}),
    ...(s.array_element_type ? { array_element_type: s.array_element_type } : {}),
    ...(s.pattern ? { pattern: s.pattern } : {}),
  };
}

/** The `explanation` object: why each choice was made. */
function explanation(r: Inference): Record<string, unknown> {
  return {
    ...(r.dialect ? { file: { format: r.dialect.format, encoding: r.dialect.encoding, delimiter: r.dialect.delimiter, bom: r.dialect.bom } } : {}),
    unique_id_field: r.structure.unique_id_field,
    unique_id_reason: r.structure.unique_id_reason,
    product_id_field: r.structure.product_id_field,
    product_id_reason: r.structure.product_id_reason,
    variant_attributes: r.structure.variant_attributes,
    taxonomy_reason: r.taxonomy?.reason ?? null,
    fields: Object.fromEntries(r.fields.map((f) => [f.name, { reasons: f.reasons, warnings: f.warnings }])),
    method: r.method,
    ...(r.llm_error ? { llm_error: r.llm_error } : {}),
  };
}

/** `POST /public/infer-schema` response; `suggested_taxonomy` only when it was asked for. */
export function presentSchemaInference(fileName: string, r: Inference, withTaxonomy: boolean): Record<string, unknown> {
  return {
    file_name: fileName,
    total_rows: r.total_rows,
    sample_rows_used: r.sample_rows_used,
    suggested_schema: r.schema,
    web_enrichment_fields: r.enrichment_fields.map(outputField),
    ...(withTaxonomy ? { suggested_taxonomy: r.taxonomy?.taxonomy ?? null } : {}),
    explanation: explanation(r),
  };
}

/** `POST /public/infer-enrichment` response. */
export function presentEnrichmentInference(r: Inference): Record<string, unknown> {
  return {
    suggested_schema: r.schema,
    suggested_taxonomy: r.taxonomy?.taxonomy ?? null,
    web_enrichment_fields: r.enrichment_fields.map(outputField),
    explanation: explanation(r),
  };
}
