/**
 * The SQL of item lists and searches (docs/api-reference.md "Items"): the `WHERE` clause of a
 * filter with its word search, and the `ORDER BY` of a sort. Set-based SQL by design
 * (docs/architecture.md "3. Which data-access style when"): the word conditions use PostgreSQL text search functions
 * and indexes the query builder cannot express.
 */
import type { Knex } from 'knex';
import { wordsColumn } from '../search/search-words';
import { own } from '../../../lib/objects';
import { isUuid } from '../../../lib/ids';

/** Sort direction of list and raw-item queries. */
export type SortOrder = 'asc' | 'desc';

/** Column sorts; any other sort field is a top-level key of `data`, passed as a bound parameter. */
const SORT_COLUMNS: Record<string, string> = { created_at: 'created_at', updated_at: 'updated_at', id: 'id' };

/** Filters of list and raw-item queries. */
export interface ItemFilter {
  search?: string;
  entity_type?: 'product' | 'variant';
  /** Only items without a parent (product-grouped list view); search then also matches through variants. */
  top_level?: boolean;
  /**
   * The catalog's `search_words_pending`, read in the query's snapshot: words are then matched
   * without the word index (src/services/catalog/search/search-words.ts).
   */
  words_pending?: boolean;
  /**
   * The part of `search` the word index matches, when not the whole term: the term without a
   * common last word its literal match implies (src/services/catalog/search/common-words.ts).
   */
  words_term?: string;
  /**
   * With `words_pending`: the items whose pending words may match (search-words.ts
   * `pendingWordMatches`); the search then reads the word index's candidates and these items
   * only. Absent: every row of the catalog is matched against its current vector.
   */
  pending_matches?: string[];
}

/**
 * The search condition of a term over `search_tsv`/`search_text` (see {@link filterSql}):
 * word-prefix match of every word, plus a literal substring match when the term holds
 * characters other than letters, digits and white space. `words_pending`: the catalog's word
 * index is behind a restore, so the words are matched against each row's current vector
 * (src/services/catalog/search/search-words.ts); with `pending_matches` (the items whose pending
 * words may match) only the word index's candidates and those items are read. `words_term`: the
 * part of a term with other characters whose words are matched (the literal match still takes
 * the whole term).
 */
export function searchSql(
  term: string,
  {
    words_pending: wordsPending = false,
    words_term: wordsTerm,
    pending_matches: pendingMatches,
  }: Pick<ItemFilter, 'words_pending' | 'words_term' | 'pending_matches'> = {},
): { sql: string; bindings: Knex.RawBinding[] } {
  const lowered = term.toLowerCase();
  const literal = "search_text LIKE ? ESCAPE '\\'";
  const pattern = '%' + lowered.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
  const hasWord = /[\p{L}\p{N}]/u.test(lowered);
  const hasOther = /[^\p{L}\p{N}\s]/u.test(lowered);
  if (!hasWord) return { sql: literal, bindings: [pattern] };
  const query = (hasOther ? (wordsTerm ?? term) : term).toLowerCase();
  // While the word index is behind: its candidates plus the items whose pending words may
  // match, each checked against its current vector (search-words.ts pendingWordMatches).
  const words =
    wordsPending && pendingMatches
      ? {
          sql: `((search_tsv @@ catalog_item_search_query(?) OR id = ANY(?::uuid[])) AND ${wordsColumn(true)} @@ catalog_item_search_query(?))`,
          bindings: [query, pendingMatches, query] as Knex.RawBinding[],
        }
      : { sql: `${wordsColumn(wordsPending)} @@ catalog_item_search_query(?)`, bindings: [query] as Knex.RawBinding[] };
  if (!hasOther) return words;
  return { sql: `(${words.sql} AND ${literal})`, bindings: [...words.bindings, pattern] };
}

/**
 * True when walking a list's order until `rows` rows matched (offset + page) passes fewer rows
 * than reading all `matches` of a catalog of `itemCount` items: the walk passes about
 * rows × itemCount ÷ matches rows, matches spread evenly. Used where the count is known before
 * the page (a search's exact total), since the planner may not know how common the words are
 * (while the word index is behind it takes every search for a rare one); then
 * {@link FORCE_WALK_SQL}.
 */
export function walkReadsFewer(rows: number, itemCount: number, matches: number): boolean {
  return rows * Math.max(itemCount, matches) < matches * matches;
}

/** Planner settings (for the rest of the transaction) that make a list page walk its order's index: no bitmap, no sort of the matches. */
export const FORCE_WALK_SQL = 'SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off';

/**
 * True when a search term is matched by its words alone (letters, digits and white space, at
 * least one word): {@link searchSql} then adds no literal `LIKE` condition.
 */
export function isWordsOnlyTerm(term: string): boolean {
  return /[\p{L}\p{N}]/u.test(term) && !/[^\p{L}\p{N}\s]/u.test(term);
}

