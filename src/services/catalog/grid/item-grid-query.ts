/**
 * The item grid's query and its SQL: URL parameters (helper conventions shared by
 * the console pages: `q`, `sort`, `dir`, `cursor`, `view`, `category`, `missing`,
 * `f.<field>=<op>:<value>` with ops `empty`, `notempty`, `eq`, `contains`, `range` `a..b`,
 * `in` comma list) parsed and checked against the catalog schema, and each filter as a `WHERE`
 * condition over `catalog_items.data`. Field names are always bound parameters (`data -> ?`),
 * never spliced into SQL. "Empty" means the same here and in completeness
 * (src/services/catalog/grid/completeness.ts, {@link isEmptyValue}): missing, null, a blank string,
 * an empty list or object.
 */
import type { Knex } from 'knex';
import { ValidationError } from '../../../lib/errors';
import { decodeCursor, type ItemCursor, type SortOrder } from '../items/items-sql';

/**
 * The grid's sort key of a data field (key bound as a parameter): its JSON value, an explicit
 * JSON `null` read as SQL NULL (sorted with the missing values, last). The value of the field's
 * keys (`catalog_sort_keys.k`, src/services/catalog/grid/grid-keys.ts) and of the `key` kind's
 * statistics object (grid-indexes.ts): conditions written over it are estimated from those.
 */
export const GRID_KEY_SQL = "NULLIF(data -> ?, 'null'::jsonb)";

/** Filter operators of the grid (and of readiness rules). */
export const FILTER_OPS = ['empty', 'notempty', 'eq', 'contains', 'range', 'in'] as const;

/** One grid filter operator. */
export type FilterOp = (typeof FILTER_OPS)[number];

/** One filter: the field, the operator and its raw value (`range`: `a..b`, either end open; `in`: comma list). */
export interface GridFilter {
  field: string;
  op: FilterOp;
  value: string;
  /** Items NOT passing it (`not.<field>`; a missing field fails every operator but `empty`). */
  negate?: boolean;
}

/** Columns every catalog can sort by besides its schema fields. */
export const COLUMN_SORTS = ['created_at', 'updated_at'] as const;

/** The grid's query after checking (paging aside, what a saved view stores). */
export interface GridQuery {
  q?: string;
  sort?: string;
  dir: SortOrder;
  /** A taxonomy node id (its subtree), or `unclassified`. */
  category?: string;
  /** A field that must be empty (the completeness page's "missing X" links). */
  missing?: string;
  filters: GridFilter[];
  /** Items whose required fields are all filled (`complete=yes`) or not (`complete=no`). */
  complete?: 'yes' | 'no';
  /** Items ready (`ready`) or not ready (`not_ready`) under a readiness profile id. */
  readiness?: { profileId: string; state: 'ready' | 'not_ready' };
  /** Data fields shown as columns, when chosen in the URL (`cols=a,b`). */
  columns?: string[];
  cursor?: ItemCursor;
  view?: string;
}

