import type { JsonSchema } from '../lib/validation';
import { FIELD_TYPES } from '../services/catalog/schema-fields';

/**
 * JSON Schemas of the schema and taxonomy routes (interface-spec.md, Schema and Taxonomy;
 * decisions.md §2, G2, G3).
 */

const fieldName = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: '^(?!__)',
  description: 'Field name; names starting with `__` are reserved for system keys',
};

const fieldAttributes = {
  field_type: { type: 'string', enum: [...FIELD_TYPES] },
  description: { type: 'string', maxLength: 4000 },
  required: { type: 'boolean' },
  field_category: { type: 'string', enum: ['input', 'generated'], description: 'Stored as workflow-tracking metadata only when workflow_id is given' },
  unit: { type: 'string', maxLength: 50 },
  sample_values: { type: 'array', maxItems: 100 },
  validation_rules: { type: 'object', description: 'JSON Schema keywords for the field (pattern, enum, minimum, …)' },
  scope: { type: 'string', enum: ['variant', 'product', 'both'] },
};

/** `POST …/schema/fields` body. */
export const addFieldBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['field_name', 'field_type'],
  properties: {
    field_name: fieldName,
    ...fieldAttributes,
    required: { type: 'boolean', default: false },
    position: { type: 'string', enum: ['top', 'bottom'], default: 'bottom' },
    workflow_id: { type: 'string', maxLength: 200 },
  },
};

/** `PUT …/schema/fields/batch` body (decisions.md §2, G2). */
export const fieldBatchBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fields_to_add: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field_name', 'field_type'],
        properties: { field_name: fieldName, ...fieldAttributes, position: { type: 'string', enum: ['top', 'bottom'] } },
      },
    },
    fields_to_update: {
      type: 'array',
      maxItems: 500,
      items: { type: 'object', additionalProperties: false, required: ['field_name'], properties: { field_name: fieldName, ...fieldAttributes } },
    },
    fields_to_remove: { type: 'array', maxItems: 500, items: { type: 'string', minLength: 1 } },
    workflow_id: { type: 'string', maxLength: 200 },
    reason: { type: 'string', maxLength: 2000 },
  },
};

/** Response of both field endpoints (the batch adds `fields_updated` and `fields_removed`). */
export const fieldChangeResponse: JsonSchema = {
  type: 'object',
  required: ['success', 'catalog_id', 'new_schema_version', 'previous_schema_version', 'fields_added', 'message'],
  properties: {
    success: { type: 'boolean' },
    catalog_id: { type: 'string' },
    new_schema_version: { type: 'string' },
    previous_schema_version: { type: 'string' },
    fields_added: { type: 'array', items: { type: 'string' } },
    fields_updated: { type: 'array', items: { type: 'string' } },
    fields_removed: { type: 'array', items: { type: 'string' } },
    message: { type: 'string' },
  },
};

/** `GET …/schema` query: an older version. */
export const schemaVersionQuery: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$', description: 'MAJOR.MINOR.PATCH of an older version' } },
};

const attribute = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    type: { type: 'string' },
    values: { type: 'array' },
    description: { type: 'string' },
    required: { type: 'boolean' },
  },
};

const nodeProperties = {
  id: { type: 'string', minLength: 1, maxLength: 200 },
  name: { type: 'string', minLength: 1, maxLength: 500 },
  parent: { type: ['string', 'null'] },
  description: { type: ['string', 'null'] },
  attributes: { type: 'array', items: attribute, maxItems: 500 },
};

/**
 * `PUT …/taxonomy` body (G3). `nodes` is an object keyed by node id, or an array of nodes each
 * with its `id` (where a repeated id is detectable and rejected).
 */
export const taxonomyBody: JsonSchema = {
  type: 'object',
  required: ['name', 'nodes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string' },
    hierarchy_levels: { type: 'array', items: { type: 'string' }, maxItems: 50 },
    nodes: {
      type: ['object', 'array'],
      maxItems: 100000,
      additionalProperties: { type: 'object', required: ['name'], properties: nodeProperties },
      items: { type: 'object', required: ['id', 'name'], properties: nodeProperties },
    },
  },
};

const enrichedNode = {
  type: 'object',
  properties: {
    ...nodeProperties,
    level: { type: 'integer', description: '0 = root' },
    path: { type: 'array', items: { type: 'string' }, description: 'Names from the root to the node, inclusive' },
    children: { type: 'array', items: { type: 'string' } },
    inherited_attributes: { type: 'array', items: attribute },
    all_attributes: { type: 'array', items: attribute },
  },
};

/** The returned taxonomy (interface-spec.md "Taxonomy (as returned)"), or null. */
export const taxonomyResponse: JsonSchema = {
  type: ['object', 'null'],
  properties: {
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    hierarchy_levels: { type: 'array', items: { type: 'string' } },
    nodes: { type: 'object', additionalProperties: enrichedNode },
  },
};
