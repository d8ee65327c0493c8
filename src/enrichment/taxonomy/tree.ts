/**
 * A request taxonomy (docs/api-reference.md "Taxonomy" input form) compiled for classification: each node
 * with its `level` (0 = root), `path` of names and ids from the root (inclusive) and
 * `all_attributes` (ancestors' attributes, the nearest ancestor winning on a name clash, the
 * node's own winning over all) — the same rules the API's enriched taxonomy uses
 * (src/services/catalog/taxonomy.ts `enrichTaxonomy`), computed here without the service layer so the
 * engine stays pure of the database.
 */
import type { TaxonomyInput } from '../types';

/** A category attribute as declared in docs/api-reference.md "Taxonomy". */
export type TaxonomyAttribute = NonNullable<TaxonomyInput['nodes'][string]['attributes']>[number];

/** One compiled node. */
export interface TaxonomyNode {
  id: string;
  name: string;
  description?: string;
  parent: string | null;
  level: number;
  /** Names from the root to this node, inclusive. */
  path: string[];
  /** Ids from the root to this node, inclusive. */
  path_ids: string[];
  /** Inherited + own attributes (`all_attributes`). */
  all_attributes: TaxonomyAttribute[];
}

/** A compiled taxonomy: nodes by id, in input order. */
export interface CompiledTaxonomy {
  name: string;
  nodes: Map<string, TaxonomyNode>;
}

const compiled = new WeakMap<TaxonomyInput, CompiledTaxonomy>();

/**
 * Compiles (and caches per taxonomy object) a taxonomy. Nodes with an unknown parent are
 * treated as roots and nodes on a parent cycle are left out (the API rejects both with 422
 * before a job starts; the engine must not fail on them).
 */
export function compileTaxonomy(taxonomy: TaxonomyInput): CompiledTaxonomy {
  const hit = compiled.get(taxonomy);
  if (hit) return hit;
  const nodes = new Map<string, TaxonomyNode>();
  const resolve = (id: string, seen: Set<string>): TaxonomyNode | null => {
    const done = nodes.get(id);
    if (done) return done;
    const raw = taxonomy.nodes[id];
    if (!raw || seen.has(id)) return null;
    seen.add(id);
    const hasParent = raw.parent !== null && Object.prototype.hasOwnProperty.call(taxonomy.nodes, raw.parent);
    const parent = hasParent ? resolve(raw.parent as string, seen) : null;
    if (hasParent && !parent) return null;
    const own = raw.attributes ?? [];
    const ownNames = new Set(own.map((a) => a.name));
    const node: TaxonomyNode = {
      id,
      name: raw.name,
      ...(raw.description ? { description: raw.description } : {}),
      parent: parent ? parent.id : null,
      level: parent ? parent.level + 1 : 0,
      path: parent ? [...parent.path, raw.name] : [raw.name],
      path_ids: parent ? [...parent.path_ids, id] : [id],
      all_attributes: [...(parent?.all_attributes ?? []).filter((a) => !ownNames.has(a.name)), ...own],
    };
    nodes.set(id, node);
    return node;
  };
  for (const id of Object.keys(taxonomy.nodes)) resolve(id, new Set());
  const ordered = new Map<string, TaxonomyNode>();
  for (const id of Object.keys(taxonomy.nodes)) {
    const n = nodes.get(id);
    if (n) ordered.set(id, n);
  }
  const result = { name: taxonomy.name, nodes: ordered };
  compiled.set(taxonomy, result);
  return result;
}
