import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { BoundedCache } from '../../lib/bounded-cache';
import { NotFoundError, ValidationDetail, ValidationError } from '../../lib/errors';
import type { CatalogSchema, StoredTaxonomy, TaxonomyAttribute } from '../../models/catalog-schema';
import { getCurrentSchema, lockCatalog, writeSchemaVersion } from './schema/schema';
import type { Scope } from '../access/scope';

/**
 * Catalog taxonomies (docs/api-reference.md "Taxonomy"). A taxonomy is stored
 * on the schema version (`catalog_schemas.taxonomy`) in the normalised input form; every
 * read computes the enriched form. All computations are linear in the number of nodes (maps,
 * one pass in parent-before-child order), so the 5,595-node Google product taxonomy is cheap.
 */

/** A node as given: object form (`nodes: {<id>: node}`) or array form with `id`. */
export interface TaxonomyNodeInput {
  id?: string;
  name: string;
  parent?: string | null;
  description?: string | null;
  attributes?: TaxonomyAttribute[];
}

/** The body of `PUT …/taxonomy` (docs/api-reference.md "Taxonomy"). `nodes` may also be an array of nodes with `id`. */
export interface TaxonomyInput {
  name: string;
  description?: string;
  hierarchy_levels?: string[];
  nodes: Record<string, TaxonomyNodeInput> | TaxonomyNodeInput[];
}

/** An inherited attribute names the ancestor that defines it. */
export type InheritedAttribute = TaxonomyAttribute & { inherited_from: string };

/** A returned node (docs/api-reference.md "Taxonomy"): the stored node plus computed `level`, `path`, `children` and attributes. */
export interface EnrichedNode {
  id: string;
  name: string;
  parent: string | null;
  description: string | null;
  attributes: TaxonomyAttribute[];
  level: number;
  path: string[];
  children: string[];
  inherited_attributes: InheritedAttribute[];
  all_attributes: Array<TaxonomyAttribute | InheritedAttribute>;
}

/** The returned taxonomy (docs/api-reference.md "Taxonomy"). */
export interface EnrichedTaxonomy {
  name: string;
  description: string | null;
  hierarchy_levels: string[];
  nodes: Record<string, EnrichedNode>;
}

/**
 * Validates a taxonomy and returns its stored form. Object keys are the node ids; in the
 * array form each node's `id` is its key.
 * @param loc the taxonomy's place in the request (e.g. `['body']`)
 * @throws ValidationError (422) for a duplicate id (array form, or an object node whose `id`
 *   differs from its key), an unknown parent, a cycle, or an attribute name repeated in a node
 */
export function normalizeTaxonomy(input: TaxonomyInput, loc: Array<string | number>): StoredTaxonomy {
  const details: ValidationDetail[] = [];
  const nodes: StoredTaxonomy['nodes'] = {};
  const entries: Array<[string, TaxonomyNodeInput, Array<string | number>]> = Array.isArray(input.nodes)
    ? input.nodes.map((n, i) => [String(n.id ?? ''), n, [...loc, 'nodes', i]])
    : Object.entries(input.nodes).map(([id, n]) => [id, n, [...loc, 'nodes', id]]);
  for (const [id, node, at] of entries) {
    if (!id) details.push({ loc: [...at, 'id'], msg: 'Node id required', type: 'missing' });
    else if (!Array.isArray(input.nodes) && node.id !== undefined && node.id !== id)
      details.push({ loc: [...at, 'id'], msg: `Node id '${node.id}' differs from its key '${id}'`, type: 'value_error.taxonomy_id' });
    else if (Object.prototype.hasOwnProperty.call(nodes, id))
      details.push({ loc: [...at, 'id'], msg: `Duplicate node id '${id}'`, type: 'value_error.taxonomy_duplicate_id' });
    else {
      const attributes = node.attributes ?? [];
      const names = new Set<string>();
      attributes.forEach((a, i) => {
        if (names.has(a.name))
          details.push({
            loc: [...at, 'attributes', i, 'name'],
            msg: `Duplicate attribute '${a.name}' in node '${id}'`,
            type: 'value_error.taxonomy_duplicate_attribute',
          });
        names.add(a.name);
      });
      nodes[id] = { name: node.name, parent: node.parent ?? null, ...(node.description != null ? { description: node.description } : {}), attributes };
    }
  }
  const locOf = new Map(entries.map(([id, , at]) => [id, at]));
  for (const [id, node] of Object.entries(nodes)) {
    if (node.parent !== null && !Object.prototype.hasOwnProperty.call(nodes, node.parent)) {
      details.push({
        loc: [...(locOf.get(id) ?? loc), 'parent'],
        msg: `Unknown parent '${node.parent}' of node '${id}'`,
        type: 'value_error.taxonomy_unknown_parent',
      });
    }
  }
  if (details.length === 0) {
    const { cycle } = walk(nodes);
    if (cycle)
      details.push({ loc: [...(locOf.get(cycle[0]) ?? loc), 'parent'], msg: `Cycle in parents: ${cycle.join(' → ')}`, type: 'value_error.taxonomy_cycle' });
  }
  if (details.length) throw new ValidationError(details);
  return {
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    hierarchy_levels: input.hierarchy_levels ?? [],
    nodes,
    node_order: Object.keys(nodes),
  };
}

