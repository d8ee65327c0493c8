/**
 * "All items matching the grid's filter": the item grid's query, given as its
 * URL query string, read back into a grid query and its SQL `WHERE`, for the console's bulk
 * actions and fill-the-gaps. The grid's own rules (./item-grid-query.ts, ./item-grid.ts) decide
 * which items match, so an action acts on exactly the items the grid counts.
 */
import type { Knex } from 'knex';
import { ValidationError } from '../../../lib/errors';
import { isUuid } from '../../../lib/ids';
import type { Scope } from '../../access/scope';
import { gridWhereSql, type GridCatalog } from './item-grid';
import { parseGridQuery, readWithoutJit, type GridQuery, type SqlPart } from './item-grid-query';
import { getReadinessProfile } from './readiness-profiles';
import type { ReadinessProfile } from '../../../models/readiness-profile';

/** URL parameters of the grid that do not narrow the items (paging, columns, order, view); `ids` narrows them (a selection). */
const NOT_A_FILTER = ['cursor', 'view', 'cols', 'sort', 'dir'];

/** A grid query string without its paging, columns, order and view (what a selection keeps). */
export function selectionQueryString(querystring: string): string {
  const p = new URLSearchParams(querystring);
  for (const k of NOT_A_FILTER) p.delete(k);
  return p.toString();
}

/**
 * The grid query of a URL query string (paging, columns, order and view ignored).
 * @throws ValidationError (422) for a query the grid cannot read
 */
export function selectionQuery(grid: GridCatalog, query: string): GridQuery {
  const raw: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(query)) {
    if (NOT_A_FILTER.includes(k)) continue;
    const had = raw[k];
    raw[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return parseGridQuery(raw, grid.types);
}

/** Most items a selection by id (`ids`) may name. */
export const MAX_SELECTED_IDS = 1000;

/**
 * The item ids a query string selects by hand (`ids=<uuid>`, repeatable: the grid's row
 * checkboxes), or null when it selects none (all matching the filter).
 * @throws ValidationError (422) at `query.ids` for a value that is not an item id, or too many
 */
export function selectedIds(query: string): string[] | null {
  const ids = new URLSearchParams(query).getAll('ids').filter(Boolean);
  if (!ids.length) return null;
  if (ids.length > MAX_SELECTED_IDS) throw ValidationError.at(['query', 'ids'], `At most ${MAX_SELECTED_IDS} selected items`);
  for (const id of ids) if (!isUuid(id)) throw ValidationError.at(['query', 'ids'], `Not an item id: ${JSON.stringify(id.slice(0, 80))}`);
  return [...new Set(ids)];
}

/** A selection: its grid query, its readiness profile (when the query names one) and its `WHERE`. */
export interface Selection {
  /** The items picked by hand (`ids`), within the filter; null for all matching the filter. */
  ids: string[] | null;
  query: GridQuery;
  profile: ReadinessProfile | undefined;
  where: SqlPart;
}

/**
 * The items a grid query string selects: all matching its filter, or those of them picked by
 * hand (`ids`).
 * @throws ValidationError (422) for the query; NotFoundError (404) for an unknown readiness profile
 */
export async function selectionOf(knex: Knex, scope: Scope, grid: GridCatalog, query: string): Promise<Selection> {
  const q = selectionQuery(grid, query);
  const ids = selectedIds(query);
  const profile = q.readiness ? await getReadinessProfile(knex, scope, grid.catalog.id, q.readiness.profileId) : undefined;
  const where = gridWhereSql(grid, q, profile);
  if (ids) {
    where.sql = `${where.sql} AND id = ANY(?::uuid[])`;
    where.bindings = [...where.bindings, ids];
  }
  return { ids, query: q, profile, where };
}

/** Counts (exactly) the items a grid query string selects. */
export async function countSelected(knex: Knex, scope: Scope, grid: GridCatalog, query: string): Promise<number> {
  const { where } = await selectionOf(knex, scope, grid, query);
  const { rows } = await readWithoutJit<{ n: number }>(knex, `SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings);
  return rows[0].n;
}
