import type { Knex } from 'knex';
import type { EnrichmentResult } from '../../enrichment/types';
import { isUuid, newId } from '../../lib/ids';
import { ReviewActivity } from '../../models/review-activity';
import { StagedChange } from '../../models/staged-change';
import { businessKeyOf, ITEM_ID_KEY } from '../catalog/items-keys';
import { loadOwned } from '../access/ownership';
import type { Scope } from '../access/scope';

/**
 * Staged changes of enrichment jobs and the read side of review activities (decisions.md §4 "A
 * job is also an activity", §5 G16). A job with `catalog_id` stages each row's result as a change
 * on its activity, in the transaction that writes the row result, once per (activity_id,
 * row_index) — so activity retries never stage twice (architecture.md, Temporal rule 4).
 */

/** How many of the most frequent values per field a job receives as `known_values`. */
export const KNOWN_VALUES_PER_FIELD = 50;
/** Items sampled (newest first) when counting known values: bounds the cost on huge catalogs. */
export const KNOWN_VALUES_SAMPLE = 20_000;

/** Staged change statuses (decisions.md §5). */
export const STAGED_STATUSES = ['draft', 'pending', 'approved', 'rejected', 'partially_accepted', 'error'] as const;

/** Keys a result's `after_data` carries that are provenance, not item data. */
const PROVENANCE_KEYS = ['sources', 'source_explanations'];

/**
 * The values already present in a catalog per field (`EnrichOptions.known_values`): for each
 * named field, the {@link KNOWN_VALUES_PER_FIELD} most frequent string values (array elements
 * count one by one) over the {@link KNOWN_VALUES_SAMPLE} newest items; ties by value.
 * @returns field → values, fields without string values omitted
 */
export async function knownValues(knex: Knex | Knex.Transaction, catalogId: string, fields: string[]): Promise<Record<string, string[]>> {
  if (fields.length === 0) return {};
  const { rows } = await knex.raw(
    `WITH sample AS (
       SELECT data FROM catalog_items WHERE catalog_id = ? ORDER BY created_at DESC, id DESC LIMIT ?
     ), vals AS (
       SELECT e.key, x.v #>> '{}' AS val
       FROM sample s
       CROSS JOIN LATERAL jsonb_each(s.data) e
       CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE jsonb_build_array(e.value) END) x(v)
       WHERE e.key = ANY(?) AND jsonb_typeof(x.v) = 'string'
     ), counted AS (
       SELECT key, val, count(*) AS n FROM vals WHERE btrim(val) <> '' AND length(val) <= 200 GROUP BY key, val
     ), ranked AS (
       SELECT key, val, row_number() OVER (PARTITION BY key ORDER BY n DESC, val) AS rn FROM counted
     )
     SELECT key, val FROM ranked WHERE rn <= ? ORDER BY key, rn`,
    [catalogId, KNOWN_VALUES_SAMPLE, fields, KNOWN_VALUES_PER_FIELD],
  );
  const out: Record<string, string[]> = {};
  for (const r of rows as Array<{ key: string; val: string }>) (out[r.key] ??= []).push(r.val);
  return out;
}

/** What a job config says about its target catalog (set at job creation). */
export interface CatalogTarget {
  catalog_id: string;
  unique_id_field: string;
  grouped: boolean;
}

/** One row's result to stage ({@link stageRowResults}). */
export interface StagedRow {
  rowIndex: number;
  /** The row's input item as the job received it. */
  input: Record<string, unknown>;
  result: EnrichmentResult;
  /** The staged-change status ({@link stagedStatusFor} of ./enrichment-audit). */
  status: 'pending' | 'draft' | 'error';
}

/**
 * Stages the results of several rows of one job on its activity inside `trx` (the transaction
 * that writes the row results), set-based: one look-up of the matched catalog items, one
 * multi-row insert, and one read-back of rows staged before. Before-data: the catalog item
 * matched by `__catalog_item_id` in the input, else by the catalog's business key
 * (`unique_id_field`; decisions.md §3), else none (`is_new_item`). After-data: before-data
 * overlaid with the enriched data, without `sources` / `source_explanations` (those go to
 * `source_data` with `all_sources`, `category_id` and the taxonomy attributes). A row is staged
 * once per (activity_id, row_index): a retried write keeps the first staged change.
 * @returns row index → staged change id (the existing one when the row was already staged)
 */