/** A `WHERE` fragment with its bindings. */
export interface SqlPart {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** A JavaScript value as the grid and completeness see it: empty or not (mirrors {@link emptySql}). */
export function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

/**
 * SQL: the field is empty (missing, null, blank string, `[]`, `{}`), as {@link isEmptyValue}. One
 * `jsonb_typeof` and at most one more look-up per row (the completeness report evaluates this
 * for every field of every item: 1,000,000 items × 20 fields).
 */
export function emptySql(field: string): SqlPart {
  return {
    sql: `(CASE jsonb_typeof(data -> ?) WHEN 'string' THEN btrim(data ->> ?) = '' WHEN 'number' THEN false WHEN 'boolean' THEN false
      WHEN 'array' THEN jsonb_array_length(data -> ?) = 0 WHEN 'object' THEN data -> ? = '{}'::jsonb ELSE true END)`,
    bindings: [field, field, field, field],
  };
}

/**
 * Runs one read statement with JIT off, in its own read-only transaction: the grid's and the
 * completeness report's statements carry long generated expressions (a filter per field, an
 * emptiness test per field and profile) whose JIT compilation costs more than it saves — 24 s
 * of 32 s for the report at 1,000,000 items (EXPLAIN ANALYZE), 20–45 ms on a page.
 * `work_mem` is raised for the report's grouping and the sorts of unindexed orders.
 */
export function readWithoutJit<T>(knex: Knex, sql: string, bindings: Knex.RawBinding[]): Promise<{ rows: T[] }> {
  return knex.transaction(
    async (trx) => {
      await trx.raw("SET LOCAL jit = off; SET LOCAL work_mem = '64MB'");
      return (await trx.raw(sql, bindings)) as { rows: T[] };
    },
    { readOnly: true },
  );
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

function numberOf(field: string, raw: string): number {
  const n = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(n)) throw ValidationError.at(['query', `f.${field}`], `Not a number: ${raw}`);
  return n;
}

/**
 * The SQL condition of one filter. `type`: the field's schema type (fieldTypeOf): numbers compare
 * as numbers, booleans as booleans, lists by element; anything else as text.
 * @throws ValidationError (422) for a value the operator cannot read (a number expected, a range without `..`)
 */
export function filterConditionSql(f: GridFilter, type: string): SqlPart {
  if (f.negate) {
    const c = filterConditionSql({ ...f, negate: false }, type);
    return { sql: `NOT coalesce(${c.sql}, false)`, bindings: c.bindings };
  }
  const numeric = type === 'number' || type === 'integer';
  switch (f.op) {
    case 'empty':
      return emptySql(f.field);
    case 'notempty': {
      const e = emptySql(f.field);
      return { sql: `NOT ${e.sql}`, bindings: e.bindings };
    }
    case 'eq':
      // Over the sort key (GRID_KEY_SQL), so its statistics estimate it (grid-indexes.ts):
      // the same rows as `data -> f = <value>`, a JSON null being equal to no number or boolean.
      if (numeric) return { sql: `${GRID_KEY_SQL} = to_jsonb(?::numeric)`, bindings: [f.field, numberOf(f.field, f.value)] };
      if (type === 'boolean') {
        const v = f.value.trim().toLowerCase();
        if (v !== 'true' && v !== 'false') throw ValidationError.at(['query', `f.${f.field}`], 'Expected true or false');
        return { sql: `${GRID_KEY_SQL} = ?::jsonb`, bindings: [f.field, v] };
      }
      if (type === 'array') return { sql: 'data -> ? @> jsonb_build_array(?::text)', bindings: [f.field, f.value] };
      return { sql: 'data ->> ? = ?', bindings: [f.field, f.value] };
    case 'contains': {
      const pattern = '%' + f.value.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
      return { sql: "data ->> ? ILIKE ? ESCAPE '\\'", bindings: [f.field, pattern] };
    }
    case 'range': {
      const { lo, hi } = rangeBounds(f);
      const parts: string[] = [];
      const bindings: Knex.RawBinding[] = [];
      // Numbers compare as JSON over the sort key (GRID_KEY_SQL, as the field's keys do),
      // which orders numbers numerically and every type as a whole (PostgreSQL's jsonb B-tree
      // order: object > array > boolean > number > string > null). Between two numbers lie only
      // numbers, so a closed range needs nothing more; below `false` (the least boolean) lie no
      // booleans, lists or objects, so a lower bound alone gets that upper bound. Both keep the
      // condition on the key expression alone, which its statistics estimate. An upper bound alone keeps a type
      // test: strings order below every number, and no JSON value is the least number.
      const value = numeric ? 'to_jsonb(?::numeric)' : '?';
      for (const [bound, cmp] of [
        [lo, '>='],
        [hi, '<='],
      ] as const) {
        if (!bound) continue;
        parts.push(`${numeric ? GRID_KEY_SQL : 'data ->> ?'} ${cmp} ${value}`);
        bindings.push(f.field, numeric ? numberOf(f.field, bound) : bound);
      }
      if (!parts.length) return { sql: 'NOT ' + emptySql(f.field).sql, bindings: emptySql(f.field).bindings };
      if (numeric && !hi) {
        parts.push(`${GRID_KEY_SQL} < 'false'::jsonb`);
        bindings.push(f.field);
      } else if (numeric && !lo) {
        parts.push("jsonb_typeof(data -> ?) = 'number'");
        bindings.push(f.field);
      }
      return { sql: `(${parts.join(' AND ')})`, bindings };
    }
    case 'in': {
      const values = f.value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
      if (!values.length) throw ValidationError.at(['query', `f.${f.field}`], 'Give at least one value (a comma list)');
      if (type === 'array') return { sql: `jsonb_exists_any(data -> ?, ARRAY[${placeholders(values.length)}]::text[])`, bindings: [f.field, ...values] };
      return { sql: `data ->> ? IN (${placeholders(values.length)})`, bindings: [f.field, ...values] };
    }
  }
}

/**
 * The bounds of a `range` filter's value `a..b`, trimmed; an empty string is an open end.
 * @throws ValidationError (422) when the value has no `..`
 */
export function rangeBounds(f: Pick<GridFilter, 'field' | 'value'>): { lo: string; hi: string } {
  const at = f.value.indexOf('..');
  if (at < 0) throw ValidationError.at(['query', `f.${f.field}`], 'A range is written a..b (either end may be left open)');
  return { lo: f.value.slice(0, at).trim(), hi: f.value.slice(at + 2).trim() };
}

/**
 * Reads one `f.<field>` value `<op>:<value>` (`empty` and `notempty` take no value).
 * @throws ValidationError (422) for an unknown operator or a NUL character
 */
export function parseFilter(field: string, raw: string): GridFilter {
  // PostgreSQL's text holds no NUL character: refused here rather than failing in the database.
  if (raw.includes('\u0000')) throw ValidationError.at(['query', `f.${field}`], 'A filter value cannot hold a NUL character');
  const at = raw.indexOf(':');
  const op = (at < 0 ? raw : raw.slice(0, at)).trim();
  if (!(FILTER_OPS as readonly string[]).includes(op))
    throw ValidationError.at(['query', `f.${field}`], `Unknown filter operator "${op}": one of ${FILTER_OPS.join(', ')}`);
  return { field, op: op as FilterOp, value: at < 0 ? '' : raw.slice(at + 1) };
}

/** A filter as its `f.<field>` URL value. */
export function filterValue(f: Pick<GridFilter, 'op' | 'value'>): string {
  return f.op === 'empty' || f.op === 'notempty' ? f.op : `${f.op}:${f.value}`;
}

type Query = Record<string, string | string[] | undefined>;

function one(q: Query, key: string): string | undefined {
  const v = q[key];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/**
 * Reads the grid's URL query against the catalog's fields (`types`: field → type, the schema's
 * properties and the taxonomy's attributes). Unknown fields in `sort`,
 * `missing`, `cols` or a filter (`f.<field>`, or `not.<field>` for the items not passing it), a bad operator or cursor are 422s (ValidationError) naming the
 * parameter, so a mistyped link says what is wrong instead of showing everything.
 */
export function parseGridQuery(query: Query, types: Record<string, string>): GridQuery {
  const known = (field: string, param: string) => {
    if (!Object.hasOwn(types, field)) throw ValidationError.at(['query', param], `No field "${field}" in the catalog schema`);
    return field;
  };
  const sort = one(query, 'sort');
  if (sort && !(COLUMN_SORTS as readonly string[]).includes(sort)) known(sort, 'sort');
  const dir = one(query, 'dir') ?? (sort ? 'asc' : 'desc');
  if (dir !== 'asc' && dir !== 'desc') throw ValidationError.at(['query', 'dir'], 'asc or desc');
  const filters: GridFilter[] = [];
  for (const [key, raw] of Object.entries(query)) {
    const negate = key.startsWith('not.');
    if (!key.startsWith('f.') && !negate) continue;
    const field = known(key.slice(negate ? 4 : 2), key);
    for (const v of Array.isArray(raw) ? raw : [raw ?? '']) if (v) filters.push({ ...parseFilter(field, v), ...(negate ? { negate } : {}) });
  }
  const missing = one(query, 'missing');
  if (missing) known(missing, 'missing');
  const cols = one(query, 'cols');
  const columns = cols ? [...new Set(cols.split(',').map((c) => known(c.trim(), 'cols')))] : undefined;
  const rawCursor = one(query, 'cursor');
  const cursor = rawCursor ? decodeCursor(rawCursor) : undefined;
  if (cursor === null) throw ValidationError.at(['query', 'cursor'], 'Not a cursor of this grid: follow the "Next" link');
  const readiness = one(query, 'readiness');
  const ready = one(query, 'ready');
  if (ready && ready !== 'yes' && ready !== 'no') throw ValidationError.at(['query', 'ready'], 'yes or no');
  // Every filter field's type is read once here, so a bad value fails now, not in the database.
  for (const f of filters) filterConditionSql(f, types[f.field]);
  const complete = one(query, 'complete');
  if (complete && complete !== 'yes' && complete !== 'no') throw ValidationError.at(['query', 'complete'], 'yes or no');
  return {
    q: one(query, 'q')?.slice(0, 500),
    sort,
    dir,
    category: one(query, 'category')?.slice(0, 200),
    missing,
    filters,
    complete: complete as GridQuery['complete'],
    readiness: readiness ? { profileId: readiness, state: ready === 'yes' ? 'ready' : 'not_ready' } : undefined,
    columns,
    cursor: cursor ?? undefined,
    view: one(query, 'view'),
  };
}

/**
 * The grid URL of a query (the console's conventions): `base` is
 * `/dashboard/catalogs/{id}/items`; paging (`cursor`) only when given in `patch`.
 */
export function gridUrl(base: string, q: Partial<GridQuery>): string {
  const p = new URLSearchParams();
  if (q.view) p.set('view', q.view);
  if (q.q) p.set('q', q.q);
  if (q.category) p.set('category', q.category);
  if (q.missing) p.set('missing', q.missing);
  for (const f of q.filters ?? []) p.append(`${f.negate ? 'not' : 'f'}.${f.field}`, filterValue(f));
  if (q.complete) p.set('complete', q.complete);
  if (q.readiness) {
    p.set('readiness', q.readiness.profileId);
    p.set('ready', q.readiness.state === 'ready' ? 'yes' : 'no');
  }
  if (q.columns) p.set('cols', q.columns.join(','));
  if (q.sort) p.set('sort', q.sort);
  if (q.sort && q.dir) p.set('dir', q.dir);
  const s = p.toString();
  return s ? `${base}?${s}` : base;
}
