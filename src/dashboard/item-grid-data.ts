import type { ItemGridView } from '../models/item-grid-view';
import type { ReadinessProfile } from '../models/readiness-profile';
import { actorId } from '../services/access/auth';
import type { Scope } from '../services/access/scope';
import type { CatalogDeps } from '../services/catalog/catalog-caches';
import { ensureGridIndexes, gridIndexRows, neededGridIndexes, type GridIndexNotice, type GridIndexSettings } from '../services/catalog/grid/grid-indexes';
import { getGridView, listGridViews } from '../services/catalog/grid/grid-views';
import type { JobRunner } from '../services/job-runner';
import {
  gridPage,
  loadGridCatalog,
  treeCounts,
  type GridCatalog,
  type GridPage,
  type GridPageOptions,
  type TreeCounts,
} from '../services/catalog/grid/item-grid';
import { filterValue, parseGridQuery, type GridQuery } from '../services/catalog/grid/item-grid-query';
import { getReadinessProfile, listReadinessProfiles } from '../services/catalog/grid/readiness-profiles';
import { catalogGtinField } from '../services/channels/gtin-field';

/**
 * What the item grid page shows, read through the catalog services: the catalog,
 * the query (from the URL, or from the saved view it names when the URL gives nothing else),
 * the columns, one page of rows with the count, the taxonomy tree's counts, the views and the
 * readiness profiles the page offers.
 */

/** Rows per grid page. */
export const GRID_PAGE_SIZE = 50;
/** Columns shown when neither the URL nor a view chooses them: the schema's first fields. */
const DEFAULT_COLUMNS = 6;

/** URL parameters that only page or pick a view; any other one means the URL states its own query. */
const PAGING_PARAMS = new Set(['cursor', 'view']);

type Query = Record<string, string | string[] | undefined>;

/** Everything the grid page renders. */
export interface GridPageData {
  grid: GridCatalog;
  query: GridQuery;
  columns: string[];
  page: GridPage;
  tree: TreeCounts | null;
  views: ItemGridView[];
  /** The view the URL names, if any. */
  view: ItemGridView | null;
  profiles: ReadinessProfile[];
  /** The profile of `query.readiness`, if any. */
  profile: ReadinessProfile | null;
  /** `actorId` of the signed-in principal (own views can be deleted). */
  owner: string;
  /** Grid field indexes the page would use that are not ready (src/services/catalog/grid/grid-indexes.ts): the page may be slow and says so. */
  indexNotices: GridIndexNotice[];
  /** The catalog field holding the GTIN (docs/console.md "GTIN flags"), whose bad values the grid flags; null when none. */
  gtinField: string | null;
}

/** How the grid page asks for its field indexes: the settings (`Config.gridIndexes`) and the job runner that starts their workflow. */
export interface GridIndexing {
  settings: GridIndexSettings;
  jobRunner: Pick<JobRunner, 'startGridIndexes'>;
}

/** A saved view's query as URL parameters. */
export function viewParams(view: ItemGridView): Query {
  const q: Query = {};
  const v = view.query;
  if (v.q) q.q = v.q;
  if (v.sort) q.sort = v.sort;
  if (v.dir) q.dir = v.dir;
  if (v.category) q.category = v.category;
  if (v.missing) q.missing = v.missing;
  if (v.complete) q.complete = v.complete;
  for (const [key, value] of Object.entries(v.filters ?? {})) q[key.startsWith('not.') ? key : `f.${key}`] = value;
  return q;
}

/** A grid query as a saved view stores it (no paging, no columns). */
export function viewQuery(q: GridQuery): ItemGridView['query'] {
  const filters: Record<string, string> = {};
  for (const f of q.filters) filters[f.negate ? `not.${f.field}` : f.field] = filterValue(f);
  return { q: q.q, sort: q.sort, dir: q.sort ? q.dir : undefined, category: q.category, missing: q.missing, complete: q.complete, filters };
}

/**
 * Loads the grid page of a catalog for a URL query. With `indexing`, a large catalog's sort or
 * filter field without its grid index gets one asked for first (ensureGridIndexes), and the
 * page data names those not ready yet. `counting`: when the count is estimated (gridPage,
 * `Config.gridCountEstimateAbove`) and how a search is counted (the app's caches and job runner).
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog, an unknown view or profile;
 *   ValidationError (422) for a query the grid cannot read (src/services/catalog/grid/item-grid-query.ts)
 */
export async function loadGridPage(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  raw: Query,
  indexing: GridIndexing | undefined,
  counting: GridPageOptions,
): Promise<GridPageData> {
  const grid = await loadGridCatalog(deps, scope, catalogId);
  const viewId = typeof raw.view === 'string' && raw.view ? raw.view : null;
  const view = viewId ? await getGridView(deps.knex, scope, catalogId, viewId) : null;
  const ownQuery = Object.keys(raw).some((k) => !PAGING_PARAMS.has(k));
  const effective = view && !ownQuery ? { ...viewParams(view), cursor: raw.cursor, view: viewId ?? undefined } : raw;
  const query = parseGridQuery(effective, grid.types);
  const columns = query.columns ?? (view ? view.columns.filter((c) => Object.hasOwn(grid.types, c)) : Object.keys(grid.types).slice(0, DEFAULT_COLUMNS));
  const profile = query.readiness ? await getReadinessProfile(deps.knex, scope, catalogId, query.readiness.profileId) : null;
  // The catalog's grid index rows, read once: to ask for missing indexes and to tell whether the count may be estimated.
  const indexRows = indexing && grid.catalog.item_count >= indexing.settings.minItems ? await gridIndexRows(deps.knex, grid.catalog.id) : undefined;
  const indexNotices = indexing
    ? await ensureGridIndexes(
        deps.knex,
        grid.catalog,
        neededGridIndexes(query, grid.types),
        indexing.settings,
        { jobRunner: indexing.jobRunner, caches: deps.caches.catalog },
        indexRows,
      )
    : [];
  const [page, tree, views, profiles, gtinField] = await Promise.all([
    gridPage(deps.knex, grid, query, profile ?? undefined, GRID_PAGE_SIZE, { ...counting, gridIndexes: indexRows }),
    grid.taxonomy ? treeCounts(deps, grid) : Promise.resolve(null),
    listGridViews(deps.knex, scope, catalogId),
    listReadinessProfiles(deps.knex, scope, catalogId),
    catalogGtinField(deps.knex, catalogId, grid.schema),
  ]);
  return { grid, query, columns, page, tree, views, view, profiles, profile, owner: actorId(scope), indexNotices, gtinField };
}
