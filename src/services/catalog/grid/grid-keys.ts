/**
 * The grid's reads through the catalog's field keys (docs/console.md "Grid field indexes";
 * docs/large-catalogs.md "Sorting by a data field"). A grid field index is not an index on
 * `catalog_items`: any index reading `data` makes every update of `data` non-HOT, in every
 * catalog (docs/large-catalogs.md "Restores of large catalogs"). Instead the field's keys live in
 * the narrow side table `catalog_sort_keys` (one row per item and field, `k` =
 * `NULLIF(data -> field, 'null')`, the grid's sort key {@link GRID_KEY_SQL}; kept by the items'
 * statement triggers in the writing transaction), and the grid reads them:
 *
 * - a filter `eq` or `in`, or a number `range`, on a keyed field adds a candidate test ({@link keyCandidateSql}):
 *   an `EXISTS` over the field's keys the planner can drive from the key B-tree (a rare value: a
 *   few probes) or check per row (a common one). The candidates are a superset of the matches,
 *   and the filter's own condition stays in the `WHERE`, so the answer is the same with or
 *   without keys;
 * - a page sorted by a keyed field walks the key B-tree in the page's order
 *   ({@link keyedSortedRows}), so a first page reads about a page of rows, not the catalog.
 */
import type { Knex } from 'knex';
import type { ItemCursor, SortOrder } from '../items/items-sql';
import { rangeBounds, readWithoutJit, type GridFilter, type SqlPart } from './item-grid-query';

/** A row as the grid page's statements read it. */
export type RawRow = { id: string; entity_type: string; data: Record<string, unknown>; created_key: string; updated_key: string };

/** Rows of a page, and every match of the query when the statement counted them (cursor aside). */
export interface PageRows {
  rows: RawRow[];
  total?: number;
}

/** The columns of {@link RawRow} over `catalog_items` (or a sub-select of its columns). */
export const ROW_COLUMNS = 'id, entity_type, data, created_at::text AS created_key, updated_at::text AS updated_key';

/** Fields of a catalog whose keys are complete (`catalog_sort_fields.ready`), and whether each can sort (no value too large for a key). */
export type KeyedFields = Map<string, { sortable: boolean }>;

/**
 * The catalog's fields whose keys are ready, read when the query sorts by a data field or filters
 * with `eq`, `in` or `range` (else an empty map, nothing read). A field with a value too large for
 * a key (`oversize`) still filters (the candidates include such values) but does not sort;
 * only the sort field is probed for such values (a filter-only field reads `sortable` true).
 */
export async function keyedFields(knex: Knex, catalogId: string, wanted: { sort?: string; filters: GridFilter[] }): Promise<KeyedFields> {
  const fields = new Set<string>(wanted.filters.filter((f) => !f.negate && ['eq', 'in', 'range'].includes(f.op)).map((f) => f.field));
  if (wanted.sort) fields.add(wanted.sort);
  const out: KeyedFields = new Map();
  if (!fields.size) return out;
  // Only the sort field is probed for oversize keys: a filter uses a field's keys either way.
  const { rows } = (await knex.raw(
    `SELECT f.field, f.field IS DISTINCT FROM ?::text
         OR NOT EXISTS (SELECT 1 FROM catalog_sort_keys s WHERE s.catalog_id = f.catalog_id AND s.field = f.field AND s.oversize) AS sortable
     FROM catalog_sort_fields f WHERE f.catalog_id = ? AND f.ready AND f.field = ANY (?::text[])`,
    [wanted.sort ?? null, catalogId, [...fields]],
  )) as { rows: Array<{ field: string; sortable: boolean }> };
  for (const r of rows) out.set(r.field, { sortable: r.sortable });
  return out;
}

/**
 * The keys a text filter value `v` can match: `data ->> field = v` holds for the string `v`, and
 * for a number or boolean whose JSON text is `v` (the value `v` parses to: PostgreSQL's jsonb
 * reads its own output back). Returned as JSON texts. Null when `v` looks like a list or object
 * (their text has no single key to look up): such a filter reads the plain way.
 */
export function textKeys(v: string): string[] | null {
  const t = v.trim();
  if (t.startsWith('[') || t.startsWith('{')) return null;
  // jsonb refuses \u0000 and unpaired surrogates, which a key never holds: read the plain way.
  if (v.includes('\u0000') || /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(v)) return null;
  const keys = [JSON.stringify(v)];
  // A JSON number (PostgreSQL writes every number it keeps this way, without an exponent; an
  // exponent of up to 4 digits stays inside numeric's range), or one of the two booleans.
  if (t === v && v.length <= 10_000 && (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d{1,4})?$/.test(v) || v === 'true' || v === 'false')) keys.push(v);
  return keys;
}

/**
 * The condition on a key row `gk` that holds for every item the filter matches (and for some it
 * does not: the filter's own condition decides), or null when keys cannot narrow the filter (a
 * negated filter, a list or object field, a text range, another operator). Numbers and booleans
 * compare as the key itself (the filter is written over {@link GRID_KEY_SQL}); a number range's
 * bounds as JSON bounds (PostgreSQL's jsonb order, object > array > boolean > number > string >
 * null, keeps the numbers in range inside). A text `eq` or `in` looks up the keys of each value
 * ({@link textKeys}), and the values too large for a key when a value is long enough to be one.
 * A text range is not narrowed: the JSON text of any number, boolean, list or object can fall in
 * it, and no condition the planner can estimate finds those (an expression over the key is
 * guessed at 99.5 %, and the planner then reads the whole catalog).
 */
