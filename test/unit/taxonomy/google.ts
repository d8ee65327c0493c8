import fs from 'node:fs';
import type { TaxonomyInput } from '../../../src/enrichment/types';

/**
 * Google Product Taxonomy (`<id> - A > B > C` per line, see the data folder's SOURCE.md) as
 * a G3 taxonomy: node id = Google's id, parent = the node of the path without its last name.
 */
export function loadGoogleTaxonomy(file: string): TaxonomyInput {
  const byPath = new Map<string, string>();
  const nodes: TaxonomyInput['nodes'] = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d+) - (.+)$/.exec(line.trim());
    if (!m) continue;
    const path = m[2].split(' > ');
    byPath.set(path.join(' > '), m[1]);
    nodes[m[1]] = { name: path[path.length - 1], parent: path.length > 1 ? (byPath.get(path.slice(0, -1).join(' > ')) ?? null) : null, attributes: [] };
  }
  return { name: 'Google Product Taxonomy', hierarchy_levels: ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7'], nodes };
}
