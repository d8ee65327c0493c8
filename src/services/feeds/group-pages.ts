/**
 * Pages of whole products, for the writers that fold a product's variants into one record
 * (schema.org `ProductGroup`, docs/feeds.md "Runs" and docs/channels.md "Formats"). A full run
 * of such a feed pages its catalog by **group**, not by item: a group is a top-level item (no
 * `parent_id`) with its exportable variants, or a top-level item without variants that is
 * exportable itself. Groups are taken in id order (keyset: the last group's id) until the next
 * one would take the page past its item budget, so a page holds whole groups, at most `pageItems`
 * items unless one group alone is larger (it is then the page, read with all its variants).
 * What a page exports and records is per item, as in every run; only the part's text is written
 * one line per group. Delta runs and the row-per-item writers page by item (./pages.ts).
 */
import type { Knex } from 'knex';
import type { FeedRenderer, FeedRow } from './channel-port';

/** An item a feed page reads, by item (./pages.ts) or by product (here): the item, its kind and its product. */
export interface PageItem {
  id: string;
  entity_type: 'product' | 'variant';
  parent_id: string | null;
  business_key: string | null;
  data: Record<string, unknown>;
}

/**
 * What a feed page reads: its items, the ids it looked at (the items read, or for a `changed`
 * delta the touched ids, existing or deleted) and its keyset cursor. A page of whole products
 * gives the last group's id when more groups follow, null after the last group.
 */
export interface PageRead {
  items: PageItem[];
  ids: string[];
  last: string | null;
}

/** One candidate group: its top-level item's id, whether that item is exportable itself, and how many of its variants are. */
interface GroupCandidate {
  id: string;
  own: boolean;
  variants: number;
}

/**
 * Reads the next page of whole groups after `after` (a group id). `filter` is the feed's item
 * filter over unqualified `catalog_items` columns (src/services/catalog/items/items-sql.ts
 * `filterSql`): an item is exportable when it matches it and has no variants, as in a page by
 * item. Two reads: the candidate groups with their exportable sizes (by the `(catalog_id, id)`
 * and `parent_id` indexes), then the items of the groups that fit, ordered by group then id.
 */
export async function readGroupedPage(
  knex: Knex,
  catalogId: string,
  filter: { sql: string; bindings: Knex.RawBinding[] },
  after: string | null,
  pageItems: number,
): Promise<PageRead> {
  const { rows } = (await knex.raw(
    `SELECT id, own, variants FROM (
       SELECT p.id,
         (${filter.sql} AND NOT EXISTS (SELECT 1 FROM catalog_items c WHERE c.parent_id = p.id)) AS own,
         (SELECT count(*)::int FROM catalog_items v WHERE v.parent_id = p.id AND ${filter.sql}) AS variants
       FROM catalog_items p
       WHERE p.catalog_id = ? AND p.parent_id IS NULL ${after ? 'AND p.id > ?' : ''}
     ) g WHERE own OR variants > 0 ORDER BY id LIMIT ?`,
    [...filter.bindings, ...filter.bindings, catalogId, ...(after ? [after] : []), pageItems],
  )) as { rows: GroupCandidate[] };
  const taken: GroupCandidate[] = [];
  let size = 0;
  for (const g of rows) {
    const n = g.own ? 1 : g.variants;
    if (taken.length > 0 && size + n > pageItems) break;
    taken.push(g);
    size += n;
  }
  const more = rows.length === pageItems || taken.length < rows.length;
  const last = more && taken.length ? taken[taken.length - 1].id : null;
  const own = taken.filter((g) => g.own).map((g) => g.id);
  const grouped = taken.filter((g) => !g.own).map((g) => g.id);
  if (taken.length === 0) return { items: [], ids: [], last };
  const { rows: items } = (await knex.raw(
    `SELECT id, entity_type, parent_id, business_key, data FROM catalog_items
     WHERE ${filter.sql}
       AND ((id = ANY(?::uuid[]) AND NOT EXISTS (SELECT 1 FROM catalog_items c WHERE c.parent_id = catalog_items.id)) OR parent_id = ANY(?::uuid[]))
     ORDER BY COALESCE(parent_id, id), id`,
    [...filter.bindings, own, grouped],
  )) as { rows: PageItem[] };
  return { items, ids: items.map((i) => i.id), last };
}

/**
 * A grouped page's part: its exported items in read order, one `renderer.row` per item
 * without a product and one `renderer.group(product row, variant rows)` per run of variants
 * of the same product (a product whose variants were all excluded writes nothing).
 * @param productRow the row of a product by its item id (its own values, as a row without a product)
 */
export function renderGroupedPart(
  renderer: FeedRenderer,
  exported: Array<{ item: { parent_id: string | null }; row: FeedRow }>,
  productRow: (productId: string) => FeedRow,
): string {
  let text = '';
  for (let i = 0; i < exported.length;) {
    const parent = exported[i].item.parent_id;
    if (parent === null) {
      text += renderer.row(exported[i].row);
      i += 1;
      continue;
    }
    let j = i;
    while (j < exported.length && exported[j].item.parent_id === parent) j += 1;
    text += renderer.group(
      productRow(parent),
      exported.slice(i, j).map((e) => e.row),
    );
    i = j;
  }
  return text;
}
