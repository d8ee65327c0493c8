import { BaseModel } from './base';

/** Field types a schema field may have (docs/api-reference.md "Schema versions", POST …/schema/fields). */
export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;

/**
 * One property of a catalog's JSON Schema. The standard keywords typed here are checked by Ajv's
 * meta-schema when the schema is stored (src/services/catalog/schema/schema.ts); custom ones (`unit`,
 * `x-…`) are unknown until read.
 */
export interface JsonSchemaProperty {
  type?: string | string[];
  description?: string;
  format?: string;
  enum?: unknown[];
  items?: JsonSchemaProperty | boolean;
  [keyword: string]: unknown;
}

/** One FieldWorkflowInfo entry (docs/api-review.md "Flows"). */
export interface FieldWorkflowInfo {
  field_name: string;
  field_type: string;
  description: string | null;
  required: boolean;
  field_category: 'input' | 'generated';
  scope: string;
  unit: string | null;
  sample_values: string[] | null;
  added_by_workflow: string | null;
  added_by_node: string | null;
  added_in_version: string | null;
  created_at: string | null;
  last_edited_by_workflow: string | null;
  last_edited_by_node: string | null;
  last_edited_in_version: string | null;
  last_edited_at: string | null;
  validation_rules: Record<string, unknown> | null;
}

/** A category attribute (docs/api-reference.md "Taxonomy"): `{name, type, values?, description?, required?}`. */
export interface TaxonomyAttribute {
  name: string;
  type?: string;
  values?: unknown[];
  description?: string;
  required?: boolean;
  [key: string]: unknown;
}

/**
 * The stored (normalised) taxonomy: object-form nodes, each with `parent` and `attributes`,
 * plus `node_order`, the input order of the ids (`jsonb` sorts object keys; the order is kept
 * for the response and for `children`).
 */
export interface StoredTaxonomy {
  name: string;
  description?: string;
  hierarchy_levels: string[];
  nodes: Record<string, { name: string; parent: string | null; description?: string | null; attributes: TaxonomyAttribute[] }>;
  node_order?: string[];
}

/** One version of a catalog's schema (docs/api-reference.md "Schema versions"). */
export class CatalogSchema extends BaseModel {
  static tableName = 'catalog_schemas';
  static jsonAttributes = ['schema_definition', 'taxonomy', 'migration_rules', 'fields_workflow_info'];
  id!: string;
  catalog_id!: string;
  version!: string;
  /** A JSON Schema object: each property is a JSON Schema too (keywords read by src/services/catalog/schema/schema.ts). */
  schema_definition!: { type?: string; properties: Record<string, JsonSchemaProperty>; required?: string[] } & Record<string, unknown>;
  /** The version's taxonomy in its stored (normalised docs/api-reference.md "Taxonomy") form (src/services/catalog/taxonomy.ts). */
  taxonomy!: StoredTaxonomy | null;
  backward_compatible!: boolean;
  migration_rules!: Record<string, unknown> | null;
  created_by!: string;
  change_reason!: string;
  created_at!: Date;
  last_edited_by_workflow!: string | null;
  last_edited_at!: Date | null;
  fields_workflow_info!: FieldWorkflowInfo[];
}
