import type { Knex } from 'knex';
import { mergeValues, present } from '../../../enrichment/semantics';
import { identityKeys, isSourced } from '../../../enrichment/semantics/refresh';
import type { EnrichmentResult, ReviewInfo } from '../../../enrichment/types';
import { isUuid, newId } from '../../../lib/ids';
import { StagedChange } from '../../../models/staged-change';
import { businessKeyOf, ITEM_ID_KEY, itemsByIdOrKey } from '../../catalog/items/items-keys';
import { getCurrentSchema } from '../../catalog/schema/schema';
import { typedBySchema } from '../../sheets/items-from-rows';
import { categoryItemFields } from './staging-category';

/**
 * Staged changes of enrichment jobs (docs/api-enrichment.md "Enrichment jobs"): a job with
 * `catalog_id` stages each row's result as a change on its activity, in the transaction that
 * writes the row result, once per (activity_id, row_index) — so activity retries never stage
 * twice (docs/workflows.md "Rules of the craft"). Reading and reviewing activities is
 * src/services/review/.
 */

/** How many of the most frequent values per field a job receives as `known_values`. */
export const KNOWN_VALUES_PER_FIELD = 50;
/** Items sampled (newest first) when counting known values: bounds the cost on huge catalogs. */
export const KNOWN_VALUES_SAMPLE = 20_000;

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

/** The provenance columns of a staged change made from an enrichment result ({@link stagedProvenance}). */
export interface StagedProvenance {
  /**
   * `{original_data, sources, source_explanations, all_sources}` plus `category_id`, the
   * taxonomy attributes with their sources, and `error`, where the result has them.
   */
  source_data: Record<string, unknown>;
  /** The result's `review_info` (confidence per field, methods, issues, flags, audit), null when it has none. */
  review_info: ReviewInfo | null;
}

/**
 * The one shape every staged change made from an enrichment result has, whatever staged it (an
 * enrichment job, src/services/enrichment/rows/row-results.ts; a flow's enrich → stage nodes,
 * src/services/flows/nodes/stage.ts): sources, explanations and review info as the engine
 * produced them (docs/api-enrichment.md "Sources and citations"). `result.after_data` needs only its `sources` and
 * `source_explanations` here (a flow row carries the result without its data).
 */
export function stagedProvenance(result: Pick<EnrichmentResult, 'after_data' | 'original_data' | 'all_sources'> & Partial<EnrichmentResult>): StagedProvenance {
  return {
    source_data: {
      original_data: result.original_data ?? {},
      sources: result.after_data?.sources ?? {},
      source_explanations: result.after_data?.source_explanations ?? {},
      all_sources: result.all_sources ?? [],
      ...(result.category_id !== undefined ? { category_id: result.category_id } : {}),
      ...(result.taxonomy_attributes
        ? { taxonomy_attributes: result.taxonomy_attributes, taxonomy_attribute_sources: result.taxonomy_attribute_sources ?? {} }
        : {}),
      ...(result.error ? { error: result.error } : {}),
    },
    review_info: result.review_info ?? null,
  };
}

/**
 * A client's `source_data` in the shape staged changes share ({@link stagedProvenance}): a flat
 * map of field → list of source URLs (what flows used to stage, and what some clients send) is
 * put under `sources`; anything else (already shaped, or not a map of URL lists) is kept as
 * sent, `{}` when absent.
 */
export function sourceDataShape(sourceData: Record<string, unknown> | null | undefined): Record<string, unknown> {
  if (!sourceData) return {};
  const entries = Object.values(sourceData);
  const flat =
    !('sources' in sourceData) && entries.length > 0 && entries.every((v) => Array.isArray(v) && v.length > 0 && v.every((u) => typeof u === 'string'));
  return flat ? { sources: sourceData } : sourceData;
}

/**
 * What an enrichment result changes on a catalog item (`before`, `{}` for a new item): the
 * result's data (without provenance and `__catalog_item_id`) over `before`, except
 * - identity fields (name, brand, GTIN, MPN, SKU; `identityKeys`) that research did not source
 *   (no source, or only `INPUT:*`): they identified the product and keep the item's value (docs/api-enrichment.md "Refresh and merge");
 * - `mergeFields` the item has a value for: combined with it (`mergeValues`: lists unioned,
 *   objects by key, scalars kept), since the job's input may not have carried the item's value;
 * then typed by the catalog schema's `properties` with the import's rules
 * (src/services/sheets/items-from-rows.ts `typedBySchema`).
 * @returns the after-data and the values that could not be typed (the change is then `error`)
 */