/**
 * Orders node ids so every parent precedes its children (one pass, each node placed once). On
 * a cycle it stops and returns the cycle's ids, the first repeated at the end.
 */
function walk(nodes: StoredTaxonomy['nodes'], ids: string[] = Object.keys(nodes)): { order: string[]; cycle: string[] | null } {
  const state = new Map<string, 1 | 2>(); // 1 = on the current chain, 2 = placed
  const order: string[] = [];
  for (const start of ids) {
    const chain: string[] = [];
    let id: string | null = start;
    while (id !== null && state.get(id) !== 2) {
      if (state.get(id) === 1) return { order, cycle: [...chain.slice(chain.indexOf(id)), id] };
      state.set(id, 1);
      chain.push(id);
      id = nodes[id]?.parent ?? null;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      state.set(chain[i], 2);
      order.push(chain[i]);
    }
  }
  return { order, cycle: null };
}

/**
 * Computes the returned form (docs/api-reference.md "Taxonomy"): `level` (0 = root), `path` (names from the root to the node,
 * inclusive), `children` (ids, in input order), `inherited_attributes` (the ancestors'
 * attributes, the nearest ancestor winning on a name clash, each with `inherited_from`) and
 * `all_attributes` (inherited, overridden by the node's own on a name clash).
 */
export function enrichTaxonomy(taxonomy: StoredTaxonomy): EnrichedTaxonomy {
  const ids = taxonomy.node_order ?? Object.keys(taxonomy.nodes);
  const { order } = walk(taxonomy.nodes, ids);
  const children = new Map<string, string[]>();
  for (const id of ids) {
    const node = taxonomy.nodes[id];
    if (node.parent !== null) {
      let list = children.get(node.parent);
      if (!list) children.set(node.parent, (list = []));
      list.push(id);
    }
  }
  const computed = new Map<string, EnrichedNode>();
  for (const id of order) {
    const node = taxonomy.nodes[id];
    const parent = node.parent === null ? null : (computed.get(node.parent) as EnrichedNode);
    const inherited: InheritedAttribute[] = parent
      ? parent.all_attributes.map((a) => ('inherited_from' in a ? (a as InheritedAttribute) : { ...a, inherited_from: parent.id }))
      : [];
    const own = new Set(node.attributes.map((a) => a.name));
    computed.set(id, {
      id,
      name: node.name,
      parent: node.parent,
      description: node.description ?? null,
      attributes: node.attributes,
      level: parent ? parent.level + 1 : 0,
      path: parent ? [...parent.path, node.name] : [node.name],
      children: children.get(id) ?? [],
      inherited_attributes: inherited,
      all_attributes: [...inherited.filter((a) => !own.has(a.name)), ...node.attributes],
    });
  }
  // Keep the input order of the nodes in the response.
  const nodes: Record<string, EnrichedNode> = {};
  for (const id of ids) nodes[id] = computed.get(id) as EnrichedNode;
  return { name: taxonomy.name, description: taxonomy.description ?? null, hierarchy_levels: taxonomy.hierarchy_levels, nodes };
}

