import type { ResolvedAppDeps } from '../deps';
import { PayloadTooLargeError, ValidationError } from '../lib/errors';
import { StageTimings } from '../lib/stage-timings';
import type { Validated } from '../lib/validation';
import { presentBulkResult, presentItem, presentRawItem } from '../presenters/items';
import {
  bulkItemsBody,
  bulkItemsResponse,
  bulkVariantsBody,
  bulkVariantsResponse,
  catalogParams,
  createVariantBody,
  deleteItemResponse,
  itemParams,
  itemResponse,
  listItemsQuery,
  listItemsResponse,
  productParams,
  rawItemResponse,
  rawItemsQuery,
  rawItemsResponse,
  updateItemBody,
  updateProductBody,
  updateProductResponse,
  upsertItemBody,
} from '../schemas/items';
import { bulkUpsertItems, deleteItem, updateItem, upsertItem } from '../services/catalog/items/items';
import { BULK_ITEMS_LIMIT } from '../services/catalog/items/items-keys';
import { listItems, loadItem, rawItemsJson } from '../services/catalog/items/items-read';
import { decodeCursor, encodeCursor, ItemCursor, SortOrder } from '../services/catalog/items/items-sql';
import { bulkUpsertVariants, createVariant, updateProduct } from '../services/catalog/items/products';
import { defineRoute, RouteDef } from './registry';
import { snapshotRoutes } from './snapshots';

/** 413 for batches over the documented limit (docs/api-reference.md "Limits"). */
function assertBatchSize(n: number, what: string): void {
  if (n > BULK_ITEMS_LIMIT) throw new PayloadTooLargeError(`At most ${BULK_ITEMS_LIMIT} ${what} per request (got ${n})`);
}

/** `sort=field:dir` or `sort_field` + `sort_order` (docs/api-reference.md "Items"); `sort_field` wins when both are given. */
function sortOf(q: Validated<typeof listItemsQuery>): { sort_field?: string; sort_order: SortOrder } {
  if (q.sort_field) return { sort_field: q.sort_field, sort_order: q.sort_order };
  if (q.sort) {
    const [field, dir] = String(q.sort).split(':');
    return { sort_field: field, sort_order: dir === 'desc' ? 'desc' : 'asc' };
  }
  return { sort_order: q.sort_order };
}

/** An `offset` from which a list answer advises the cursor (docs/large-catalogs.md "Deep pages"). */
export const DEEP_OFFSET = 10_000;

/**
 * `{notices}` for a list page at a deep offset, else nothing: an offset page reads and skips
 * every row before it, so its cost grows with the offset, while a page by `cursor` costs what
 * the first page costs (docs/large-catalogs.md "Deep pages").
 */
export function deepOffsetNotices(offset: number): { notices?: string[] } {
  if (offset < DEEP_OFFSET) return {};
  return { notices: [`deep_offset: offset ${offset} skips its rows one by one, slower the deeper; follow next_cursor to page deep`] };
}

/**
 * The keyset position of a `cursor` query parameter.
 * @throws ValidationError (422, loc query.cursor) for a cursor this service did not make, or one
 *   combined with an offset
 */
function cursorOf(cursor: string | undefined, offset: number): ItemCursor | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  if (offset > 0) throw ValidationError.at(['query', 'cursor'], 'Use cursor or offset, not both');
  const position = decodeCursor(cursor);
  if (!position) throw ValidationError.at(['query', 'cursor'], 'Not a cursor of this list: pass the next_cursor of the previous page');
  return position;
}

/**
 * Item, product/variant and raw-item routes (docs/api-reference.md "Items"), plus the snapshot routes (docs/api-reference.md "Snapshots"). One function because it is the resource's
 * route table (one entry per endpoint), not a procedure.
 * Long on purpose: a route table, one entry per route.
 */
