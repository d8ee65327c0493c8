/**
 * Fixtures of the apply tests (test/workflows/review-apply.test.ts, test/durability/apply-crash.test.ts):
 * catalog items written through the item service, a review activity in `pending_review` and its
 * staged changes inserted through the models, and the item rows to assert on.
 */
import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { ReviewActivity } from '../../src/models/review-activity';
import { StagedChange } from '../../src/models/staged-change';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { bulkUpsertItems } from '../../src/services/catalog/items/items';

/** The scope of an organization's test API key. */
export function scopeOf(organizationId: string): { organizationId: string; principal: { kind: 'api_key'; id: string; organizationIds: string[] } } {
  return { organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [organizationId] } };
}

/** Writes items (by business key `sku`) through the item service. @returns sku → item id */
export async function seedItems(knex: Knex, organizationId: string, catalogId: string, items: Array<Record<string, unknown>>): Promise<Map<string, string>> {
  const out = await bulkUpsertItems({ knex, caches: { catalog: createCatalogCaches() } }, scopeOf(organizationId), catalogId, { items });
  if (out.errors.length) throw new Error(`seed failed: ${JSON.stringify(out.errors)}`);
  return new Map(items.map((it, i) => [String(it.sku), out.ids[i] as string]));
}

/** One staged change to insert; unspecified fields take the table's defaults. */
export type ChangeInput = Partial<
  Pick<StagedChange, 'catalog_item_id' | 'before_data' | 'after_data' | 'is_new_item' | 'status' | 'base_version' | 'is_delete' | 'accepted_fields'>
>;

/**
 * Inserts a `pending_review` activity of type custom_transform on the catalog with `changes`
 * (row_index in order) and `input_data`.
 * @returns the activity id and the staged change ids in order
 */
export async function seedReviewActivity(
  knex: Knex,
  organizationId: string,
  catalogId: string | null,
  changes: ChangeInput[],
  opts: { input_data?: Record<string, unknown>; status?: ReviewActivity['status'] } = {},
): Promise<{ activityId: string; changeIds: string[] }> {
  const activityId = newId();
  await ReviewActivity.query(knex).insert({
    id: activityId,
    organization_id: organizationId,
    catalog_id: catalogId,
    type: 'custom_transform',
    status: opts.status ?? 'pending_review',
    description: 'apply test',
    metadata: {},
    input_data: opts.input_data ?? null,
  });
  const changeIds = changes.map(() => newId());
  if (changes.length)
    await StagedChange.query(knex).insert(
      changes.map((c, i) => ({
        id: changeIds[i],
        activity_id: activityId,
        organization_id: organizationId,
        catalog_id: catalogId,
        catalog_item_id: c.catalog_item_id ?? null,
        catalog_item_entity_type: 'product',
        before_data: c.before_data ?? {},
        after_data: c.after_data ?? {},
        source_data: {},
        is_new_item: c.is_new_item ?? false,
        row_index: i,
        status: c.status ?? 'approved',
        review_info: null,
        base_version: c.base_version ?? null,
        is_delete: c.is_delete ?? false,
        accepted_fields: c.accepted_fields ?? null,
      })),
    );
  return { activityId, changeIds };
}

/** An item row as the tests assert on it. */
export interface ItemRow {
  id: string;
  data: Record<string, unknown>;
  current_version: number;
  business_key: string | null;
  search_text: string;
}

/** The catalog's items by sku. */
export async function itemsBySku(knex: Knex, catalogId: string): Promise<Map<string, ItemRow>> {
  const rows: ItemRow[] = await knex('catalog_items').where('catalog_id', catalogId).select('id', 'data', 'current_version', 'business_key', 'search_text');
  return new Map(rows.map((r) => [String(r.data.sku), r]));
}