export async function stageRowResults(
  trx: Knex.Transaction,
  job: { id: string; organization_id: string },
  target: CatalogTarget,
  rows: StagedRow[],
): Promise<Map<number, string>> {
  if (rows.length === 0) return new Map();
  const explicitIds = rows.map((r) => r.input[ITEM_ID_KEY]).filter((v): v is string => typeof v === 'string' && isUuid(v));
  const keys = rows.map((r) => businessKeyOf(r.input, target.unique_id_field)).filter((k): k is string => k !== null);
  type Item = { id: string; entity_type: string; business_key: string | null; data: Record<string, unknown> };
  const found: Item[] =
    explicitIds.length || keys.length
      ? await trx('catalog_items')
          .where({ catalog_id: target.catalog_id })
          .where((w) => w.whereIn('id', explicitIds).orWhereIn('business_key', keys))
          .select('id', 'entity_type', 'business_key', 'data')
      : [];
  const byId = new Map(found.map((i) => [i.id, i]));
  const byKey = new Map(found.filter((i) => i.business_key !== null).map((i) => [i.business_key as string, i]));
  const records = rows.map(({ rowIndex, input, result, status }) => {
    const explicitId = input[ITEM_ID_KEY];
    const key = businessKeyOf(input, target.unique_id_field);
    const item = (typeof explicitId === 'string' ? byId.get(explicitId) : undefined) ?? (key !== null ? byKey.get(key) : undefined);
    const enriched = Object.fromEntries(Object.entries(result.after_data).filter(([k]) => !PROVENANCE_KEYS.includes(k) && k !== ITEM_ID_KEY));
    const before = item?.data ?? {};
    const sourceData = {
      original_data: result.original_data,
      sources: result.after_data.sources ?? {},
      source_explanations: result.after_data.source_explanations ?? {},
      all_sources: result.all_sources,
      ...(result.category_id !== undefined ? { category_id: result.category_id } : {}),
      ...(result.taxonomy_attributes
        ? { taxonomy_attributes: result.taxonomy_attributes, taxonomy_attribute_sources: result.taxonomy_attribute_sources ?? {} }
        : {}),
      ...(result.error ? { error: result.error } : {}),
    };
    return {
      id: newId(),
      activity_id: job.id,
      organization_id: job.organization_id,
      catalog_id: target.catalog_id,
      catalog_item_id: item?.id ?? null,
      catalog_item_entity_type: item?.entity_type ?? (target.grouped ? 'variant' : 'product'),
      before_data: JSON.stringify(before),
      after_data: JSON.stringify({ ...before, ...enriched }),
      source_data: JSON.stringify(sourceData),
      is_new_item: !item,
      row_index: rowIndex,
      status,
      review_info: JSON.stringify(result.review_info ?? null),
    };
  });
  const inserted = await trx('staged_changes').insert(records).onConflict(['activity_id', 'row_index']).ignore().returning(['row_index', 'id']);
  const ids = new Map(inserted.map((r) => [r.row_index as number, r.id as string]));
  const missing = rows.map((r) => r.rowIndex).filter((i) => !ids.has(i));
  if (missing.length) {
    const existing = await StagedChange.query(trx).where({ activity_id: job.id }).whereIn('row_index', missing).select('row_index', 'id');
    for (const r of existing) ids.set(r.row_index, r.id);
  }
  return ids;
}

/**
 * Copies the staged changes of `rowIndexes` from one activity to another (resume / re-extract
 * carry earlier results), set-based, and points the new job's carried results at the copies.
 */
export async function copyStagedChanges(trx: Knex.Transaction, fromActivityId: string, toActivityId: string): Promise<void> {
  await trx.raw(
    `INSERT INTO staged_changes (id, activity_id, organization_id, catalog_id, catalog_item_id, catalog_item_entity_type,
       before_data, after_data, source_data, is_new_item, row_index, status, review_info)
     SELECT gen_random_uuid(), ?, s.organization_id, s.catalog_id, s.catalog_item_id, s.catalog_item_entity_type,
       s.before_data, s.after_data, s.source_data, s.is_new_item, s.row_index, s.status, s.review_info
     FROM staged_changes s
     JOIN enrichment_rows r ON r.job_id = ? AND r.row_index = s.row_index AND r.carried_from_job_id = ?
     WHERE s.activity_id = ?
     ON CONFLICT (activity_id, row_index) DO NOTHING`,
    [toActivityId, toActivityId, fromActivityId, fromActivityId],
  );
  await trx.raw(
    `UPDATE enrichment_rows r SET result = jsonb_set(r.result, '{staged_change_id}', to_jsonb(s.id::text))
     FROM staged_changes s
     WHERE r.job_id = ? AND r.carried_from_job_id IS NOT NULL AND r.result IS NOT NULL
       AND s.activity_id = r.job_id AND s.row_index = r.row_index`,
    [toActivityId],
  );
}

/** A review activity with the number of its staged changes. */
export interface ActivityWithCount {
  activity: ReviewActivity;
  stagedCount: number;
}

/**
 * `GET /api/activities/{id}` (decisions.md §1, G16): the activity with its `staged_count`.
 * @throws NotFoundError `Activity not found` (404); ForbiddenError (403)
 */
export async function getActivity(knex: Knex, scope: Scope, activityId: string): Promise<ActivityWithCount> {
  const activity = await loadOwned<ReviewActivity>(knex, ReviewActivity, activityId, scope, 'Activity not found');
  const stagedCount = await StagedChange.query(knex).where({ activity_id: activityId }).resultSize();
  return { activity, stagedCount };
}

