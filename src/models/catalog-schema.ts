import type { RelationMappings } from 'objection';
import { BaseModel } from './base';

/** One version of a catalog's schema (interface-spec.md "CatalogSchema"; decisions.md §2). */
export class CatalogSchema extends BaseModel {
  static tableName = 'catalog_schemas';
  static jsonAttributes = ['schema_definition', 'taxonomy', 'migration_rules', 'fields_workflow_info'];
  id!: string;
  catalog_id!: string;
  version!: string;
  schema_definition!: { type?: string; properties: Record<string, any>; required?: string[] } & Record<string, unknown>;
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
