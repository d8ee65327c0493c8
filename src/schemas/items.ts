import type { JsonSchema } from '../lib/validation';

/**
 * Ajv schemas of the item, product/variant and raw-item routes (interface-spec.md, Items;
 * decisions.md §3, G6–G10, G12). Shared by validation and the OpenAPI document.
 */

/** Largest page of `GET …/items` (G6). */
export const LIST_LIMIT_MAX = 1000;
/** Largest page of `GET …/raw-items` (interface-spec.md, Limits). */
export const RAW_LIMIT_MAX = 5000;

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };
const sortField: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, description: 'A top-level data field, or created_at / updated_at; the name is bound as a parameter, never spliced into SQL.' };
const sortOrder: JsonSchema = { type: 'string', enum: ['asc', 'desc'], default: 'asc' };
const search: JsonSchema = { type: 'string', maxLength: 500, description: 'Case-insensitive substring over the item’s text and number values.' };

/** Path of catalog-level routes. */
export const catalogParams: JsonSchema = { type: 'object', required: ['catalog_id'], properties: { catalog_id: { type: 'string' } } };
/** Path of single-item routes (`item_id` is the database id). */
export const itemParams: JsonSchema = { type: 'object', required: ['catalog_id', 'item_id'], properties: { catalog_id: { type: 'string' }, item_id: { type: 'string' } } };
/** Path of product routes (`product_id` is the product item's database id). */
export const productParams: JsonSchema = { type: 'object', required: ['catalog_id', 'product_id'], properties: { catalog_id: { type: 'string' }, product_id: { type: 'string' } } };

/** `GET …/items` query (G6): `sort=field:asc|desc` or `sort_field` + `sort_order`; `search_query` aliases `search`. */
export const listItemsQuery: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: 50 },
    offset: { type: 'integer', minimum: 0, default: 0 },
    search,
    search_query: search,
    sort: { type: 'string', maxLength: 210, pattern: '^[^:]+(:(asc|desc))?$', description: '`field:asc` or `field:desc`' },
    sort_field: sortField,
    sort_order: sortOrder,
  },
};

/** `GET …/raw-items` query (G12). */
export const rawItemsQuery: JsonSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: RAW_LIMIT_MAX, default: 1000 },
    offset: { type: 'integer', minimum: 0, default: 0 },
    entity_type: { type: 'string', enum: ['product', 'variant'] },
    search,
    sort_field: sortField,
    sort_order: sortOrder,
  },
};

/** `POST …/items` body (G7). */
export const upsertItemBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['unique_identifier', 'data'],
  properties: {
    unique_identifier: { type: ['string', 'number'], description: 'Legacy; required by the request shape, not used as a selector.' },
    data: { ...anyObject, description: 'Item data; identity is `__catalog_item_id` or the catalog’s unique_id_field inside it.' },
    source_info: anyObject,
  },
};

/** `PUT …/items/{item_id}` body: any item fields; only those given change. */
export const updateItemBody: JsonSchema = anyObject;

/** `POST …/items/bulk` body (G9); more than 1000 items is a 413, checked by the route. */
export const bulkItemsBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: { type: 'array', description: 'At most 1000 items; business key fields go inside each item.' },
    source_info: anyObject,
    auto_evolve_schema: { type: 'boolean' },
  },
};

/** `POST …/products/{product_id}/items` body (G10): the variant data (or `{data, unique_identifier, source_info}`). */
export const createVariantBody: JsonSchema = { ...anyObject, description: 'Variant data; needs sku (the unique_id_field) or unique_identifier.' };

/** `PUT …/products/{product_id}` body (G10): product-level fields; keys not starting `product_` are ignored. */
export const updateProductBody: JsonSchema = { ...anyObject, description: 'Only keys starting with product_ are applied.' };

/** `POST …/products/{product_id}/items/bulk` body (G10). */
export const bulkVariantsBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['variants'],
  properties: {
    product: { ...anyObject, description: 'product_* fields shared by every variant' },
    variants: { type: 'array', description: 'At most 1000 variants.' },
    source_info: anyObject,
    auto_evolve_schema: { type: 'boolean' },
  },
};

const metadata: JsonSchema = {
  type: 'object',
  properties: { created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' }, version: { type: 'integer' } },
};

/** One item in the list shape (G6). */
export const itemResponse: JsonSchema = { type: 'object', required: ['id', 'data', 'metadata'], properties: { id: { type: 'string' }, data: anyObject, metadata } };

/** `GET …/items` response (G6). */
export const listItemsResponse: JsonSchema = {
  type: 'object',
  properties: { items: { type: 'array', items: itemResponse }, total: { type: 'integer' }, page: { type: 'integer' }, limit: { type: 'integer' } },
};

/** `PUT …/products/{product_id}` response. */
export const updateProductResponse: JsonSchema = {
  type: 'object',
  properties: { product: itemResponse, variants_updated: { type: 'integer' }, ignored_fields: { type: 'array', items: { type: 'string' } } },
};

/** `DELETE …/items/{item_id}` response (G8). */
export const deleteItemResponse: JsonSchema = { type: 'object', properties: { message: { type: 'string', const: 'Item deleted successfully' } } };

const bulkProps: Record<string, JsonSchema> = {
  success: { type: 'boolean' },
  items_processed: { type: 'integer' },
  items_created: { type: 'integer' },
  items_updated: { type: 'integer' },
  items_failed: { type: 'integer' },
  schema_evolved: { type: 'boolean' },
  new_schema_version: { type: 'string' },
  errors: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, detail: { type: 'string' } } } },
};

/** `POST …/items/bulk` response (G9). */
export const bulkItemsResponse: JsonSchema = { type: 'object', properties: bulkProps };

/** `POST …/products/{product_id}/items/bulk` response (G10). */
export const bulkVariantsResponse: JsonSchema = {
  type: 'object',
  properties: { ...bulkProps, product_id: { type: 'string' }, duplicates_in_payload: { type: 'integer' }, warnings: { type: 'array', items: { type: 'string' } } },
};

/** One raw row (G12). */
export const rawItemResponse: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, entity_type: { type: 'string', enum: ['product', 'variant'] }, parent_id: { type: ['string', 'null'] }, current_version: { type: 'integer' }, data: anyObject },
};

/** `GET …/raw-items` response (G12). */
export const rawItemsResponse: JsonSchema = { type: 'object', properties: { items: { type: 'array', items: rawItemResponse }, total: { type: 'integer' } } };
