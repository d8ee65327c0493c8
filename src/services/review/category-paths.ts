/**
 * Category changes shown as the taxonomy node's path ("the review page shows a
 * category change as the node's path", e.g. "Home & Garden > Kitchen > Cookware"), not just the
 * node id a staged `category_id` holds.
 */
import type { Knex } from 'knex';

/** The part of a stored taxonomy (docs/api-reference.md "Taxonomy") a path is built from. */
interface NodesOnly {
  nodes?: Record<string, { name?: unknown; parent?: unknown }>;
}

/** The item field a predicted category is staged in (src/services/enrichment/rows/staging-category.ts). */
const CATEGORY_FIELD = 'category_id';

/** The path of node `id` from its root, names joined with " > "; null for an unknown id (a parent cycle stops the walk). */
function pathOf(taxonomy: NodesOnly, id: string): string | null {
  const names: string[] = [];
  const seen = new Set<string>();
  let at: string | null = id;
  while (at !== null && !seen.has(at)) {
    const node: { name?: unknown; parent?: unknown } | undefined = taxonomy.nodes?.[at];
    if (!node) break;
    seen.add(at);
    names.unshift(String(node.name ?? at));
    at = typeof node.parent === 'string' ? node.parent : null;
  }
  return names.length > 0 ? names.join(' > ') : null;
}

/**
 * Paths of the `category_id` values (before and after) of `changes`: node id → path. The
 * taxonomy is the one the activity's job classified into (its config's, when the activity is an
 * enrichment job), else `catalogTaxonomy` (the catalog's current one). Ids no taxonomy knows are
 * left out (the page shows the id alone).
 */
export async function categoryPaths(
  knex: Knex,
  activityId: string,
  catalogTaxonomy: unknown,
  changes: Array<{ before_data: unknown; after_data: unknown }>,
): Promise<Record<string, string>> {
  const ids = new Set<string>();
  for (const c of changes)
    for (const data of [c.before_data, c.after_data]) {
      const v = (data as Record<string, unknown> | null)?.[CATEGORY_FIELD];
      if (typeof v === 'string' || typeof v === 'number') ids.add(String(v));
    }
  if (ids.size === 0) return {};
  const job = (await knex('enrichment_jobs').where({ id: activityId }).first(knex.raw("config -> 'taxonomy' AS taxonomy"))) as
    { taxonomy: NodesOnly | null } | undefined;
  const taxonomies = [job?.taxonomy, catalogTaxonomy as NodesOnly | null].filter((t): t is NodesOnly => Boolean(t && typeof t === 'object'));
  const out: Record<string, string> = {};
  for (const id of ids) {
    const path = taxonomies.map((t) => pathOf(t, id)).find((p) => p !== null);
    if (path) out[id] = path;
  }
  return out;
}
