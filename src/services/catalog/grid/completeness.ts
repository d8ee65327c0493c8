/**
 * Completeness and readiness of items. An item's required fields are the schema's
 * `required` plus the `required` attributes in its taxonomy node's `all_attributes` (inherited
 * ones included); its completeness is the share of them filled ("empty" as the grid's
 * filter: src/services/catalog/grid/item-grid-query.ts isEmptyValue / emptySql). A readiness
 * profile (src/models/readiness-profile.ts) is its own set of required fields plus rules
 * (grid filters the item must pass). The catalog dashboard counts, in one pass over the
 * catalog's (top-level, when product-grouped) items, per taxonomy node: items, complete items,
 * empty items per field; and per profile: ready items and the items each rule fails.
 */
import type { Knex } from 'knex';
import type { ReadinessProfile, ReadinessRule } from '../../../models/readiness-profile';
import { emptySql, filterConditionSql, isEmptyValue, readWithoutJit, type SqlPart } from './item-grid-query';
import type { EnrichedTaxonomy } from '../taxonomy';

/** The field `category_id` of an item names its taxonomy node. */
export const CATEGORY_FIELD = 'category_id';

/**
 * SQL of an item's taxonomy node in `catalog_items`: the stored generated column equal to
 * `data ->> 'category_id'`, indexed with `catalog_id` (migration 20261202090000: an expression
 * index over `data` would make every data update non-HOT). Queries read it unqualified, so
 * they must select from `catalog_items` without another table holding a `category_id`.
 */
export const CATEGORY_SQL = 'category_id';

/** What decides which fields an item needs: the schema's `required` and the taxonomy (or none). */
export interface RequiredRules {
  schemaRequired: string[];
  taxonomy: EnrichedTaxonomy | null;
}

/** The required fields of an item in node `categoryId` (schema `required` first, then the node's required attributes). */
export function requiredFields(rules: RequiredRules, categoryId: unknown): string[] {
  const out = [...rules.schemaRequired];
  const node = typeof categoryId === 'string' || typeof categoryId === 'number' ? rules.taxonomy?.nodes[String(categoryId)] : undefined;
  for (const a of node?.all_attributes ?? []) if (a.required === true && !out.includes(a.name)) out.push(a.name);
  return out;
}

/** An item's completeness: how many of its required fields are filled, the share (0–1; 1 with none required), and which are missing. */
export interface Completeness {
  filled: number;
  required: number;
  share: number;
  missing: string[];
}

/** The completeness of item `data` against `required` fields. */
export function completenessOf(data: Record<string, unknown>, required: string[]): Completeness {
  const missing = required.filter((f) => isEmptyValue(data[f]));
  const filled = required.length - missing.length;
  return { filled, required: required.length, share: required.length ? filled / required.length : 1, missing };
}

/** The node ids of the subtree under `nodeId` (itself included); empty for an unknown node. */
export function subtreeIds(taxonomy: EnrichedTaxonomy | null, nodeId: string): string[] {
  if (!taxonomy?.nodes[nodeId]) return [];
  const out: string[] = [];
  const stack = [nodeId];
  while (stack.length) {
    const id = stack.pop()!;
    out.push(id);
    stack.push(...(taxonomy.nodes[id]?.children ?? []));
  }
  return out;
}

/** SQL: every field of `fields` is filled (true when there are none). */
export function allFilledSql(fields: string[]): SqlPart {
  if (!fields.length) return { sql: 'true', bindings: [] };
  const parts = fields.map(emptySql);
  return { sql: `NOT (${parts.map((p) => p.sql).join(' OR ')})`, bindings: parts.flatMap((p) => p.bindings) };
}

/** SQL of one rule, false (never null) when the field is missing. `types`: field → schema type. */
export function ruleSql(rule: ReadinessRule, types: Record<string, string>): SqlPart {
  const c = filterConditionSql({ field: rule.field, op: rule.op, value: rule.value }, types[rule.field] ?? 'string');
  return { sql: `coalesce(${c.sql}, false)`, bindings: c.bindings };
}

/** SQL: the item is ready under `profile` (its required fields filled, every rule passed). */
export function readySql(profile: Pick<ReadinessProfile, 'required_fields' | 'rules'>, types: Record<string, string>): SqlPart {
  const parts = [allFilledSql(profile.required_fields), ...profile.rules.map((r) => ruleSql(r, types))];
  return { sql: `(${parts.map((p) => p.sql).join(' AND ')})`, bindings: parts.flatMap((p) => p.bindings) };
}

/**
 * SQL: the item is complete (every field it requires filled). Nodes are grouped by their
 * required set so the `CASE` has one branch per distinct set, not per node.
 */
