/**
 * Value normalisation shared by the pull, the diff and the validator (docs/tool-server-design.md "Pull"
 * and docs/tool-server-design.md "Diff": values are compared by type, so `"1.0"` vs `1` and an
 * array vs its JSON string never show as changes).
 */
import { createHash } from 'node:crypto';

/** A flat table row: column → value (values of JSON files keep their types; CSV cells are strings). */
export type Row = Record<string, unknown>;

/** The four snapshot-row system columns (docs/tool-server-design.md "Pull"). */
export const SYSTEM_COLUMNS = ['__catalog_item_id', '__entity_type', '__parent_id', '__current_version'] as const;

const SYSTEM = new Set<string>(SYSTEM_COLUMNS);

/** Whether `column` is one of {@link SYSTEM_COLUMNS}. */
export function isSystemColumn(column: string): boolean {
  return column.charCodeAt(0) === 95 && column.charCodeAt(1) === 95 && SYSTEM.has(column);
}

/** Null, undefined and NaN all count as null (docs/tool-server-design.md "Diff"). */
export function isNull(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));
}

/**
 * A key value as a match key: `String(v).trim()`, null when that is empty or "nan" in any case
 * (docs/tool-server-design.md "Diff").
 */
export function normKey(v: unknown): string | null {
  if (isNull(v)) return null;
  const s = (typeof v === 'object' ? JSON.stringify(v) : String(v)).trim();
  return s === '' || s.toLowerCase() === 'nan' ? null : s;
}

/**
 * JSON text with Python's default separators (`", "` and `": "`), as the pull's flattening writes
 * dict and list cells (docs/tool-server-design.md "Pull"), e.g. `["a", "b"]`.
 */
export function pythonJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pythonJson).join(', ')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pythonJson(x)}`)
      .join(', ')}}`;
  }
  return v === undefined ? 'null' : JSON.stringify(v);
}

/**
 * Canonical JSON: object keys sorted at every level, no whitespace, values JSON cannot hold
 * (undefined, functions, bigint) stringified (docs/tool-server-design.md "Pull": sorted keys, separators
 * `,`/`:`, non-JSON values stringified). NaN and infinities become null as in JSON.
 */
export function canonicalJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  switch (typeof v) {
    case 'object': {
      if (v instanceof Date) return JSON.stringify(v.toISOString());
      const keys = Object.keys(v).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Row)[k])}`).join(',')}}`;
    }
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    case 'string':
    case 'boolean':
      return JSON.stringify(v);
    default:
      return JSON.stringify(String(v));
  }
}

/** SHA-256 hex of a string. */
export function sha256Hex(s: string | Buffer): string {
  return createHash('sha256').update(s).digest('hex');
}

const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** The number a numeric string holds, or null (`"1.0"` → 1, `" 2 "` → 2, `"abc"` → null). */
export function numericString(s: string): number | null {
  const t = s.trim();
  if (!NUMERIC.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** The JSON array or object a string holds (`'["a", "b"]'` → ["a","b"]), or undefined. */
export function jsonContainer(s: string): unknown[] | Row | undefined {
  const t = s.trim();
  if (!(t.startsWith('[') || t.startsWith('{'))) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return v && typeof v === 'object' ? (v as unknown[] | Row) : undefined;
  } catch {
    return undefined;
  }
}

/** A value reduced for comparison: numbers, booleans and containers from their string forms too. */
function comparable(v: unknown): { kind: 'number'; n: number } | { kind: 'bool'; b: boolean } | { kind: 'json'; s: string } | { kind: 'text'; s: string } {
  if (typeof v === 'number') return { kind: 'number', n: v };
  if (typeof v === 'boolean') return { kind: 'bool', b: v };
  if (typeof v === 'object' && v !== null) return { kind: 'json', s: canonicalJson(v) };
  const s = String(v);
  const n = numericString(s);
  if (n !== null) return { kind: 'number', n };
  const lower = s.trim().toLowerCase();
  if (lower === 'true' || lower === 'false') return { kind: 'bool', b: lower === 'true' };
  const c = jsonContainer(s);
  if (c !== undefined) return { kind: 'json', s: canonicalJson(c) };
  return { kind: 'text', s };
}

/**
 * Whether two cell values differ (docs/tool-server-design.md "Diff", compared by type): two nulls are equal, exactly one null differs; otherwise both are reduced to a
 * number, a boolean, canonical JSON or text (numeric strings count as numbers, "true"/"false"
 * as booleans, JSON strings of arrays/objects as those) and compared; numbers compare as floats
 * (1 = 1.0 = "1.0"); a number never equals a non-numeric text.
 */
export function differs(a: unknown, b: unknown): boolean {
  const an = isNull(a);
  const bn = isNull(b);
  if (an || bn) return an !== bn;
  if (a === b) return false;
  const x = comparable(a);
  const y = comparable(b);
  if (x.kind !== y.kind) return true;
  switch (x.kind) {
    case 'number':
      return x.n !== (y as { n: number }).n;
    case 'bool':
      return x.b !== (y as { b: boolean }).b;
    default:
      return x.s !== (y as { s: string }).s;
  }
}

/** The kind of a catalog column, from its JSON Schema type (first non-null member of a type list). */
export type ColumnKind = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

/** Column kinds from a JSON Schema's `properties` (`{type: "number"}` or `{type: ["number","null"]}`). */
export function kindsFromSchema(definition: unknown): Map<string, ColumnKind> {
  const out = new Map<string, ColumnKind>();
  const props = definition && typeof definition === 'object' ? (definition as { properties?: unknown }).properties : undefined;
  if (!props || typeof props !== 'object') return out;
  for (const [name, p] of Object.entries(props as Record<string, unknown>)) {
    const t = p && typeof p === 'object' ? (p as { type?: unknown }).type : undefined;
    const first = (Array.isArray(t) ? t : [t]).find((x) => typeof x === 'string' && x !== 'null');
    if (first === 'string' || first === 'number' || first === 'integer' || first === 'boolean' || first === 'array' || first === 'object') out.set(name, first);
  }
  return out;
}

/**
 * A cell converted to its column's kind when it is a string that holds one (CSV cells, flattened
 * JSON cells): `"99.5"` → 99.5 for a number column, `"true"` → true for a boolean column,
 * `'["a", "b"]'` → ["a","b"] for an array column. Anything else is returned unchanged.
 */
export function coerceCell(v: unknown, kind: ColumnKind | undefined): unknown {
  if (typeof v !== 'string' || !kind || kind === 'string') return v;
  if (kind === 'number' || kind === 'integer') return numericString(v) ?? v;
  if (kind === 'boolean') {
    const l = v.trim().toLowerCase();
    return l === 'true' ? true : l === 'false' ? false : v;
  }
  const c = jsonContainer(v);
  if (c === undefined) return v;
  return (kind === 'array') === Array.isArray(c) ? c : v;
}
