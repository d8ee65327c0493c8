import { Type } from '@sinclair/typebox';
import { AnyObject, Nullable, POSITION_MAX, StringEnum, withDefault } from './common';

/**
 * JSON Schemas of the catalog routes (docs/api-reference.md "Catalogs"). They validate requests and document them in `GET /api/openapi.json`.
 */

const name = Type.String({ minLength: 1, maxLength: 100, description: 'Catalog name, 1-100 characters' });
const nullableText = Nullable(Type.String({ maxLength: 10000 }));
const timestamp = Type.String({ format: 'date-time' });
const nullableString = () => Nullable(Type.String());
const nullableTimestamp = () => Nullable(Type.String({ format: 'date-time' }));

/** `{catalog_id}` path parameter. */
export const catalogIdParams = Type.Object({ catalog_id: Type.String({ description: 'Catalog id (UUID)' }) });

/** `POST /public/catalogs` body. */
export const createCatalogBody = Type.Object(
  {
    name,
    description: Type.Optional(nullableText),
    unique_id_field: Type.String({ minLength: 1, maxLength: 200, description: 'Legacy business-key field name (e.g. sku); not a runtime selector' }),
    product_id_field: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'Groups variants under products; sets product_enabled' })),
    ),
    auto_evolve_schema: Type.Optional(withDefault(Type.Boolean(), false)),
    strict_mode: Type.Optional(withDefault(Type.Boolean(), false)),
    schema_definition: AnyObject({ description: 'JSON Schema with `properties` and optional `required`' }),
    validation_rules: Type.Optional(AnyObject()),
    catalog_md: Type.Optional(Type.String({ maxLength: 1000000 })),
    master_catalog_id: Type.Optional(Type.String()),
    use_master_catalog_defaults: Type.Optional(
      withDefault(
        Type.Boolean({
          description:
            "Inherit the taxonomy, quality prompt and catalog_md of master_catalog_id, else of the organization's default master catalog (PUT /public/organization/default-master-catalog); 422 when neither is set",
        }),
        false,
      ),
    ),
  },
  { additionalProperties: false },
);

/** `PUT /public/catalogs/{catalog_id}` body: every field optional. */
export const updateCatalogBody = Type.Object(
  {
    name: Type.Optional(name),
    description: Type.Optional(nullableText),
    auto_evolve_schema: Type.Optional(Type.Boolean()),
    strict_mode: Type.Optional(Type.Boolean()),
    catalog_md: Type.Optional(Type.String({ maxLength: 1000000 })),
  },
  { additionalProperties: false },
);

/** `POST …/duplicate` body (docs/api-reference.md "Catalogs"). */
export const duplicateCatalogBody = Type.Object(
  {
    name: Type.Optional(name),
    description: Type.Optional(nullableText),
    include_items: Type.Optional(withDefault(Type.Boolean(), false)),
  },
  { additionalProperties: false },
);

/** `GET /public/catalogs` query. */
export const listCatalogsQuery = Type.Object({
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 10)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
});

/** FieldWorkflowInfo (docs/api-reference.md "Schema versions"). */
export const fieldWorkflowInfoSchema = Type.Object({
  field_name: Type.String(),
  field_type: Type.String(),
  description: Type.Optional(nullableString()),
  required: Type.Optional(Type.Boolean()),
  field_category: Type.Optional(StringEnum(['input', 'generated'])),
  scope: Type.Optional(Type.String()),
  unit: Type.Optional(nullableString()),
  sample_values: Type.Optional(Nullable(Type.Array(Type.String()))),
  added_by_workflow: Type.Optional(nullableString()),
  added_by_node: Type.Optional(nullableString()),
  added_in_version: Type.Optional(nullableString()),
  created_at: Type.Optional(nullableTimestamp()),
  last_edited_by_workflow: Type.Optional(nullableString()),
  last_edited_by_node: Type.Optional(nullableString()),
  last_edited_in_version: Type.Optional(nullableString()),
  last_edited_at: Type.Optional(nullableTimestamp()),
  validation_rules: Type.Optional(Nullable(AnyObject())),
});

/** CatalogSchema (docs/api-reference.md "Schema versions"). */
export const catalogSchemaResponse = Type.Object({
  id: Type.String(),
  catalog_id: Type.String(),
  version: Type.String(),
  schema_definition: AnyObject(),
  backward_compatible: Type.Boolean(),
  migration_rules: Type.Optional(Nullable(AnyObject())),
  created_by: Type.String(),
  change_reason: Type.String(),
  created_at: timestamp,
  last_edited_by_workflow: Type.Optional(nullableString()),
  last_edited_at: Type.Optional(nullableTimestamp()),
  fields_workflow_info: Type.Optional(Type.Array(fieldWorkflowInfoSchema)),
  total_fields: Type.Optional(Type.Integer()),
  input_fields_count: Type.Optional(Type.Integer()),
  generated_fields_count: Type.Optional(Type.Integer()),
});

/** The catalog object (docs/api-reference.md "Catalogs"). */
export const catalogResponse = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  description: Type.Optional(nullableString()),
  current_schema_version: Type.String(),
  unique_id_field: Type.String(),
  product_id_field: Type.Optional(nullableString()),
  auto_evolve_schema: Type.Boolean(),
  strict_mode: Type.Boolean(),
  product_enabled: Type.Boolean(),
  item_count: Type.Integer(),
  validation_rules: Type.Optional(Nullable(AnyObject())),
  master_catalog_id: Type.Optional(nullableString()),
  use_master_catalog_defaults: Type.Optional(Type.Boolean()),
  created_by_user_id: Type.String(),
  created_at: timestamp,
  updated_at: Type.Optional(nullableTimestamp()),
  schema: Type.Optional(Type.Unsafe({ oneOf: [catalogSchemaResponse, { type: 'null' }] })),
});

/** `GET /public/catalogs` response. */
export const catalogListResponse = Type.Object({
  catalogs: Type.Array(
    Type.Object({
      id: Type.Optional(Type.String()),
      name: Type.Optional(Type.String()),
      description: Type.Optional(nullableString()),
      auto_evolve_schema: Type.Optional(Type.Boolean()),
      strict_mode: Type.Optional(Type.Boolean()),
      item_count: Type.Optional(Type.Integer()),
      current_schema_version: Type.Optional(Type.String()),
      created_at: Type.Optional(timestamp),
    }),
  ),
  total_count: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
});

/** `DELETE` catalog response. */
export const messageResponse = Type.Object({ message: Type.String() });

/** `GET …/catalog-md` query (docs/api-reference.md "Catalog context and quality prompt"). */
export const catalogMdQuery = Type.Object({ version: Type.Optional(Type.Integer({ minimum: 1, description: 'Read this older version' })) });

/** `PUT …/catalog-md` body (docs/api-reference.md "Catalog context and quality prompt"). */
export const catalogMdBody = Type.Object({ catalog_md: Type.String({ maxLength: 1000000 }) }, { additionalProperties: false });

/** response. */
export const catalogMdResponse = Type.Object({ catalog_id: Type.String(), catalog_md: nullableString(), version: Type.Integer(), updated_at: timestamp });

/** `PUT …/quality-prompt` body (docs/api-reference.md "Catalog context and quality prompt"). */
export const qualityPromptBody = Type.Object({ prompt: Type.String({ maxLength: 100000 }) }, { additionalProperties: false });

/** response. */
export const qualityPromptResponse = Type.Object({ catalog_id: Type.String(), prompt: nullableString(), updated_at: nullableTimestamp() });
