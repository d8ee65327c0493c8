/**
 * The Google product taxonomy as a taxonomy: read from Google's published text file
 * (`taxonomy-with-ids.<locale>.txt`, one `<id> - A > B > C` per line) and, for the engine, compiled
 * once on first use (the bridge into a catalog's own taxonomy, ./bridge.ts).
 */
import fs from 'node:fs';
import type { TaxonomyInput } from '../types';
import { compileTaxonomy, type CompiledTaxonomy } from './tree';

/**
 * Reads the Google product taxonomy text file (`<id> - A > B > C` per line, Google's
 * `taxonomy-with-ids.<locale>.txt`) into a taxonomy keyed by Google's ids.
 * @throws Error when the file cannot be read
 */
export function readGoogleTaxonomy(file: string): TaxonomyInput {
  const byPath = new Map<string, string>();
  const nodes: TaxonomyInput['nodes'] = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d+) - (.+)$/.exec(line.trim());
    if (!m) continue;
    const path = m[2].split(' > ');
    byPath.set(m[2], m[1]);
    nodes[m[1]] = { name: path[path.length - 1], parent: path.length > 1 ? (byPath.get(path.slice(0, -1).join(' > ')) ?? null) : null };
  }
  return { name: 'Google Product Taxonomy', hierarchy_levels: ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7'], nodes };
}

/**
 * A loader of the compiled Google taxonomy of `file` (null: none configured), read and compiled
 * on the first call and kept by the returned closure (an unreadable file gives null, once).
 * The engine owns one (src/enrichment/index.ts createEngineFromConfig).
 */
export function googleTaxonomyLoader(file: string | null): () => CompiledTaxonomy | null {
  let compiled: CompiledTaxonomy | null | undefined;
  return () => {
    if (compiled === undefined) {
      try {
        compiled = file ? compileTaxonomy(readGoogleTaxonomy(file)) : null;
      } catch {
        compiled = null;
      }
    }
    return compiled;
  };
}