/** A `WHERE` clause with its bindings (always scoped to one catalog). */
export function filterSql(catalogId: string, f: ItemFilter): { sql: string; bindings: Knex.RawBinding[] } {
  const parts = ['catalog_id = ?'];
  const bindings: Knex.RawBinding[] = [catalogId];
  if (f.entity_type) {
    parts.push('entity_type = ?');
    bindings.push(f.entity_type);
  }
  if (f.top_level) parts.push('parent_id IS NULL');
  if (f.search !== undefined && f.search !== '') {
    // Word search (docs/api-reference.md "Items", case-insensitive over the item's text values): every
    // word of the term (a run of letters/digits) must start a word of the item's text values,
    // in any order (`search_tsv`, GIN over (catalog_id, search_tsv), exact without recheck;
    // counting through it still reads every matching heap page, so large catalogs count
    // words-only terms with the search count index, see searchTotal). A term with other
    // characters (identifiers such as `sku-123`, URLs, `100%`) must also occur literally
    // (`search_text LIKE`, wildcards matched literally); a term without any word is only that
    // literal match. In the grouped (top-level) view a product also matches through any of
    // its variants.
    const { sql, bindings: b } = searchSql(f.search, f);
    if (f.top_level) {
      parts.push(`(${sql} OR id IN (SELECT v.parent_id FROM catalog_items v
                  WHERE v.catalog_id = ? AND v.parent_id IS NOT NULL AND ${sql.replace(/search_(tsv|text)/g, 'v.search_$1')}))`);
      bindings.push(...b, catalogId, ...b);
    } else {
      parts.push(sql);
      bindings.push(...b);
    }
  }
  return { sql: parts.join(' AND '), bindings };
}

/**
 * The sort key of a data field (the key bound as a parameter): its JSON value, with an explicit
 * JSON `null` read as SQL NULL so it sorts with the missing values (last) and a cursor in that
 * tail (`k: null`) pages through both.
 */
const DATA_KEY = "NULLIF(data -> ?, 'null'::jsonb)";

/**
 * An `ORDER BY` list: the sort field (a column, or `data -> <bound key>`, so a field name can
 * never inject SQL), then `id` so ties are stable and offset pages never overlap (docs/api-reference.md "Pagination").
 * Missing values (and JSON nulls) sort last in both directions.
 */
export function orderSql(field: string | undefined, order: SortOrder, fallback: 'created_at' | 'id'): { sql: string; bindings: Knex.RawBinding[] } {
  const dir = order === 'desc' ? 'DESC' : 'ASC';
  if (!field) return fallback === 'id' ? { sql: `id ${dir}`, bindings: [] } : { sql: `created_at ${dir}, id ${dir}`, bindings: [] };
  const column = own(SORT_COLUMNS, field);
  if (column === 'id') return { sql: `id ${dir}`, bindings: [] };
  if (column) return { sql: `${column} ${dir}, id ASC`, bindings: [] };
  return { sql: `${DATA_KEY} ${dir} NULLS LAST, id ASC`, bindings: [field] };
}

/**
 * A keyset position in an item list (`search_after`-style paging, as Akeneo's API
 * does): the sort key of the last row of a page (a column value as PostgreSQL text, or a data
 * field's JSON value, null in the missing-values tail) and that row's id.
 */
export interface ItemCursor {
  k: unknown;
  id: string;
}

/** The opaque `next_cursor` string of a position (base64url JSON). */
export function encodeCursor(c: ItemCursor): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

/**
 * Reads a `cursor` query parameter.
 * @returns the position, or null when it is not one this service made
 */
export function decodeCursor(s: string): ItemCursor | null {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Partial<ItemCursor>;
    return c && typeof c === 'object' && typeof c.id === 'string' && isUuid(c.id) && 'k' in c ? { k: c.k, id: c.id } : null;
  } catch {
    return null;
  }
}

/**
 * The `WHERE` condition of the rows after `cursor` in the order {@link orderSql} gives the same
 * field, direction and fallback: the page after a cursor starts where the last one ended, at the
 * cost of one index probe instead of skipping every earlier row (page time flat at any depth).
 */
export function afterCursorSql(
  field: string | undefined,
  order: SortOrder,
  fallback: 'created_at' | 'id',
  cursor: ItemCursor,
): { sql: string; bindings: Knex.RawBinding[] } {
  const cmp = order === 'desc' ? '<' : '>';
  const column = field ? own(SORT_COLUMNS, field) : fallback;
  if (column === 'id') return { sql: `id ${cmp} ?::uuid`, bindings: [cursor.id] };
  if (!field) return { sql: `(created_at, id) ${cmp} (?::timestamptz, ?::uuid)`, bindings: [String(cursor.k), cursor.id] };
  if (column)
    return {
      sql: `(${column} ${cmp} ?::timestamptz OR (${column} = ?::timestamptz AND id > ?::uuid))`,
      bindings: [String(cursor.k), String(cursor.k), cursor.id],
    };
  // A data field, missing values last in both directions (NULLS LAST), ties by id ascending.
  if (cursor.k === null || cursor.k === undefined) return { sql: `(${DATA_KEY} IS NULL AND id > ?::uuid)`, bindings: [field, cursor.id] };
  const value = JSON.stringify(cursor.k);
  return {
    sql: `(${DATA_KEY} ${cmp} ?::jsonb OR (${DATA_KEY} = ?::jsonb AND id > ?::uuid) OR ${DATA_KEY} IS NULL)`,
    bindings: [field, value, field, value, cursor.id, field],
  };
}
