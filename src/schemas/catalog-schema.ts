import { Static, Type } from '@sinclair/typebox';
import { FIELD_TYPES } from '../models/catalog-schema';
import { AnyArray, AnyObject, Nullable, StringEnum, withDefault } from './common';

/**
 * JSON Schemas of the schema and taxonomy routes (docs/api-reference.md "Schema versions" and Taxonomy;
 * docs/api-reference.md "Batch field changes").
 */

const fieldName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^(?!__)',
  description: 'Field name; names starting with `__` are reserved for system keys',
});

const fieldAttributes = {
  field_type: Type.Optional(StringEnum(FIELD_TYPES)),
  description: Type.Optional(Type.String({ maxLength: 4000 })),
  required: Type.Optional(Type.Boolean()),
  field_category: Type.Optional(StringEnum(['input', 'generated'], { description: 'Stored as workflow-tracking metadata only when workflow_id is given' })),
  unit: Type.Optional(Type.String({ maxLength: 50 })),
  sample_values: Type.Optional(AnyArray({ maxItems: 100 })),
  validation_rules: Type.Optional(AnyObject({ description: 'JSON Schema keywords for the field (pattern, enum, minimum, …)' })),
  scope: Type.Optional(StringEnum(['variant', 'product', 'both'])),
};

/** `POST …/schema/fields` body. */
export const addFieldBody = Type.Object(
  {
    field_name: fieldName,
    ...fieldAttributes,
    field_type: StringEnum(FIELD_TYPES),
    required: Type.Optional(withDefault(Type.Boolean(), false)),
    position: Type.Optional(withDefault(StringEnum(['top', 'bottom']), 'bottom')),
    workflow_id: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** `PUT …/schema/fields/batch` body (docs/api-reference.md "Batch field changes"). */
export const fieldBatchBody = Type.Object(
  {
    fields_to_add: Type.Optional(
      Type.Array(
        Type.Object(
          { field_name: fieldName, ...fieldAttributes, field_type: StringEnum(FIELD_TYPES), position: Type.Optional(StringEnum(['top', 'bottom'])) },
          { additionalProperties: false },
        ),
        { maxItems: 500 },
      ),
    ),
    fields_to_update: Type.Optional(Type.Array(Type.Object({ field_name: fieldName, ...fieldAttributes }, { additionalProperties: false }), { maxItems: 500 })),
    fields_to_remove: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 500 })),
    workflow_id: Type.Optional(Type.String({ maxLength: 200 })),
    reason: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/** Response of both field endpoints (the batch adds `fields_updated` and `fields_removed`). */
export const fieldChangeResponse = Type.Object({
  success: Type.Boolean(),
  catalog_id: Type.String(),
  new_schema_version: Type.String(),
  previous_schema_version: Type.String(),
  fields_added: Type.Array(Type.String()),
  fields_updated: Type.Optional(Type.Array(Type.String())),
  fields_removed: Type.Optional(Type.Array(Type.String())),
  message: Type.String(),
});

/** `GET …/schema` query: an older version. */
export const schemaVersionQuery = Type.Object({
  version: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', description: 'MAJOR.MINOR.PATCH of an older version' })),
});

const attribute = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.Optional(Type.String()),
  values: Type.Optional(AnyArray()),
  description: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
});

const nodeId = Type.String({ minLength: 1, maxLength: 200 });
const nodeName = Type.String({ minLength: 1, maxLength: 500 });
const nodeProperties = {
  id: Type.Optional(nodeId),
  name: Type.Optional(nodeName),
  parent: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Nullable(Type.String())),
  attributes: Type.Optional(Type.Array(attribute, { maxItems: 500 })),
};

/** A node of the object form (keyed by id) and of the array form (with its `id`). */
const keyedNode = Type.Object({ ...nodeProperties, name: nodeName });
const listedNode = Type.Object({ ...nodeProperties, id: nodeId, name: nodeName });

/**
 * `PUT …/taxonomy` body (docs/api-reference.md "Taxonomy"). `nodes` is an object keyed by node id, or an array of nodes each
 * with its `id` (where a repeated id is detectable and rejected).
 */
export const taxonomyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String()),
  hierarchy_levels: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
  nodes: Type.Unsafe<Record<string, Static<typeof keyedNode>> | Array<Static<typeof listedNode>>>({
    type: ['object', 'array'],
    maxItems: 100000,
    additionalProperties: keyedNode,
    items: listedNode,
  }),
});

const enrichedNode = Type.Object({
  ...nodeProperties,
  level: Type.Optional(Type.Integer({ description: '0 = root' })),
  path: Type.Optional(Type.Array(Type.String(), { description: 'Names from the root to the node, inclusive' })),
  children: Type.Optional(Type.Array(Type.String())),
  inherited_attributes: Type.Optional(Type.Array(attribute)),
  all_attributes: Type.Optional(Type.Array(attribute)),
});

/** The returned taxonomy (docs/api-reference.md "Taxonomy"), or null. */
export const taxonomyResponse = Type.Unsafe({
  type: ['object', 'null'],
  properties: {
    name: Type.String(),
    description: Nullable(Type.String()),
    hierarchy_levels: Type.Array(Type.String()),
    nodes: AnyObject({ additionalProperties: enrichedNode }),
  },
});
