/**
 * Taxonomies suggested from a spreadsheet: from a category column (paths such as
 * `Clothing > Tshirts` or Magento's multi-line paths → one node per distinct prefix, with as
 * many hierarchy levels as the deepest path), or, without one, from the titles: each title is
 * classified into the Google product taxonomy (src/enrichment/taxonomy/classify.ts) and the
 * nodes the titles land on, with their ancestors, form the suggested taxonomy. Node ids are
 * Google product taxonomy ids where a node is in Google's taxonomy, so a suggestion can be
 * mapped to Google Shopping's `google_product_category`.
 */
import { classify, type CompiledTaxonomy } from '../../enrichment/taxonomy';
import { googleTaxonomyLoader } from '../../enrichment/taxonomy/google';

/** A suggested taxonomy in the input form (`PUT …/taxonomy`, enrich `taxonomy`). */
export interface SuggestedTaxonomy {
  name: string;
  description: string;
  hierarchy_levels: string[];
  nodes: Record<string, { name: string; parent: string | null; description?: string }>;
}

/** How the taxonomy was made, for the response's reasons. */
export interface TaxonomySuggestion {
  taxonomy: SuggestedTaxonomy;
  /** `column` (from a category column) or `titles` (Google product taxonomy from titles). */
  source: 'column' | 'titles';
  /** Share of rows whose category (or title) maps to a node. */
  coverage: number;
  /** Node id per profiled row (null when the row maps to none), in row order. */
  row_nodes: Array<string | null>;
  reason: string;
}

export { readGoogleTaxonomy } from '../../enrichment/taxonomy/google';

/** A path string's Google id, when the path is exactly one of Google's (case-insensitive). */
function googlePathIndex(google: CompiledTaxonomy | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!google) return out;
  for (const n of google.nodes.values()) out.set(n.path.join(' > ').toLowerCase(), n.id);
  return out;
}

/** A stable node id from a path: lower-case words joined by `-`, levels by `/`. */
function slug(path: string[]): string {
  return path
    .map(
      (p) =>
        p
          .toLowerCase()
          .replace(/[^\p{L}\p{N}]+/gu, '-')
          .replace(/^-|-$/g, '') || 'node',
    )
    .join('/');
}

/** Level names: `Category`, `Subcategory`, then `Level 3`… */
function levelNames(depth: number): string[] {
  return Array.from({ length: depth }, (_, i) => (i === 0 ? 'Category' : i === 1 ? 'Subcategory' : `Level ${i + 1}`));
}

/**
 * The taxonomy of a category column: each value split on `separator` ('' = one level) into a
 * path — or, when the cells hold several paths (`pathsSeparator`, e.g. Magento's
 * `A/B,A/B/C`), into several paths; every distinct prefix is a node. Paths that are Google
 * product taxonomy paths get Google's ids. A row's node is its deepest path's (the first of
 * equal depth).
 * @param values the column's cells, one per row ('' for none)
 * @param pathsSeparator the separator between paths in one cell; null when a cell is one path
 */
