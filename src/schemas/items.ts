import { Type } from '@sinclair/typebox';
import { AnyArray, AnyObject, Nullable, POSITION_MAX, StringEnum, withDefault } from './common';

/**
 * Ajv schemas of the item, product/variant and raw-item routes (docs/api-reference.md "Items"). Shared by validation and the OpenAPI document.
 */

/** Largest page of `GET …/items` (docs/api-reference.md "Items"). */
export const LIST_LIMIT_MAX = 1000;
/** Largest page of `GET …/raw-items` (docs/api-reference.md "Limits"). */
export const RAW_LIMIT_MAX = 5000;

const anyObject = () => AnyObject({ additionalProperties: true });
const sortField = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'A top-level data field, or created_at / updated_at; the name is bound as a parameter, never spliced into SQL.',
});
const sortOrder = withDefault(StringEnum(['asc', 'desc']), 'asc');
const search = Type.String({ maxLength: 500, description: 'Case-insensitive substring over the item’s text and number values.' });

/** Path of catalog-level routes. */
export const catalogParams = Type.Object({ catalog_id: Type.String() });
/** Path of single-item routes (`item_id` is the database id). */
export const itemParams = Type.Object({ catalog_id: Type.String(), item_id: Type.String() });
/** Path of product routes (`product_id` is the product item's database id). */
export const productParams = Type.Object({ catalog_id: Type.String(), product_id: Type.String() });

/** `GET …/items` query (docs/api-reference.md "Items"): `sort=field:asc|desc` or `sort_field` + `sort_order`; `search_query` aliases `search`. */
export const listItemsQuery = Type.Object({
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX }), 50)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
  search: Type.Optional(search),
  search_query: Type.Optional(search),
  sort: Type.Optional(Type.String({ maxLength: 210, pattern: '^[^:]+(:(asc|desc))?$', description: '`field:asc` or `field:desc`' })),
  sort_field: Type.Optional(sortField),
  sort_order: Type.Optional(sortOrder),
  cursor: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'The `next_cursor` of the previous page: the next page starts after it, as fast at any depth (use instead of `offset`)',
    }),
  ),
});

/** `GET …/raw-items` query (docs/api-reference.md "Raw items"). */
export const rawItemsQuery = Type.Object({
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: RAW_LIMIT_MAX }), 1000)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
  entity_type: Type.Optional(StringEnum(['product', 'variant'])),
  search: Type.Optional(search),
  sort_field: Type.Optional(sortField),
  sort_order: Type.Optional(sortOrder),
});

/** `POST …/items` body (docs/api-reference.md "Items"). */
export const upsertItemBody = Type.Object(
  {
    unique_identifier: Type.Unsafe<string | number>({
      type: ['string', 'number'],
      description: 'Legacy; required by the request shape, not used as a selector.',
    }),
    data: AnyObject({ additionalProperties: true, description: 'Item data; identity is `__catalog_item_id` or the catalog’s unique_id_field inside it.' }),
    source_info: Type.Optional(anyObject()),
  },
  { additionalProperties: false },
);

/** `PUT …/items/{item_id}` body: any item fields; only those given change. */
export const updateItemBody = anyObject();

/** `POST …/items/bulk` body (docs/api-reference.md "Bulk writes"); more than 1000 items is a 413, checked by the route. */
export const bulkItemsBody = Type.Object(
  {
    items: AnyArray({ description: 'At most 1000 items; business key fields go inside each item.' }),
    source_info: Type.Optional(anyObject()),
    auto_evolve_schema: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** `POST …/products/{product_id}/items` body (docs/api-reference.md "Products and variants"): the variant data (or `{data, unique_identifier, source_info}`). */
export const createVariantBody = AnyObject({ additionalProperties: true, description: 'Variant data; needs sku (the unique_id_field) or unique_identifier.' });

/** `PUT …/products/{product_id}` body (docs/api-reference.md "Products and variants"): product-level fields; keys not starting `product_` are ignored. */
export const updateProductBody = AnyObject({ additionalProperties: true, description: 'Only keys starting with product_ are applied.' });

/** `POST …/products/{product_id}/items/bulk` body (docs/api-reference.md "Products and variants"). */
export const bulkVariantsBody = Type.Object(
  {
    product: Type.Optional(AnyObject({ additionalProperties: true, description: 'product_* fields shared by every variant' })),
    variants: AnyArray({ description: 'At most 1000 variants.' }),
    source_info: Type.Optional(anyObject()),
    auto_evolve_schema: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const metadata = Type.Object({
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  version: Type.Optional(Type.Integer()),
});

/** One item in the list shape (docs/api-reference.md "Items"). */
export const itemResponse = Type.Object({ id: Type.String(), data: anyObject(), metadata });

/** `GET …/items` response (docs/api-reference.md "Items"). */
export const listItemsResponse = Type.Object({
  items: Type.Optional(Type.Array(itemResponse)),
  total: Type.Optional(Type.Integer()),
  page: Type.Optional(Type.Integer()),
  limit: Type.Optional(Type.Integer()),
  next_cursor: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page' })),
  notices: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'Present only with a deep `offset` (10,000 or more): such a page skips its rows one by one; follow `next_cursor` to page deep (docs/large-catalogs.md "Deep pages")',
    }),
  ),
});

/** `PUT …/products/{product_id}` response. */
export const updateProductResponse = Type.Object({
  product: Type.Optional(itemResponse),
  variants_updated: Type.Optional(Type.Integer()),
  ignored_fields: Type.Optional(Type.Array(Type.String())),
});

/** `DELETE …/items/{item_id}` response (docs/api-reference.md "Items"). */
export const deleteItemResponse = Type.Object({ message: Type.Optional(Type.String({ const: 'Item deleted successfully' })) });

const bulkProps = {
  success: Type.Optional(Type.Boolean()),
  items_processed: Type.Optional(Type.Integer()),
  items_created: Type.Optional(Type.Integer()),
  items_updated: Type.Optional(Type.Integer()),
  items_failed: Type.Optional(Type.Integer()),
  schema_evolved: Type.Optional(Type.Boolean()),
  new_schema_version: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(Type.Object({ index: Type.Optional(Type.Integer()), detail: Type.Optional(Type.String()) }))),
};

/** `POST …/items/bulk` response (docs/api-reference.md "Bulk writes"). */
export const bulkItemsResponse = Type.Object(bulkProps);

/** `POST …/products/{product_id}/items/bulk` response (docs/api-reference.md "Products and variants"). */
export const bulkVariantsResponse = Type.Object({
  ...bulkProps,
  product_id: Type.Optional(Type.String()),
  duplicates_in_payload: Type.Optional(Type.Integer()),
  warnings: Type.Optional(Type.Array(Type.String())),
});

/** One raw row (docs/api-reference.md "Raw items"). */
export const rawItemResponse = Type.Object({
  id: Type.Optional(Type.String()),
  entity_type: Type.Optional(StringEnum(['product', 'variant'])),
  parent_id: Type.Optional(Nullable(Type.String())),
  current_version: Type.Optional(Type.Integer()),
  data: Type.Optional(anyObject()),
});

/** `GET …/raw-items` response (docs/api-reference.md "Raw items"). */
export const rawItemsResponse = Type.Object({ items: Type.Optional(Type.Array(rawItemResponse)), total: Type.Optional(Type.Integer()) });
