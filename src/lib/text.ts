/**
 * Text that PostgreSQL cannot store: the NUL character (`text` and `jsonb` reject U+0000) and
 * unpaired UTF-16 surrogates (not Unicode scalar values, so they have no UTF-8 encoding). Both
 * arrive easily in JSON (`"\u0000"`, `"\ud800"`), and must be refused at the edge with a 422
 * naming the field instead of failing deep inside a write.
 */

/** U+0000, or a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- matching U+0000 is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Deepest nesting of arrays and objects an input may have. Real catalog data nests a few levels;
 * a body of thousands of nested arrays overflowed the stack of recursive walkers (a 500).
 */
export const MAX_JSON_DEPTH = 100;

/** The nesting depth of a JSON value (a scalar is 0), counted without recursion. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** True when `s` holds a character PostgreSQL cannot store (see the module comment). */
export function hasUnstorableText(s: string): boolean {
  return UNSTORABLE.test(s);
}

/**
 * The JSON paths (property names and array indexes from the root) of every string, and every
 * object key, in `value` that holds unstorable text. A key's own path ends with that key.
 * At most `limit` paths are collected (a hostile body need not be reported whole).
 */
export function unstorableTextPaths(value: unknown, limit = 20): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const walk = (v: unknown, path: Array<string | number>): void => {
    if (out.length >= limit || path.length > MAX_JSON_DEPTH) return;
    if (typeof v === 'string') {
      if (hasUnstorableText(v)) out.push(path);
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...path, i]));
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        if (hasUnstorableText(k) && out.length < limit) out.push([...path, k]);
        walk(item, [...path, k]);
      }
    }
  };
  walk(value, []);
  return out;
}