/** One page of an activity's staged changes (G16). */
export interface StagedChangePage {
  items: StagedChange[];
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
}

/** Query of the staged-changes list (G16). */
export interface StagedChangesQuery {
  page: number;
  page_size: number;
  status?: string;
  search_query?: string;
}

/**
 * `GET /api/activities/{id}/staged-changes` (decisions.md §5, G16): staged changes in row order,
 * filtered by `status` and by `search_query` (case-insensitive substring of the before/after
 * data), paginated: `{items, total, page, page_size, total_pages}`.
 * @throws NotFoundError (404) / ForbiddenError (403) for the activity
 */
export async function listStagedChanges(knex: Knex, scope: Scope, activityId: string, q: StagedChangesQuery): Promise<StagedChangePage> {
  await loadOwned<ReviewActivity>(knex, ReviewActivity, activityId, scope, 'Activity not found');
  const base = StagedChange.query(knex)
    .where({ activity_id: activityId })
    .modify((b) => {
      if (q.status) b.where({ status: q.status });
      if (q.search_query) {
        const like = `%${q.search_query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        b.where((w) => w.whereRaw('after_data::text ILIKE ?', [like]).orWhereRaw('before_data::text ILIKE ?', [like]));
      }
    });
  const total = await base.clone().resultSize();
  const items = await base
    .clone()
    .orderBy([{ column: 'row_index' }, { column: 'id' }])
    .offset((q.page - 1) * q.page_size)
    .limit(q.page_size);
  return { items, total, page: q.page, page_size: q.page_size, total_pages: Math.ceil(total / q.page_size) };
}

/** Per-field completion of an activity's staged changes. */
export interface FieldStats {
  completed: number;
  total: number;
  /** completed / total, rounded to 4 decimals; 0 without changes. */
  completion_rate: number;
  changed: number;
}

/** Counts by status, per-field completion and taxonomy categories of an activity's staged changes. */
export interface StagedChangesSummary {
  total_changes: number;
  by_status: Record<string, number>;
  field_stats: Record<string, FieldStats>;
  taxonomy_stats: { with_category: number; categories: Record<string, number> };
}

/**
 * `GET /api/activities/{id}/staged-changes/summary` (decisions.md §5, G16): `{total_changes,
 * by_status, field_stats: {field: {completed, total, completion_rate, changed}}, taxonomy_stats:
 * {with_category, categories: {category_id: count}}}`. `completed` counts changes whose after
 * data has a non-empty value for the field; `changed` those where it differs from before.
 * @throws NotFoundError (404) / ForbiddenError (403) for the activity
 */
export async function stagedChangesSummary(knex: Knex, scope: Scope, activityId: string): Promise<StagedChangesSummary> {
  await loadOwned<ReviewActivity>(knex, ReviewActivity, activityId, scope, 'Activity not found');
  const byStatus = (await knex('staged_changes').where({ activity_id: activityId }).groupBy('status').select('status').count({ n: '*' })) as unknown as Array<{
    status: string;
    n: string;
  }>;
  const total = byStatus.reduce((s, r) => s + Number(r.n), 0);
  const { rows: fields } = await knex.raw(
    `SELECT e.key AS field,
       count(*) FILTER (WHERE e.value <> 'null'::jsonb AND e.value <> '""'::jsonb AND e.value <> '[]'::jsonb) AS completed,
       count(*) FILTER (WHERE e.value IS DISTINCT FROM s.before_data -> e.key) AS changed
     FROM staged_changes s CROSS JOIN LATERAL jsonb_each(s.after_data) e
     WHERE s.activity_id = ? GROUP BY e.key ORDER BY e.key`,
    [activityId],
  );
  const { rows: cats } = await knex.raw(
    `SELECT source_data ->> 'category_id' AS category_id, count(*) AS n FROM staged_changes
     WHERE activity_id = ? AND source_data ->> 'category_id' IS NOT NULL GROUP BY 1 ORDER BY 1`,
    [activityId],
  );
  const fieldStats: Record<string, FieldStats> = {};
  for (const f of fields as Array<{ field: string; completed: string; changed: string }>) {
    const completed = Number(f.completed);
    fieldStats[f.field] = { completed, total, completion_rate: total ? Number((completed / total).toFixed(4)) : 0, changed: Number(f.changed) };
  }
  const categories: Record<string, number> = {};
  for (const c of cats as Array<{ category_id: string; n: string }>) categories[c.category_id] = Number(c.n);
  return {
    total_changes: total,
    by_status: Object.fromEntries(byStatus.map((r) => [r.status as string, Number(r.n)])),
    field_stats: fieldStats,
    taxonomy_stats: { with_category: Object.values(categories).reduce((s, n) => s + n, 0), categories },
  };
}