export function taxonomyFromPaths(
  column: string,
  values: string[],
  separator: string,
  google: CompiledTaxonomy | null,
  pathsSeparator: string | null,
): TaxonomySuggestion {
  const googleIds = googlePathIndex(google);
  const nodes: SuggestedTaxonomy['nodes'] = {};
  const idOf = new Map<string, string>();
  const used = new Set<string>();
  let depth = 0;
  let googleHits = 0;
  const rowNodes: Array<string | null> = [];
  const pathsOf = (raw: string): string[][] =>
    (pathsSeparator ? raw.split(pathsSeparator) : [raw])
      .map((one) => (separator ? one.split(separator) : [one]).map((p) => p.trim()).filter(Boolean))
      .filter((path) => path.length > 0);
  for (const raw of values) {
    let rowNode: string | null = null;
    let rowDepth = 0;
    for (const path of pathsOf(raw)) {
      const node = addPath(path);
      if (path.length > rowDepth) [rowNode, rowDepth] = [node, path.length];
    }
    rowNodes.push(rowNode);
  }
  /** Adds every prefix of `path` as a node (once); returns the id of the last. */
  function addPath(path: string[]): string | null {
    depth = Math.max(depth, path.length);
    let parent: string | null = null;
    for (let i = 0; i < path.length; i++) {
      const key = path.slice(0, i + 1).join('\u0000');
      let id = idOf.get(key);
      if (!id) {
        const google = googleIds.get(
          path
            .slice(0, i + 1)
            .join(' > ')
            .toLowerCase(),
        );
        id = google ?? slug(path.slice(0, i + 1));
        while (used.has(id)) id = `${id}-2`;
        used.add(id);
        idOf.set(key, id);
        nodes[id] = { name: path[i], parent, ...(google ? { description: `Google product taxonomy ${google}` } : {}) };
        if (google) googleHits++;
      }
      parent = id;
    }
    return parent;
  }
  const filled = rowNodes.filter((n) => n !== null).length;
  const count = Object.keys(nodes).length;
  return {
    taxonomy: {
      name: `${column} taxonomy`,
      description: `Categories of the file's "${column}" column${googleHits ? `; ${googleHits} of ${count} nodes are Google product taxonomy nodes (their ids are Google's)` : ''}`,
      hierarchy_levels: levelNames(Math.max(1, depth)),
      nodes,
    },
    source: 'column',
    coverage: values.length ? filled / values.length : 0,
    row_nodes: rowNodes,
    reason: `${count} categories on ${Math.max(1, depth)} level${depth > 1 ? 's' : ''} from the "${column}" column${separator ? ` (paths split on ${JSON.stringify(separator)})` : ''}`,
  };
}

/**
 * A taxonomy proposed from titles: each title is classified into the Google product taxonomy;
 * nodes reached with at least medium confidence, and their ancestors, make the taxonomy (ids
 * are Google's). Returns null when no Google taxonomy is configured or no title maps.
 * @param titles one title per row ('' for none); `texts` an optional description per row
 */
export function taxonomyFromTitles(titles: string[], texts: string[], google: CompiledTaxonomy | null): TaxonomySuggestion | null {
  if (!google) return null;
  const nodes: SuggestedTaxonomy['nodes'] = {};
  const rowNodes: Array<string | null> = [];
  let depth = 0;
  for (let i = 0; i < titles.length; i++) {
    const title = titles[i].trim();
    const p = title ? classify(google, { titles: [title], categories: [], texts: texts[i] ? [texts[i].slice(0, 500)] : [] }) : null;
    if (!p || p.confidence === 'low') {
      rowNodes.push(null);
      continue;
    }
    const node = google.nodes.get(p.node.id);
    if (!node) {
      rowNodes.push(null);
      continue;
    }
    depth = Math.max(depth, node.path_ids.length);
    node.path_ids.forEach((id, k) => {
      if (!nodes[id]) nodes[id] = { name: node.path[k], parent: k > 0 ? node.path_ids[k - 1] : null, description: `Google product taxonomy ${id}` };
    });
    rowNodes.push(node.id);
  }
  const mapped = rowNodes.filter((n) => n !== null).length;
  if (!mapped) return null;
  return {
    taxonomy: {
      name: 'Suggested taxonomy (Google product taxonomy)',
      description: 'Categories proposed from the titles, mapped to the Google product taxonomy (node ids are Google ids)',
      hierarchy_levels: levelNames(depth),
      nodes,
    },
    source: 'titles',
    coverage: titles.length ? mapped / titles.length : 0,
    row_nodes: rowNodes,
    reason: `no category column: ${mapped} of ${titles.length} titles classified into the Google product taxonomy (${Object.keys(nodes).length} nodes with their ancestors)`,
  };
}

/** Per-app holder of the compiled Google product taxonomy (read once, on first use). */
export interface GoogleTaxonomyCache {
  /** The compiled taxonomy, or null when no file is configured or it cannot be read. */
  get(): CompiledTaxonomy | null;
}

/**
 * A cache of the Google product taxonomy read from `file` (null: none configured). Created by
 * the app's inference routes, so it lives as long as the app (docs/architecture.md "4. Process state lives in objects owned by deps").
 */
export function googleTaxonomyCache(file: string | null): GoogleTaxonomyCache {
  return { get: googleTaxonomyLoader(file) };
}
