/**
 * Item identity and the derived search columns (docs/api-reference.md "Items"): the business key of item
 * data, the product grouping of a catalog, and the search text and words every writer stores
 * with an item (the same rules as the SQL functions `catalog_item_search_text` and
 * `catalog_item_search_tsv`).
 */
import type { Catalog } from '../../../models/catalog';

/** The key flattened clients use for an item's database id inside `data` (docs/api-reference.md "Items"). */
export const ITEM_ID_KEY = '__catalog_item_id';

/**
 * The system columns of a flattened snapshot row (docs/tool-server-design.md "Pull"; docs/api-reference.md "Bulk writes"):
 * the item's id, entity type, parent id and current version. Writers read them and never store
 * them in item `data`.
 */
export const SYSTEM_COLUMNS = [ITEM_ID_KEY, '__entity_type', '__parent_id', '__current_version'] as const;

/** Most items per bulk request (docs/api-reference.md "Limits"); more is a 413. */
export const BULK_ITEMS_LIMIT = 1000;

/** True when the catalog groups variants under products (docs/api-reference.md "Products and variants"). */
export function isGrouped(catalog: Pick<Catalog, 'product_enabled' | 'product_id_field'>): boolean {
  return catalog.product_enabled || Boolean(catalog.product_id_field);
}

/**
 * Longest business key (value of `unique_id_field` or `product_id_field`), in UTF-8 bytes. The
 * unique B-tree index over (catalog_id, business_key) refuses entries over ~2,700 bytes, which
 * failed a whole bulk write with a 500; such an item is now an item error.
 */
export const MAX_BUSINESS_KEY_BYTES = 1000;

/**
 * The condition selecting a catalog's items by database id or business key, for the look-up of a
 * batch (docs/large-catalogs.md "Identity look-ups of a growing catalog"). The catalog, the ids
 * and the keys are InitPlan parameters (`(SELECT ?)`), so the statement is planned without their
 * values: the rows come from the primary key and the business key index, at a cost that follows
 * the batch, even when the statistics know nothing of the catalog (written with plain values, a
 * catalog created since the last ANALYZE is estimated at 1 row, and the planner walked all its
 * rows through `(catalog_id, id)` for every batch).
 * @returns the SQL condition over `catalog_items` and its bindings (catalog id, ids, keys)
 */
export function itemsByIdOrKey(catalogId: string, ids: string[], keys: string[]): { sql: string; bindings: [string, string[], string[]] } {
  return {
    sql: 'catalog_id = (SELECT ?::uuid) AND (id = ANY((SELECT ?::uuid[])::uuid[]) OR business_key = ANY((SELECT ?::text[])::text[]))',
    bindings: [catalogId, ids, keys],
  };
}

/**
 * The business key of item data: the value of the catalog's `unique_id_field` as text, or null
 * when absent, empty or not a string/number (docs/api-reference.md "Items").
 */
export function businessKeyOf(data: Record<string, unknown>, field: string): string | null {
  const value = data[field];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value;
  return null;
}

/**
 * The search text of item data: its string and number values at any depth, lower-cased and
 * joined by spaces (the same rule as the SQL function `catalog_item_search_text`, which fills
 * the column for writers that do not supply it).
 */
export function searchTextOf(data: unknown): string {
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (typeof v === 'number') parts.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(data);
  return parts.join(' ').toLowerCase();
}

/** Largest word the SQL function `catalog_item_search_tsv` keeps (tsvector lexemes are < 2047 bytes). */
const MAX_WORD_BYTES = 2046;

/**
 * The words of a search text as `catalog_item_search_tsv` splits them (maximal runs of
 * `[[:alnum:]]`, distinct, shorter than 2047 bytes), for the INSERT to build `search_tsv` with
 * `array_to_tsvector` instead of the trigger's SQL regexp split (~40 µs a row). Only for
 * ASCII text, where `[[:alnum:]]` is `[A-Za-z0-9]` in every locale; for other text it returns
 * null and the trigger computes the vector in PostgreSQL, so both paths give the same lexemes.
 */
export function searchWordsOf(text: string): string[] | null {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(text)) return null;
  const words = new Set<string>();
  for (const w of text.split(/[^A-Za-z0-9]+/)) if (w !== '' && w.length <= MAX_WORD_BYTES) words.add(w);
  return [...words];
}
