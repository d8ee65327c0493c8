/**
 * The first pages of a list sorted by a data field, by walking the field's sort keys
 * (docs/large-catalogs.md "Sorting by a data field"; keys kept by src/services/catalog/items/sort-keys.ts).
 *
 * `catalog_sort_keys` holds one row per item with the list's sort key and two B-trees in the
 * list's two orders (`k ASC|DESC NULLS LAST, item_id ASC`). A page walks one of them from its
 * start (or from the cursor) in chunks, joins each candidate's item and keeps those the list's
 * filter matches and whose current value is the key, until the page is full: for a filter that
 * matches a share s of the items about (offset + limit) / s rows are read, not every match. The
 * walk gives up after a budget of rows (a filter much rarer in the first keys than overall, or a
 * stale estimate) and the caller sorts the plain way; its answer is then the same, only slower.
 */
import type { Knex } from 'knex';
import type { ItemCursor, SortOrder } from './items-sql';

/** A walk of one list page (see the module comment). */
export interface SortedWalk {
  catalogId: string;
  field: string;
  order: SortOrder;
  /** The list's filter over `catalog_items` columns (unqualified), as filterSql writes it. */
  where: { sql: string; bindings: Knex.RawBinding[] };
  /** Start after this position (keyset paging). */
  cursor?: ItemCursor;
  /** Matches wanted: the page's offset + limit. */
  need: number;
  /** Expected share of the items the filter matches (0–1]: sizes the first chunk. */
  share: number;
  /** Most key rows read before giving up. */
  budget: number;
}

/** Where a walk stands in the key order: in the keyed values after a position, or in the missing-values tail. */
type Position = { part: 'values'; after?: { k: string; id: string } } | { part: 'nulls'; afterId?: string };

/**
 * The ids of the first `need` items of the walk's list in its order, read in `trx` (one snapshot
 * with the page's total, REPEATABLE READ).
 * @returns the ids (fewer than `need` when the list ends), or null when the field's keys are not
 *   ready in this snapshot, a value of the field is too large for a key, or the budget ran out
 */
export async function walkSortKeys(trx: Knex | Knex.Transaction, w: SortedWalk): Promise<string[] | null> {
  const {
    rows: [state],
  } = await trx.raw(
    `SELECT f.ready AND NOT EXISTS (SELECT 1 FROM catalog_sort_keys s WHERE s.catalog_id = f.catalog_id AND s.field = f.field AND s.oversize) AS usable
     FROM catalog_sort_fields f WHERE f.catalog_id = ? AND f.field = ?`,
    [w.catalogId, w.field],
  );
  if (!state?.usable) return null;
  const dir = w.order === 'desc' ? 'DESC' : 'ASC';
  const cmp = w.order === 'desc' ? '<' : '>';
  let pos: Position =
    w.cursor === undefined
      ? { part: 'values' }
      : w.cursor.k === null || w.cursor.k === undefined
        ? { part: 'nulls', afterId: w.cursor.id }
        : { part: 'values', after: { k: JSON.stringify(w.cursor.k), id: w.cursor.id } };
  const ids: string[] = [];
  let read = 0;
  let chunk = Math.min(w.budget, Math.max(64, Math.ceil((w.need / Math.max(w.share, 1e-6)) * 1.2) + 16));
  while (ids.length < w.need) {
    if (read >= w.budget) return null;
    const range =
      pos.part === 'nulls'
        ? { sql: `k IS NULL${pos.afterId ? ' AND item_id > ?::uuid' : ''}`, bindings: pos.afterId ? [pos.afterId] : [] }
        : pos.after
          ? { sql: `k ${cmp}= ?::jsonb AND (k ${cmp} ?::jsonb OR item_id > ?::uuid)`, bindings: [pos.after.k, pos.after.k, pos.after.id] }
          : { sql: 'k IS NOT NULL', bindings: [] };
    const { rows } = (await trx.raw(
      `SELECT s.item_id, s.k::text AS k, ci.id IS NOT NULL AS hit
       FROM (SELECT item_id, k FROM catalog_sort_keys WHERE catalog_id = ? AND field = ? AND ${range.sql}
             ORDER BY k ${dir} NULLS LAST, item_id ASC LIMIT ?) s
       LEFT JOIN catalog_items ci ON ci.id = s.item_id AND ${w.where.sql} AND NULLIF(ci.data -> ?::text, 'null'::jsonb) IS NOT DISTINCT FROM s.k
       ORDER BY s.k ${dir} NULLS LAST, s.item_id ASC`,
      [w.catalogId, w.field, ...range.bindings, chunk, ...w.where.bindings, w.field],
    )) as { rows: Array<{ item_id: string; k: string | null; hit: boolean }> };
    read += rows.length;
    for (const r of rows) if (r.hit && ids.length < w.need) ids.push(r.item_id);
    if (rows.length < chunk) {
      // This part of the order is read to its end: the values go on with the missing-values tail.
      if (pos.part === 'nulls') break;
      pos = { part: 'nulls' };
    } else {
      const last = rows[rows.length - 1];
      pos = pos.part === 'nulls' ? { part: 'nulls', afterId: last.item_id } : { part: 'values', after: { k: last.k as string, id: last.item_id } };
    }
    chunk = Math.min(chunk * 2, Math.max(64, w.budget - read));
  }
  return ids;
}