export function keyCondition(f: GridFilter, type: string): SqlPart | null {
  if (f.negate || type === 'array' || type === 'object') return null;
  const numeric = type === 'number' || type === 'integer';
  switch (f.op) {
    case 'eq':
    case 'in': {
      if (f.op === 'eq' && numeric) return { sql: 'gk.k = to_jsonb(?::numeric)', bindings: [Number(f.value.trim())] };
      if (f.op === 'eq' && type === 'boolean') return { sql: 'gk.k = ?::jsonb', bindings: [f.value.trim().toLowerCase()] };
      const values =
        f.op === 'eq'
          ? [f.value]
          : f.value
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean);
      const keys = values.map(textKeys);
      if (keys.some((k) => k === null)) return null;
      // A string's key holds its JSON text: over 1,000 bytes it is stored as `oversize` instead.
      const long = values.some((v) => Buffer.byteLength(v, 'utf8') > 900);
      return { sql: `(gk.k = ANY (?::jsonb[])${long ? ' OR gk.oversize' : ''})`, bindings: [keys.flat() as string[]] };
    }
    case 'range': {
      if (!numeric) return null;
      const { lo, hi } = rangeBounds(f);
      const parts: string[] = [];
      const bindings: Knex.RawBinding[] = [];
      for (const [bound, cmp] of [
        [lo, '>='],
        [hi, '<='],
      ] as const) {
        if (!bound) continue;
        parts.push(`gk.k ${cmp} to_jsonb(?::numeric)`);
        bindings.push(Number(bound));
      }
      return parts.length ? { sql: `(${parts.join(' AND ')})`, bindings } : null;
    }
    default:
      return null;
  }
}

/**
 * The candidate tests of a grid query's keyed filters ({@link keyCondition}), each an `EXISTS`
 * over the item's key row of that field, written for a `WHERE` over `catalog_items` (the item
 * table named as such). Empty when no filter is keyed.
 * @param types field → schema type (GridCatalog.types)
 */
export function keyCandidateSql(catalogId: string, filters: GridFilter[], types: Record<string, string>, keyed: KeyedFields): SqlPart[] {
  const out: SqlPart[] = [];
  for (const f of filters) {
    if (!keyed.has(f.field)) continue;
    const c = keyCondition(f, types[f.field] ?? 'string');
    if (!c) continue;
    out.push({
      sql: `EXISTS (SELECT 1 FROM catalog_sort_keys gk WHERE gk.catalog_id = ?::uuid AND gk.field = ? AND gk.item_id = catalog_items.id AND ${c.sql})`,
      bindings: [catalogId, f.field, ...c.bindings],
    });
  }
  return out;
}

/**
 * The first `want` rows matching `where` (over `catalog_items`) sorted by the keyed data field
 * `field`: those with a value in `dir` order, ties by id in the same direction, then the missing
 * values (and JSON nulls) by id ascending, after `cursor`; the same rows and order as the grid's
 * plain sort (item-grid.ts). Each part is one walk of the key B-tree
 * `catalog_sort_keys_asc (catalog_id, field, k, item_id)`, forwards or backwards, joining each
 * key's item and keeping those `where` matches, up to `want`. A key is its item's value in every
 * snapshot once the field is ready (the triggers write it in the item's transaction), so the
 * value is not compared again: such a test, a join filter the planner guesses at 0.5 %, made it
 * expect a few matches and read every one to sort them (3.1 s at 1,000,000 items, where the walk
 * takes 90 ms). `where` carries no candidate test ({@link keyCandidateSql}) for the same reason.
 * Only for a field {@link keyedFields} calls sortable.
 */
export async function keyedSortedRows(
  knex: Knex,
  catalogId: string,
  where: SqlPart,
  field: string,
  dir: SortOrder,
  cursor: ItemCursor | undefined,
  want: number,
): Promise<PageRows> {
  const d = dir === 'desc' ? 'DESC' : 'ASC';
  const inTail = cursor !== undefined && (cursor.k === null || cursor.k === undefined);
  const read = async (range: SqlPart, order: string, n: number): Promise<RawRow[]> => {
    const { rows } = await readWithoutJit<RawRow>(
      knex,
      `SELECT m.id, m.entity_type, m.data, m.created_at::text AS created_key, m.updated_at::text AS updated_key
       FROM catalog_sort_keys gk
       JOIN (SELECT id, entity_type, data, created_at, updated_at FROM catalog_items WHERE ${where.sql}) m ON m.id = gk.item_id
       WHERE gk.catalog_id = ?::uuid AND gk.field = ? AND ${range.sql}
       ORDER BY ${order} LIMIT ?`,
      [...where.bindings, catalogId, field, ...range.bindings, n],
    );
    return rows;
  };
  const head = inTail
    ? []
    : await read(
        cursor
          ? {
              sql: `gk.k IS NOT NULL AND (gk.k, gk.item_id) ${dir === 'desc' ? '<' : '>'} (?::jsonb, ?::uuid)`,
              bindings: [JSON.stringify(cursor.k), cursor.id],
            }
          : { sql: 'gk.k IS NOT NULL', bindings: [] },
        `gk.k ${d}, gk.item_id ${d}`,
        want,
      );
  if (head.length >= want) return { rows: head };
  const tail = await read(
    inTail ? { sql: 'gk.k IS NULL AND gk.item_id > ?::uuid', bindings: [cursor.id] } : { sql: 'gk.k IS NULL', bindings: [] },
    'gk.item_id',
    want - head.length,
  );
  return { rows: [...head, ...tail] };
}