export function enrichedAfterData(
  result: EnrichmentResult,
  before: Record<string, unknown>,
  properties: Record<string, { type?: unknown }>,
  mergeFields: ReadonlySet<string>,
): { after: Record<string, unknown>; problems: string[] } {
  const sources = result.after_data.sources ?? {};
  const enriched = Object.fromEntries(Object.entries(result.after_data).filter(([k]) => !PROVENANCE_KEYS.includes(k) && k !== ITEM_ID_KEY));
  for (const key of identityKeys(enriched)) if (present(before[key]) && !isSourced(sources[key])) delete enriched[key];
  for (const key of mergeFields) if (key in enriched && present(before[key])) enriched[key] = mergeValues(before[key], enriched[key]);
  const typed = typedBySchema(enriched, properties);
  return { after: { ...before, ...typed.data }, problems: typed.problems };
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
 * (`unique_id_field`; docs/api-reference.md "Items"), else none (`is_new_item`). After-data:
 * {@link enrichedAfterData} under the catalog's current schema (a value that cannot be typed
 * makes the change `error` with the reason), with the predicted `category_id` and taxonomy
 * attribute values as item fields (./staging-category.ts); provenance: {@link stagedProvenance}. `base_version`:
 * the matched item's `current_version` (docs/api-review.md "Conflicts"). A row is staged
 * once per (activity_id, row_index): a retried write keeps the first staged change.
 * @returns row index → staged change id (the existing one when the row was already staged)
 */
export async function stageRowResults(
  trx: Knex.Transaction,
  job: { id: string; organization_id: string },
  target: CatalogTarget,
  rows: StagedRow[],
  mergeFields: ReadonlySet<string> = new Set(),
): Promise<Map<number, string>> {
  if (rows.length === 0) return new Map();
  const properties = (await getCurrentSchema(trx, target.catalog_id)).schema_definition.properties ?? {};
  const explicitIds = rows.map((r) => r.input[ITEM_ID_KEY]).filter((v): v is string => typeof v === 'string' && isUuid(v));
  const keys = rows.map((r) => businessKeyOf(r.input, target.unique_id_field)).filter((k): k is string => k !== null);
  type Item = { id: string; entity_type: string; business_key: string | null; data: Record<string, unknown>; current_version: number };
  const where = itemsByIdOrKey(target.catalog_id, explicitIds, keys);
  const found: Item[] =
    explicitIds.length || keys.length
      ? (await trx.raw(`SELECT id, entity_type, business_key, data, current_version FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows
      : [];
  const byId = new Map(found.map((i) => [i.id, i]));
  const byKey = new Map(found.filter((i) => i.business_key !== null).map((i) => [i.business_key as string, i]));
  const records = rows.map(({ rowIndex, input, result, status }) => {
    const explicitId = input[ITEM_ID_KEY];
    const key = businessKeyOf(input, target.unique_id_field);
    const item = (typeof explicitId === 'string' ? byId.get(explicitId) : undefined) ?? (key !== null ? byKey.get(key) : undefined);
    const before = item?.data ?? {};
    const { after, problems } = enrichedAfterData(result, before, properties, mergeFields);
    const { source_data, review_info } = stagedProvenance(result);
    const reason = [...(result.error ? [result.error] : []), ...problems].join('; ');
    return {
      id: newId(),
      activity_id: job.id,
      organization_id: job.organization_id,
      catalog_id: target.catalog_id,
      catalog_item_id: item?.id ?? null,
      catalog_item_entity_type: item?.entity_type ?? (target.grouped ? 'variant' : 'product'),
      before_data: JSON.stringify(before),
      after_data: JSON.stringify({ ...after, ...categoryItemFields(result) }),
      source_data: JSON.stringify(source_data),
      is_new_item: !item,
      row_index: rowIndex,
      status: problems.length ? 'error' : status,
      error_reason: reason ? reason.slice(0, 4000) : null,
      review_info: JSON.stringify(review_info),
      // docs/api-review.md "Conflicts": the version the change was computed from; apply compares it.
      base_version: item?.current_version ?? null,
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
       before_data, after_data, source_data, is_new_item, row_index, status, review_info, base_version)
     SELECT gen_random_uuid(), ?, s.organization_id, s.catalog_id, s.catalog_item_id, s.catalog_item_entity_type,
       s.before_data, s.after_data, s.source_data, s.is_new_item, s.row_index, s.status, s.review_info, s.base_version
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
