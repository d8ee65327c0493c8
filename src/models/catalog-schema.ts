import type { RelationMappings } from 'objection';
import { BaseModel } from './base';

/**
 * One property of a catalog's JSON Schema. The standard keywords typed here are checked by Ajv's
 * meta-schema when the schema is stored (src/services/catalog/schema.ts); custom ones (`unit`,
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

/** One version of a catalog's schema (interface-spec.md "CatalogSchema"; decisions.md §2). */
export class CatalogSchema extends BaseModel {
  static tableName = 'catalog_schemas';
  static jsonAttributes = ['schema_definition', 'taxonomy', 'migration_rules', 'fields_workflow_info'];
  id!: string;
  catalog_id!: string;
  version!: string;
  /** A JSON Schema object: each property is a JSON Schema too (keywords read by src/services/catalog/schema.ts). */
  schema_definition!: { type?: string; properties: Record<string, JsonSchemaProperty>; required?: string[] } & Record<string, unknown>;
  taxonomy!: Record<string, unknown> | null;
  backward_compatible!: boolean;
  migration_rules!: Record<string, unknown> | null;
  created_by!: string;
  change_reason!: string;
  created_at!: Date;
  last_edited_by_workflow!: string | null;
  last_edited_at!: Date | null;
  fields_workflow_info!: Array<Record<string, unknown>>;

  static get relationMappings(): RelationMappings {
    return {
      catalog: { relation: BaseModel.BelongsToOneRelation, modelClass: 'catalog', join: { from: 'catalog_schemas.catalog_id', to: 'catalogs.id' } },
    };
  }
}
