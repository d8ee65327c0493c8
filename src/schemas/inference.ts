import { Type } from '@sinclair/typebox';
import { AnyArray, AnyObject, Nullable, withDefault } from './common';
import { outputFieldSchema } from './enrich';

/**
 * JSON Schemas of the inference routes (docs/api-enrichment.md "Enrichment jobs": `POST /public/infer-schema`,
 * `POST /public/infer-enrichment`).
 */

/** Most example rows a caller may ask for (`max_sample_rows`). */
export const MAX_SAMPLE_ROWS = 1000;

/** The text fields of the `POST /public/infer-schema` form (validated with query coercion: form fields are strings). */
export const inferSchemaFields = Type.Object(
  {
    prompt: Type.Optional(Type.String({ maxLength: 20000, description: 'Description of the data' })),
    generate_taxonomy: Type.Optional(withDefault(Type.Boolean(), false)),
    max_sample_rows: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: MAX_SAMPLE_ROWS }), 20)),
  },
  { additionalProperties: false },
);

/** Multipart form of `POST /public/infer-schema` (documentation; src/middleware/file-form.ts enforces it). */
export const inferSchemaMultipart = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'The spreadsheet: CSV (.csv, any common delimiter and encoding) or Excel (.xlsx, or legacy .xls 97-2003)',
  }),
  prompt: Type.Optional(Type.String({ description: 'Description of the data' })),
  generate_taxonomy: Type.Optional(Type.Boolean({ default: false, description: 'Also suggest a taxonomy' })),
  max_sample_rows: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_SAMPLE_ROWS, default: 20, description: 'Example rows used for field examples and the LLM' }),
  ),
});

/** `POST /public/infer-enrichment` body. */
export const inferEnrichmentBody = Type.Object(
  {
    prompt: Type.Optional(withDefault(Type.String({ maxLength: 20000 }), '')),
    items: Type.Array(AnyObject(), { minItems: 1, maxItems: 1000, description: 'Items as objects (at most 1000, like inline enrich requests)' }),
  },
  { additionalProperties: false },
);

/** A node of a suggested taxonomy (src/services/sheets/taxonomy.ts): as `PUT …/taxonomy` takes it. */
const suggestedNode = Type.Object({
  name: Type.String(),
  parent: Nullable(Type.String()),
  description: Type.Optional(Type.String()),
});

const taxonomy = Nullable(
  Type.Object({
    name: Type.String(),
    description: Type.String(),
    hierarchy_levels: Type.Array(Type.String()),
    nodes: AnyObject({
      description: 'Nodes keyed by id: {name, parent, description?}; Google product taxonomy ids where a node is one of Google’s',
      additionalProperties: suggestedNode,
    }),
  }),
);

const explanation = Type.Object({
  file: Type.Optional(AnyObject({ description: 'How the file was read: format, encoding, delimiter, bom' })),
  unique_id_field: Nullable(Type.String()),
  unique_id_reason: Type.String(),
  product_id_field: Nullable(Type.String()),
  product_id_reason: Nullable(Type.String()),
  variant_attributes: Type.Array(Type.String()),
  taxonomy_reason: Nullable(Type.String()),
  fields: AnyObject({ description: 'Per input column: {reasons, warnings}' }),
  method: Type.String({ description: '`rules` (deterministic) or `llm` (rules refined by the configured LLM)' }),
  llm_error: Type.Optional(Type.String({ description: 'Why the LLM refinement was not applied' })),
});

const suggestedSchema = AnyObject({
  description:
    'JSON Schema for POST /public/catalogs `schema_definition`: `x-field-category` input (existing columns) or enriched (suggested); `x-unit`/`x-unit-code` (UN/CEFACT Rec 20 or ISO 4217), `x-reason`, `x-unique-id-field`, `x-product-id-field`',
});

/** Response of `POST /public/infer-schema`. */
export const inferSchemaResponse = Type.Object({
  file_name: Type.String(),
  total_rows: Type.Integer(),
  sample_rows_used: Type.Integer(),
  suggested_schema: suggestedSchema,
  web_enrichment_fields: Type.Array(outputFieldSchema, { description: 'Usable as `output_schema` of POST /public/enrich' }),
  suggested_taxonomy: Type.Optional(taxonomy),
  explanation,
});

/** Response of `POST /public/infer-enrichment`. */
export const inferEnrichmentResponse = Type.Object({
  suggested_schema: suggestedSchema,
  suggested_taxonomy: taxonomy,
  web_enrichment_fields: AnyArray(),
  explanation,
});