/** A strong ETag of a stored taxonomy (or of its absence): a hash of its JSON. */
export function taxonomyEtag(taxonomy: StoredTaxonomy | null): string {
  return `"${createHash('sha256').update(JSON.stringify(taxonomy)).digest('base64url').slice(0, 32)}"`;
}

/**
 * True when an `If-None-Match` header value matches `etag` (RFC 9110 §13.1.2: weak comparison,
 * a list of tags, or `*`).
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === strip(etag));
}

/** The enriched taxonomy of a schema version (null when it has none) and its ETag. */
export interface TaxonomyView {
  etag: string;
  taxonomy: EnrichedTaxonomy | null;
}

/**
 * The enriched taxonomy of one schema version and its ETag, kept in `views` (the app's
 * CatalogCaches.taxonomies) by version id (version rows never change).
 */
export function taxonomyOf(views: BoundedCache<TaxonomyView>, schema: CatalogSchema): TaxonomyView {
  let hit = views.get(schema.id);
  if (!hit) {
    const stored = schema.taxonomy ?? null;
    hit = { etag: taxonomyEtag(stored), taxonomy: stored ? enrichTaxonomy(stored) : null };
    views.set(schema.id, hit);
  }
  return hit;
}

/**
 * `PUT …/taxonomy`: validates, then stores the taxonomy on a new minor schema version
 * (docs/api-reference.md "Taxonomy": setting a taxonomy is minor). Call inside the use case's transaction.
 * @param views the app's enriched-taxonomy cache (CatalogCaches.taxonomies)
 * @returns the enriched taxonomy, its ETag and the new version
 * @throws ValidationError (422) as {@link normalizeTaxonomy}
 */
export async function setTaxonomy(
  trx: Knex.Transaction,
  views: BoundedCache<TaxonomyView>,
  scope: Scope,
  catalogId: string,
  input: TaxonomyInput,
): Promise<{ etag: string; taxonomy: EnrichedTaxonomy; version: string }> {
  const stored = normalizeTaxonomy(input, ['body']);
  await lockCatalog(trx, catalogId);
  const current = await getCurrentSchema(trx, catalogId);
  const replaced = current.taxonomy !== null;
  const row = await writeSchemaVersion(trx, scope, {
    catalogId,
    previous: current,
    bump: 'minor',
    schema_definition: current.schema_definition,
    taxonomy: stored,
    fields_workflow_info: current.fields_workflow_info,
    migration_rules: { change_type: 'minor', taxonomy_set: { name: stored.name, node_count: Object.keys(stored.nodes).length, replaced } },
    reason: `${replaced ? 'Replaced' : 'Set'} taxonomy ${stored.name}`,
    at: new Date().toISOString(),
  });
  const { etag, taxonomy } = taxonomyOf(views, row);
  return { etag, taxonomy: taxonomy as EnrichedTaxonomy, version: row.version };
}

/**
 * `DELETE …/taxonomy`: a new major schema version without the taxonomy (docs/api-reference.md "Taxonomy"),
 * `backward_compatible: false`, with `migration_rules` naming the removed taxonomy.
 * @throws NotFoundError (404) when the catalog has no taxonomy
 */
export async function removeTaxonomy(trx: Knex.Transaction, scope: Scope, catalogId: string): Promise<string> {
  await lockCatalog(trx, catalogId);
  const current = await getCurrentSchema(trx, catalogId);
  const stored = current.taxonomy;
  if (!stored) throw new NotFoundError('Catalog has no taxonomy');
  const row = await writeSchemaVersion(trx, scope, {
    catalogId,
    previous: current,
    bump: 'major',
    schema_definition: current.schema_definition,
    taxonomy: null,
    fields_workflow_info: current.fields_workflow_info,
    migration_rules: {
      change_type: 'major',
      taxonomy_removed: { name: stored.name, node_count: Object.keys(stored.nodes).length },
      note: 'Item category assignments no longer refer to a taxonomy',
    },
    reason: `Removed taxonomy ${stored.name}`,
    at: new Date().toISOString(),
  });
  return row.version;
}
