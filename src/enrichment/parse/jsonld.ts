import type { CheerioAPI } from 'cheerio';
import { parseTolerantJson } from './tolerant-json';

/**
 * Every JSON-LD block of a page (`<script type="application/ld+json">`), parsed tolerantly
 * (see {@link parseTolerantJson}). A top-level array contributes its elements; `null` blocks
 * and blocks that cannot be repaired are skipped. Output matches extruct's JSON-LD syntax
 * output (a flat list of the blocks' top-level objects).
 */
export function parseJsonLd($: CheerioAPI): unknown[] {
  const out: unknown[] = [];
  $('script[type]').each((_, el) => {
    const type = ($(el).attr('type') ?? '').toLowerCase().trim();
    if (!type.startsWith('application/ld+json')) return;
    const value = parseTolerantJson($(el).text());
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) out.push(...value.filter((v) => v !== null && v !== undefined));
    else out.push(value);
  });
  return out;
}

/** A JSON-LD node with the path it was found at (e.g. `@graph[1]`), for source explanations. */
export interface JsonLdNode {
  node: Record<string, unknown>;
  path: string;
}

/** `@type` of a node as a list of short names (`http://schema.org/Product` → `Product`). */
export function nodeTypes(node: Record<string, unknown>): string[] {
  const raw = node['@type'] ?? node.type;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^.*[/#]/, ''));
}

/**
 * Walks every object reachable from the blocks (`@graph`, nested properties, arrays) and
 * returns those whose `@type` is one of `types`, in document order. Type names compare
 * case-insensitively: shops write `"@type": "product"`, which every consumer reads as Product.
 */
export function findNodes(blocks: unknown[], types: string[]): JsonLdNode[] {
  const found: JsonLdNode[] = [];
  const wanted = new Set(types.map((t) => t.toLowerCase()));
  const visit = (value: unknown, path: string, depth: number): void => {
    if (depth > 12 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, `${path}[${i}]`, depth + 1));
      return;
    }
    const node = value as Record<string, unknown>;
    if (nodeTypes(node).some((t) => wanted.has(t.toLowerCase()))) found.push({ node, path });
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'object' && child !== null) visit(child, path ? `${path}.${key}` : key, depth + 1);
    }
  };
  blocks.forEach((b, i) => visit(b, blocks.length > 1 ? `[${i}]` : '', 0));
  return found;
}
