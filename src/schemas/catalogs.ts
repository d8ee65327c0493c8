import type { JsonSchema } from '../lib/validation';

/**
 * JSON Schemas of the catalog routes (interface-spec.md, Catalogs; decisions.md §2, G1, G4,
 * G5). They validate requests and document them in `GET /api/openapi.json`.
 */

const name = { type: 'string', minLength: 1, maxLength: 100, description: 'Catalog name, 1-100 characters' };
const nullableText = { type: ['string', 'null'], maxLength: 10000 };
const timestamp = { type: 'string', format: 'date-time' };

/** `{catalog_id}` path parameter. */
export const catalogIdParams: JsonSchema = {
  type: 'object',
  required: ['catalog_id'],
  properties: { catalog_id: { type: 'string', description: 'Catalog id (UUID)' } },
};

/** `POST /public/catalogs` body. */
export const createCatalogBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'unique_id_field', 'schema_definition'],
  properties: {
    name,
    description: nullableText,
    unique_id_field: { type: 'string', minLength: 1, maxLength: 200, description: 'Legacy business-key field name (e.g. sku); not a runtime selector' },
    product_id_field: { type: ['string', 'null'], minLength: 1, maxLength: 200, description: 'Groups variants under products; sets product_enabled' },
    auto_evolve_schema: { type: 'boolean', default: false },
    strict_mode: { type: 'boolean', default: false },
    schema_definition: { type: 'object', description: 'JSON Schema with `properties` and optional `required`' },
    validation_rules: { type: 'object' },
    catalog_md: { type: 'string', maxLength: 1000000 },
    master_catalog_id: { type: 'string' },
    use_master_catalog_defaults: { type: 'boolean', default: false },
  },
};

/** `PUT /public/catalogs/{catalog_id}` body: every field optional. */
export const updateCatalogBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name,
    description: nullableText,
    auto_evolve_schema: { type: 'boolean' },
    strict_mode: { type: 'boolean' },
    catalog_md: { type: 'string', maxLength: 1000000 },
  },
};

/** `POST …/duplicate` body (G1). */
export const duplicateCatalogBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { name, description: nullableText, include_items: { type: 'boolean', default: false } },
};

/** `GET /public/catalogs` query. */
export const listCatalogsQuery: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
};

/** FieldWorkflowInfo (interface-spec.md). */
export const fieldWorkflowInfoSchema: JsonSchema = {
  type: 'object',
  required: ['field_name', 'field_type'],
  properties: {
    field_name: { type: 'string' },
    field_type: { type: 'string' },
    description: { type: ['string', 'null'] },
    required: { type: 'boolean' },
    field_category: { type: 'string', enum: ['input', 'generated'] },
    scope: { type: 'string' },
    unit: { type: ['string', 'null'] },
    sample_values: { type: ['array', 'null'], items: { type: 'string' } },
    added_by_workflow: { type: ['string', 'null'] },
    added_by_node: { type: ['string', 'null'] },
    added_in_version: { type: ['string', 'null'] },
    created_at: { type: ['string', 'null'], format: 'date-time' },
    last_edited_by_workflow: { type: ['string', 'null'] },
    last_edited_by_node: { type: ['string', 'null'] },
    last_edited_in_version: { type: ['string', 'null'] },
    last_edited_at: { type: ['string', 'null'], format: 'date-time' },
    validation_rules: { type: ['object', 'null'] },
  },
};

/** CatalogSchema (interface-spec.md). */
export const catalogSchemaResponse: JsonSchema = {
  type: 'object',
  required: ['id', 'catalog_id', 'version', 'schema_definition', 'backward_compatible', 'created_by', 'change_reason', 'created_at'],
  properties: {
    id: { type: 'string' },
    catalog_id: { type: 'string' },
    version: { type: 'string' },
    schema_definition: { type: 'object' },
    backward_compatible: { type: 'boolean' },
    migration_rules: { type: ['object', 'null'] },
    created_by: { type: 'string' },
    change_reason: { type: 'string' },
    created_at: timestamp,
    last_edited_by_workflow: { type: ['string', 'null'] },
    last_edited_at: { type: ['string', 'null'], format: 'date-time' },
    fields_workflow_info: { type: 'array', items: fieldWorkflowInfoSchema },
    total_fields: { type: 'integer' },
    input_fields_count: { type: 'integer' },
    generated_fields_count: { type: 'integer' },
  },
};

/** The catalog object (interface-spec.md "Catalog"). */
export const catalogResponse: JsonSchema = {
  type: 'object',
  required: ['id', 'organization_id', 'name', 'current_schema_version', 'unique_id_field', 'auto_evolve_schema', 'strict_mode', 'product_enabled', 'item_count', 'created_by_user_id', 'created_at'],
  properties: {
    id: { type: 'string' },
    organization_id: { type: 'string' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    current_schema_version: { type: 'string' },
    unique_id_field: { type: 'string' },
    product_id_field: { type: ['string', 'null'] },
    auto_evolve_schema: { type: 'boolean' },
    strict_mode: { type: 'boolean' },
    product_enabled: { type: 'boolean' },
    item_count: { type: 'integer' },
    validation_rules: { type: ['object', 'null'] },
    master_catalog_id: { type: ['string', 'null'] },
    use_master_catalog_defaults: { type: 'boolean' },
    created_by_user_id: { type: 'string' },
    created_at: timestamp,
    updated_at: { type: ['string', 'null'], format: 'date-time' },
    schema: { oneOf: [catalogSchemaResponse, { type: 'null' }] },
  },
};

/** `GET /public/catalogs` response. */
export const catalogListResponse: JsonSchema = {
  type: 'object',
  required: ['catalogs', 'total_count', 'page', 'page_size'],
  properties: {
    catalogs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: ['string', 'null'] },
          auto_evolve_schema: { type: 'boolean' },
          strict_mode: { type: 'boolean' },
          item_count: { type: 'integer' },
          current_schema_version: { type: 'string' },
          created_at: timestamp,
        },
      },
    },
    total_count: { type: 'integer' },
    page: { type: 'integer' },
    page_size: { type: 'integer' },
  },
};

/** `DELETE` catalog response. */
export const messageResponse: JsonSchema = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };

/** `GET …/catalog-md` query (G4). */
export const catalogMdQuery: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'integer', minimum: 1, description: 'Read this older version' } },
};

/** `PUT …/catalog-md` body (G4). */
export const catalogMdBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['catalog_md'],
  properties: { catalog_md: { type: 'string', maxLength: 1000000 } },
};

/** G4 response. */
export const catalogMdResponse: JsonSchema = {
  type: 'object',
  required: ['catalog_id', 'catalog_md', 'version', 'updated_at'],
  properties: { catalog_id: { type: 'string' }, catalog_md: { type: ['string', 'null'] }, version: { type: 'integer' }, updated_at: timestamp },
};

/** `PUT …/quality-prompt` body (G5). */
export const qualityPromptBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['prompt'],
  properties: { prompt: { type: 'string', maxLength: 100000 } },
};

/** G5 response. */
export const qualityPromptResponse: JsonSchema = {
  type: 'object',
  required: ['catalog_id', 'prompt', 'updated_at'],
  properties: { catalog_id: { type: 'string' }, prompt: { type: ['string', 'null'] }, updated_at: { type: ['string', 'null'], format: 'date-time' } },
};