export function itemRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['items'];
  const base = '/public/catalogs/:catalog_id';
  return [
    defineRoute({
      method: 'get',
      path: `${base}/items`,
      tags,
      summary: 'List items (pagination, search, sorting; exact total)',
      params: catalogParams,
      query: listItemsQuery,
      response: listItemsResponse,
      handler: async ({ scope, params, query }) => {
        const page = await listItems(deps, scope, params.catalog_id, {
          limit: query.limit,
          offset: query.offset,
          cursor: cursorOf(query.cursor, query.offset),
          search: query.search ?? query.search_query,
          ...sortOf(query),
        });
        return {
          items: page.items.map(presentItem),
          total: page.total,
          page: Math.floor(query.offset / query.limit) + 1,
          limit: query.limit,
          next_cursor: page.next_cursor ? encodeCursor(page.next_cursor) : null,
          ...deepOffsetNotices(query.offset),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/items/bulk`,
      tags,
      summary: 'Create or update up to 1000 items',
      params: catalogParams,
      body: bulkItemsBody,
      response: bulkItemsResponse,
      responseHeaders: {
        'Server-Timing':
          'Where the request spent its time (W3C Server Timing), milliseconds per stage: `lock` (waiting for the catalog lock), `parse`, `schema`, `identity`, `validation`, `words`, `write` (docs/benchmarks.md, "Bulk upsert by stage")',
      },
      atomic: true,
      handler: async ({ scope, params, body, db, ctx }) => {
        assertBatchSize(body.items.length, 'items');
        // docs/benchmarks.md "Bulk upsert by stage": where the request's time went, as a Server-Timing header.
        const timings = new StageTimings();
        const result = presentBulkResult(await bulkUpsertItems({ ...deps, knex: db }, scope, params.catalog_id, body, timings));
        ctx.set('Server-Timing', timings.header());
        return result;
      },
    }),
    defineRoute({
      method: 'get',
      path: `${base}/items/:item_id`,
      tags,
      summary: 'Get one item by database id',
      params: itemParams,
      response: itemResponse,
      handler: async ({ scope, params }) => presentItem(await loadItem(deps.knex, scope, params.catalog_id, params.item_id)),
    }),
    defineRoute({
      method: 'post',
      path: `${base}/items`,
      tags,
      summary: 'Upsert one item (identity: __catalog_item_id or the business key in data)',
      params: catalogParams,
      body: upsertItemBody,
      response: itemResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) =>
        presentItem(await upsertItem({ ...deps, knex: db }, scope, params.catalog_id, body.data, body.source_info)),
    }),
    defineRoute({
      method: 'put',
      path: `${base}/items/:item_id`,
      tags,
      summary: 'Update the given fields of one item',
      params: itemParams,
      body: updateItemBody,
      response: itemResponse,
      handler: async ({ scope, params, body }) => presentItem(await updateItem(deps, scope, params.catalog_id, params.item_id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: `${base}/items/:item_id`,
      tags,
      summary: 'Delete one item (a product with its variants)',
      params: itemParams,
      response: deleteItemResponse,
      handler: async ({ scope, params }) => {
        await deleteItem(deps.knex, scope, params.catalog_id, params.item_id);
        return { message: 'Item deleted successfully' };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/products/:product_id/items/bulk`,
      tags,
      summary: 'Bulk upsert the variants of one product',
      params: productParams,
      body: bulkVariantsBody,
      response: bulkVariantsResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) => {
        assertBatchSize(body.variants.length, 'variants');
        return presentBulkResult(await bulkUpsertVariants({ ...deps, knex: db }, scope, params.catalog_id, params.product_id, body));
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/products/:product_id/items`,
      tags,
      summary: 'Create one variant under a product',
      params: productParams,
      body: createVariantBody,
      response: itemResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) =>
        presentItem(await createVariant({ ...deps, knex: db }, scope, params.catalog_id, params.product_id, body)),
    }),
    defineRoute({
      method: 'put',
      path: `${base}/products/:product_id`,
      tags,
      summary: 'Update product-level (product_*) fields shared by every variant',
      params: productParams,
      body: updateProductBody,
      response: updateProductResponse,
      handler: async ({ scope, params, body }) => {
        const r = await updateProduct(deps, scope, params.catalog_id, params.product_id, body);
        return { product: presentItem(r.product), variants_updated: r.variants_updated, ignored_fields: r.ignored_fields };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${base}/raw-items`,
      tags,
      summary: 'Full-fidelity rows for full pulls (stable order, exact total)',
      params: catalogParams,
      query: rawItemsQuery,
      response: rawItemsResponse,
      handler: async ({ scope, params, query, ctx }) => {
        ctx.type = 'application/json';
        ctx.body = await rawItemsJson(deps.knex, scope, params.catalog_id, query);
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: `${base}/raw-items/:item_id`,
      tags,
      summary: 'One raw row',
      params: itemParams,
      response: rawItemResponse,
      handler: async ({ scope, params }) => presentRawItem(await loadItem(deps.knex, scope, params.catalog_id, params.item_id)),
    }),
    ...snapshotRoutes(deps),
  ];
}
