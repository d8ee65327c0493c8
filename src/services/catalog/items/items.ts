import type { Knex } from 'knex';
import type { StageTimings } from '../../../lib/stage-timings';
import { Catalog } from '../../../models/catalog';
import { CatalogItem } from '../../../models/catalog-item';
import type { Scope } from '../../access/scope';
import type { CatalogDeps } from '../catalog-caches';
import { loadCatalogOwned } from '../catalogs';
import { loadItem, readItem } from './items-read';
import { throwSingleItemError, writeItems, WriteResult } from './items-write';
import { lockCatalog } from '../schema/schema';

/**
 * The item use cases of the item routes (docs/api-reference.md "Items"). Each use case owns its transaction (docs/architecture.md: a transaction starts in the
 * service function that owns the use case), which takes the catalog's write locks
 * (src/services/catalog/catalog-locks.ts), so identity look-ups and `catalogs.item_count` stay
 * exact under concurrent writers. Reading:
 * src/services/catalog/items/items-read.ts; batch writes: items-write.ts; search SQL: items-sql.ts.
 */

/**
 * Upserts one item (docs/api-reference.md "Items"): identity from `__catalog_item_id` or the business key in `data`
 * (`unique_identifier` is required by the request shape and otherwise ignored).
 * @returns the stored row
 * @throws ValidationError (422, strict mode), NotFoundError (404), ForbiddenError (403), ConflictError (409)
 */
export async function upsertItem(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  data: Record<string, unknown>,
  sourceInfo?: Record<string, unknown>,
): Promise<CatalogItem> {
  return deps.knex.transaction(async (trx) => {
    const catalog = await loadCatalogOwned(trx, scope, catalogId);
    const result = await writeItems(trx, deps.caches.catalog, scope, catalog, [data], { source_info: sourceInfo });
    if (result.errors.length > 0) throwSingleItemError(result.errors[0], ['body', 'data']);
    return (await readItem(trx, result.ids[0] as string)) as CatalogItem;
  });
}

/**
 * Partial update of one item by database id (`PUT …/items/{item_id}`): only the given fields
 * change; `current_version` + 1.
 * @throws NotFoundError (404), ForbiddenError (403), ValidationError (422, strict mode), ConflictError (409, business key taken)
 */
export async function updateItem(deps: CatalogDeps, scope: Scope, catalogId: string, itemId: string, patch: Record<string, unknown>): Promise<CatalogItem> {
  return deps.knex.transaction(async (trx) => {
    const item = await loadItem(trx, scope, catalogId, itemId);
    const catalog = await loadCatalogOwned(trx, scope, catalogId);
    const result = await writeItems(trx, deps.caches.catalog, scope, catalog, [patch], {
      ids: [item.id],
      ...(item.parent_id ? { parent: { id: item.parent_id, shared: {} } } : {}),
    });
    if (result.errors.length > 0) throwSingleItemError(result.errors[0], ['body']);
    return (await readItem(trx, item.id)) as CatalogItem;
  });
}

/**
 * Deletes one item; deleting a product deletes its variants too. `item_count` drops by the
 * rows removed (docs/api-reference.md "Items").
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function deleteItem(knex: Knex, scope: Scope, catalogId: string, itemId: string): Promise<void> {
  await knex.transaction(async (trx) => {
    const item = await loadItem(trx, scope, catalogId, itemId);
    await lockCatalog(trx, catalogId);
    const removed = await CatalogItem.query(trx)
      .where('catalog_id', catalogId)
      .andWhere((q) => q.where('id', item.id).orWhere('parent_id', item.id))
      .delete();
    await Catalog.query(trx).where('id', catalogId).decrement('item_count', removed);
  });
}

/** Body of `POST …/items/bulk` (docs/api-reference.md "Bulk writes"). */
export interface BulkItemsInput {
  items: unknown[];
  source_info?: Record<string, unknown>;
  auto_evolve_schema?: boolean;
}

/**
 * Bulk upsert (docs/api-reference.md "Bulk writes"), see {@link writeItems}. The caller enforces the 1000-item limit (413).
 * `timings`, when given, receives the time of each stage of the write (docs/benchmarks.md "Bulk upsert by stage").
 * @returns the counters without `success` and `ids`
 * @throws NotFoundError (404), ForbiddenError (403)
 */
export async function bulkUpsertItems(deps: CatalogDeps, scope: Scope, catalogId: string, body: BulkItemsInput, timings?: StageTimings): Promise<WriteResult> {
  return deps.knex.transaction(async (trx) => {
    const catalog = await loadCatalogOwned(trx, scope, catalogId);
    // An item equal to what it would be written with is left as it is (counted as updated).
    return writeItems(trx, deps.caches.catalog, scope, catalog, body.items, {
      source_info: body.source_info,
      auto_evolve_schema: body.auto_evolve_schema,
      skip_unchanged: 'as_updated',
      timings,
    });
  });
}
