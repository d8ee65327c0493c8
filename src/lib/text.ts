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

/** True when `s` holds a character PostgreSQL cannot store (see the module comment). */
export function hasUnstorableText(s: string): boolean {
  return UNSTORABLE.test(s);
}

/**
 * What is wrong with a JSON value's text and nesting, in one walk that builds nothing: `too_deep`
 * when it nests deeper than {@link MAX_JSON_DEPTH} (whatever else it holds), else `unstorable`
 * when a string or an object key holds unstorable text, else null. The check of every request
 * body: bodies are nearly always fine, so the paths of the problems ({@link unstorableTextPaths})
 * are collected only when there are some (the path-building walk cost a bulk write of 1,000
 * items about 7 ms).
 */
export function jsonTextProblem(value: unknown): 'too_deep' | 'unstorable' | null {
  let unstorable = false;
  // Recursion is bounded: the walk stops one level past MAX_JSON_DEPTH.
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === 'string') {
      if (!unstorable && hasUnstorableText(v)) unstorable = true;
      return false;
    }
    if (typeof v !== 'object' || v === null) return false;
    if (depth >= MAX_JSON_DEPTH) return true;
    if (Array.isArray(v)) {
      for (const item of v) if (walk(item, depth + 1)) return true;
      return false;
    }
    for (const k of Object.keys(v)) {
      if (!unstorable && hasUnstorableText(k)) unstorable = true;
      if (walk((v as Record<string, unknown>)[k], depth + 1)) return true;
    }
    return false;
  };
  if (walk(value, 0)) return 'too_deep';
  return unstorable ? 'unstorable' : null;
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