export function completeSql(rules: RequiredRules): SqlPart {
  const bySet = new Map<string, { fields: string[]; ids: string[] }>();
  const base = JSON.stringify(rules.schemaRequired);
  for (const id of Object.keys(rules.taxonomy?.nodes ?? {})) {
    const fields = requiredFields(rules, id);
    const key = JSON.stringify(fields);
    if (key === base) continue;
    let entry = bySet.get(key);
    if (!entry) bySet.set(key, (entry = { fields, ids: [] }));
    entry.ids.push(id);
  }
  const fallback = allFilledSql(rules.schemaRequired);
  if (!bySet.size) return fallback;
  let sql = 'CASE';
  const bindings: Knex.RawBinding[] = [];
  for (const { fields, ids } of bySet.values()) {
    const all = allFilledSql(fields);
    sql += ` WHEN ${CATEGORY_SQL} IN (${ids.map(() => '?').join(', ')}) THEN ${all.sql}`;
    bindings.push(...ids, ...all.bindings);
  }
  return { sql: `${sql} ELSE ${fallback.sql} END`, bindings: [...bindings, ...fallback.bindings] };
}

/** Counts of one group of items (one `category_id` value). */
export interface GroupCounts {
  items: number;
  complete: number;
  /** Field → items where it is empty. */
  empty: Record<string, number>;
}

/** Counts of one readiness profile over the catalog. */
export interface ProfileCounts {
  ready: number;
  /** Required field → items where it is empty. */
  missing: Record<string, number>;
  /** Rule index → items failing it. */
  failing: number[];
}

/** The catalog dashboard's raw counts. */
export interface CompletenessCounts {
  /** `category_id` value ('' for none) → counts. */
  groups: Map<string, GroupCounts>;
  profiles: Map<string, ProfileCounts>;
}

/**
 * Counts the dashboard in one scan of the catalog's items (`scope`: the list's `WHERE`, e.g.
 * top-level items of a grouped catalog): per `category_id` group the items, the complete ones and
 * the empty ones per field of `fields`; per profile the ready items, the empty required fields and
 * the failing rules.
 */
export async function countCompleteness(
  knex: Knex,
  scope: SqlPart,
  rules: RequiredRules,
  fields: string[],
  profiles: ReadinessProfile[],
  types: Record<string, string>,
): Promise<CompletenessCounts> {
  const select: string[] = [`coalesce(${CATEGORY_SQL}, '') AS c`, 'count(*)::int AS n'];
  const bindings: Knex.RawBinding[] = [];
  const complete = completeSql(rules);
  select.push(`count(*) FILTER (WHERE ${complete.sql})::int AS complete`);
  bindings.push(...complete.bindings);
  fields.forEach((f, i) => {
    const e = emptySql(f);
    select.push(`count(*) FILTER (WHERE ${e.sql})::int AS e${i}`);
    bindings.push(...e.bindings);
  });
  profiles.forEach((p, pi) => {
    const r = readySql(p, types);
    select.push(`count(*) FILTER (WHERE ${r.sql})::int AS p${pi}`);
    bindings.push(...r.bindings);
    p.rules.forEach((rule, ri) => {
      const s = ruleSql(rule, types);
      select.push(`count(*) FILTER (WHERE NOT ${s.sql})::int AS p${pi}_r${ri}`);
      bindings.push(...s.bindings);
    });
  });
  const { rows } = await readWithoutJit(knex, `SELECT ${select.join(', ')} FROM catalog_items WHERE ${scope.sql} GROUP BY 1`, [...bindings, ...scope.bindings]);
  const groups = new Map<string, GroupCounts>();
  const profileCounts = new Map<string, ProfileCounts>(
    profiles.map((p) => [p.id, { ready: 0, missing: Object.fromEntries(p.required_fields.map((f) => [f, 0])), failing: p.rules.map(() => 0) }]),
  );
  const fieldIndex = new Map(fields.map((f, i) => [f, i]));
  for (const row of rows as Array<Record<string, number | string>>) {
    const empty: Record<string, number> = {};
    fields.forEach((f, i) => (empty[f] = Number(row[`e${i}`])));
    groups.set(String(row.c), { items: Number(row.n), complete: Number(row.complete), empty });
    profiles.forEach((p, pi) => {
      const pc = profileCounts.get(p.id)!;
      pc.ready += Number(row[`p${pi}`]);
      for (const f of p.required_fields) if (fieldIndex.has(f)) pc.missing[f] += empty[f];
      p.rules.forEach((_, ri) => (pc.failing[ri] += Number(row[`p${pi}_r${ri}`])));
    });
  }
  return { groups, profiles: profileCounts };
}
