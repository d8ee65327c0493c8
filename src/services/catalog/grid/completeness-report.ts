import type { ReadinessProfile } from '../../../models/readiness-profile';
import type { Scope } from '../../access/scope';
import type { CatalogDeps } from '../catalog-caches';
import { countCompleteness, requiredFields, type GroupCounts, type ProfileCounts } from './completeness';
import { COMPACT_AFTER_ROWS, compactFillCounts, countsFromGroups, readFillGroups } from './completeness-counters';
import { loadGridCatalog, type GridCatalog } from './item-grid';
import { listReadinessProfiles } from './readiness-profiles';
import { filterSql } from '../items/items-sql';

/**
 * The catalog's completeness report: what the console's completeness page shows and
 * `GET /public/catalogs/{id}/completeness` returns, counted in one scan of the catalog's items
 * (top-level ones in a product-grouped catalog, as the grid lists them, so each number equals
 * the count of the grid it links to). The counts come from the completeness counters the write
 * path keeps (completeness-counters.ts: a few rows per group of items, exact right after any
 * write); only profiles with rules make the report scan the items.
 */

/** One field of the by-field table. */
export interface FieldCompleteness {
  field: string;
  /** Required by the schema for every item. */
  schemaRequired: boolean;
  /** Taxonomy nodes that require it (ids). */
  requiredBy: string[];
  empty: number;
  filled: number;
}

/** One taxonomy node of the by-node table, counted over its subtree. */
export interface NodeCompleteness {
  id: string;
  path: string[];
  level: number;
  items: number;
  complete: number;
  /** The node's required fields (schema and taxonomy), each with the subtree's items missing it. */
  missing: Array<{ field: string; empty: number }>;
}

/** The completeness report of a catalog. */
export interface CompletenessReport {
  grid: GridCatalog;
  total: number;
  complete: number;
  fields: FieldCompleteness[];
  nodes: NodeCompleteness[];
  /** Items in no node of the taxonomy (null without a taxonomy). */
  unclassified: { items: number; complete: number } | null;
  profiles: Array<{ profile: ReadinessProfile; counts: ProfileCounts }>;
}

function add(into: GroupCounts, g: GroupCounts): void {
  into.items += g.items;
  into.complete += g.complete;
  for (const [f, n] of Object.entries(g.empty)) into.empty[f] = (into.empty[f] ?? 0) + n;
}

/**
 * The completeness report of a catalog: from the completeness counters (or, when a readiness
 * profile has rules, counted in one scan of the items: about 11 s at 1,000,000 items,
 * bench/console-grid.ts), or from the app's cache while the catalog's items, schema version and
 * profiles are unchanged.
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog
 */
export async function completenessReport(deps: CatalogDeps, scope: Scope, catalogId: string): Promise<CompletenessReport> {
  const [grid, profiles] = await Promise.all([loadGridCatalog(deps, scope, catalogId), listReadinessProfiles(deps.knex, scope, catalogId)]);
  // Kept while nothing it counts changed: the items (items_rev), the schema version, the profiles.
  const cache = deps.caches.catalog.completenessReports;
  const key = JSON.stringify([String(grid.catalog.items_rev), grid.schema.id, profiles.map((p) => [p.id, new Date(p.updated_at).getTime()])]);
  const hit = cache.get(catalogId);
  if (hit && hit.key === key) return { ...(hit.report as CompletenessReport), grid };
  const report = await countReport(deps, grid, profiles);
  cache.set(catalogId, { key, report });
  return report;
}

/** Counts the report (from the counters, or one scan of the catalog's items when a profile has rules). */
async function countReport(deps: CatalogDeps, grid: GridCatalog, profiles: ReadinessProfile[]): Promise<CompletenessReport> {
  const catalogId = grid.catalog.id;
  const fields = Object.keys(grid.types);
  let counts = null;
  if (!profiles.some((p) => p.rules.length > 0)) {
    let read = await readFillGroups(deps.knex, catalogId, grid.grouped);
    if (read.deltaRows > COMPACT_AFTER_ROWS) {
      await compactFillCounts(deps.knex, catalogId);
      read = await readFillGroups(deps.knex, catalogId, grid.grouped);
    }
    counts = countsFromGroups(read.groups, grid.rules, fields, profiles);
  }
  counts ??= await countCompleteness(deps.knex, filterSql(catalogId, { top_level: grid.grouped }), grid.rules, fields, profiles, grid.types);
  const all: GroupCounts = { items: 0, complete: 0, empty: {} };
  for (const g of counts.groups.values()) add(all, g);
  const t = grid.taxonomy;
  const requiredBy = new Map<string, string[]>();
  for (const node of Object.values(t?.nodes ?? {}))
    for (const a of node.attributes) if (a.required === true) requiredBy.set(a.name, [...(requiredBy.get(a.name) ?? []), node.id]);
  const fieldRows: FieldCompleteness[] = fields.map((field) => ({
    field,
    schemaRequired: grid.rules.schemaRequired.includes(field),
    requiredBy: requiredBy.get(field) ?? [],
    empty: all.empty[field] ?? 0,
    filled: all.items - (all.empty[field] ?? 0),
  }));
  let nodes: NodeCompleteness[] = [];
  let unclassified: CompletenessReport['unclassified'] = null;
  if (t) {
    // Subtree sums, children before parents (reverse of the parent-first walk).
    const sums = new Map<string, GroupCounts>();
    const order: string[] = [];
    const visit = (id: string) => {
      order.push(id);
      for (const c of t.nodes[id].children) visit(c);
    };
    for (const n of Object.values(t.nodes)) if (n.parent === null) visit(n.id);
    for (const id of [...order].reverse()) {
      const s: GroupCounts = { items: 0, complete: 0, empty: {} };
      const own = counts.groups.get(id);
      if (own) add(s, own);
      for (const c of t.nodes[id].children) add(s, sums.get(c)!);
      sums.set(id, s);
    }
    nodes = order.map((id) => {
      const s = sums.get(id)!;
      return {
        id,
        path: t.nodes[id].path,
        level: t.nodes[id].level,
        items: s.items,
        complete: s.complete,
        missing: requiredFields(grid.rules, id).map((field) => ({ field, empty: s.empty[field] ?? 0 })),
      };
    });
    const u: GroupCounts = { items: 0, complete: 0, empty: {} };
    for (const [c, g] of counts.groups) if (!Object.hasOwn(t.nodes, c)) add(u, g);
    unclassified = { items: u.items, complete: u.complete };
  }
  return {
    grid,
    total: all.items,
    complete: all.complete,
    fields: fieldRows,
    nodes,
    unclassified,
    profiles: profiles.map((profile) => ({ profile, counts: counts.profiles.get(profile.id)! })),
  };
}
