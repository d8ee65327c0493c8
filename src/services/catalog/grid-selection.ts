/**
 * "All items matching the grid's filter" (issue 28 §5, §6): the item grid's query, given as its
 * URL query string, read back into a grid query and its SQL `WHERE`, for the console's bulk
 * actions and fill-the-gaps. The grid's own rules (./item-grid-query.ts, ./item-grid.ts) decide
 * which items match, so an action acts on exactly the items the grid counts.
 */
import type { Knex } from 'knex';
import type { Scope } from '../access/scope';
import { gridWhereSql, type GridCatalog } from './item-grid';
import { parseGridQuery, readWithoutJit, type GridQuery, type SqlPart } from './item-grid-query';
import { getReadinessProfile } from './readiness-profiles';
import type { ReadinessProfile } from '../../models/readiness-profile';

/** URL parameters of the grid that do not narrow the items (paging, columns, order, view). */
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

/** A selection: its grid query, its readiness profile (when the query names one) and its `WHERE`. */
export interface Selection {
  query: GridQuery;
  profile: ReadinessProfile | undefined;
  where: SqlPart;
}

/**
 * The items a grid query string selects.
 * @throws ValidationError (422) for the query; NotFoundError (404) for an unknown readiness profile
 */
export async function selectionOf(knex: Knex, scope: Scope, grid: GridCatalog, query: string): Promise<Selection> {
  const q = selectionQuery(grid, query);
  const profile = q.readiness ? await getReadinessProfile(knex, scope, grid.catalog.id, q.readiness.profileId) : undefined;
  return { query: q, profile, where: gridWhereSql(grid, q, profile) };
}

/** Counts (exactly) the items a grid query string selects. */
export async function countSelected(knex: Knex, scope: Scope, grid: GridCatalog, query: string): Promise<number> {
  const { where } = await selectionOf(knex, scope, grid, query);
  const { rows } = await readWithoutJit<{ n: number }>(knex, `SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings);
  return rows[0].n;
}
