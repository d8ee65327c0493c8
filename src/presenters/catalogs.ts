import { iso } from '../lib/time';
import type { Catalog } from '../models/catalog';
import type { CatalogSchema } from '../models/catalog-schema';
import type { CatalogMd, QualityPrompt } from '../services/catalog/catalogs';
import { isGrouped } from '../services/catalog/items/items-keys';
import { fieldCounts } from '../services/catalog/schema/schema';
import type { FieldChangeResult } from '../services/catalog/schema/schema-fields';

/**
 * Catalog and schema rows → wire JSON with exactly the documented names (docs/api-reference.md "Catalogs" and "Schema versions"); timestamps ISO-8601 UTC with `Z` (docs/api-reference.md "Identifiers and timestamps").
 */

/** A schema version as docs/api-reference.md "Schema versions", with its three computed counts. */
export function presentSchema(schema: CatalogSchema): Record<string, unknown> {
  const info = schema.fields_workflow_info;
  return {
    id: schema.id,
    catalog_id: schema.catalog_id,
    version: schema.version,
    schema_definition: schema.schema_definition,
    backward_compatible: schema.backward_compatible,
    migration_rules: schema.migration_rules,
    created_by: schema.created_by,
    change_reason: schema.change_reason,
    created_at: iso(schema.created_at),
    last_edited_by_workflow: schema.last_edited_by_workflow,
    last_edited_at: iso(schema.last_edited_at),
    fields_workflow_info: info,
    ...fieldCounts(info),
  };
}

/** The catalog object of create/get/update/duplicate, with its current schema when given. */
export function presentCatalog(catalog: Catalog, schema: CatalogSchema | null): Record<string, unknown> {
  return {
    id: catalog.id,
    organization_id: catalog.organization_id,
    name: catalog.name,
    description: catalog.description,
    current_schema_version: catalog.current_schema_version,
    unique_id_field: catalog.unique_id_field,
    product_id_field: catalog.product_id_field,
    auto_evolve_schema: catalog.auto_evolve_schema,
    strict_mode: catalog.strict_mode,
    product_enabled: catalog.product_enabled,
    // docs/api-reference.md "Catalogs": the tool server's product/variant check keys on it (docs/tool-server-design.md "Validate").
    variant_mode: isGrouped(catalog) ? 'product_grouped' : 'none',
    item_count: catalog.item_count,
    validation_rules: catalog.validation_rules,
    master_catalog_id: catalog.master_catalog_id,
    use_master_catalog_defaults: catalog.use_master_catalog_defaults,
    created_by_user_id: catalog.created_by_user_id,
    created_at: iso(catalog.created_at),
    updated_at: iso(catalog.updated_at),
    schema: schema ? presentSchema(schema) : null,
  };
}

/** One entry of the catalog list (docs/api-reference.md "Schema versions", Catalog: the list's fields). */
export function presentCatalogEntry(
  catalog: Pick<Catalog, 'id' | 'name' | 'description' | 'auto_evolve_schema' | 'strict_mode' | 'item_count' | 'current_schema_version' | 'created_at'>,
): Record<string, unknown> {
  return {
    id: catalog.id,
    name: catalog.name,
    description: catalog.description,
    auto_evolve_schema: catalog.auto_evolve_schema,
    strict_mode: catalog.strict_mode,
    item_count: catalog.item_count,
    current_schema_version: catalog.current_schema_version,
    created_at: iso(catalog.created_at),
  };
}

/** The response of a catalog delete. */
export function presentCatalogDeleted(catalogId: string): { message: string } {
  return { message: `Catalog ${catalogId} deleted successfully` };
}

/**
 * The response of `PUT …/schema/fields/batch` (docs/api-reference.md "Batch field changes"): `{success, catalog_id,
 * new_schema_version, previous_schema_version, fields_added, fields_updated, fields_removed,
 * message}`.
 */
export function presentFieldBatch(r: FieldChangeResult): Record<string, unknown> {
  return {
    success: true,
    catalog_id: r.catalog_id,
    new_schema_version: r.new_schema_version,
    previous_schema_version: r.previous_schema_version,
    fields_added: r.fields_added,
    fields_updated: r.fields_updated,
    fields_removed: r.fields_removed,
    message: `Schema ${r.previous_schema_version} → ${r.new_schema_version}: ${r.summary}`,
  };
}

/** The response of `POST …/schema/fields` (docs/api-reference.md "Schema versions"): the batch response without the batch-only lists. */
export function presentFieldAdded(r: FieldChangeResult): Record<string, unknown> {
  const { fields_updated: _u, fields_removed: _r, ...single } = presentFieldBatch(r);
  return single;
}

/** A catalog-md version (docs/api-reference.md "Catalog context and quality prompt"): `{catalog_id, catalog_md, version, updated_at}`. */
export function presentCatalogMd(md: CatalogMd): Record<string, unknown> {
  return { catalog_id: md.catalog_id, catalog_md: md.catalog_md, version: md.version, updated_at: iso(md.updated_at) };
}

/** A quality prompt (docs/api-reference.md "Catalog context and quality prompt"): `{catalog_id, prompt, updated_at}`. */
export function presentQualityPrompt(q: QualityPrompt): Record<string, unknown> {
  return { catalog_id: q.catalog_id, prompt: q.prompt, updated_at: iso(q.updated_at) };
}
