import type { Knex } from 'knex';
import type { OutputField } from '../../../enrichment/types';

/**
 * Output fields marked `unique` (docs/api-enrichment.md "Enrichment jobs": inferred
 * web-enrichment fields carry `unique`): values repeated across one job's results are flagged
 * for review, never changed. Runs when the job finishes (./progress.ts `finalizeJob`), over all
 * its succeeded rows (carried ones included), set-based.
 */

/** The flag a result carries when one of its `unique` fields repeats another row's value. */
export const DUPLICATE_FLAG = 'duplicate_value';

/** The names of a job's `unique` output fields (attribute sets included). */
export function uniqueFieldsOf(config: { output_schema?: unknown; attribute_sets?: unknown } | null | undefined): string[] {
  const sets = Object.values((config?.attribute_sets ?? {}) as Record<string, unknown>).flatMap((e) =>
    Array.isArray(e) ? e : ((e as { attributes?: unknown[] })?.attributes ?? []),
  ) as OutputField[];
  const fields = [...((config?.output_schema ?? []) as OutputField[]), ...sets];
  return [...new Set(fields.filter((f) => f?.unique === true).map((f) => f.name))];
}

/**
 * Flags every succeeded row of `jobId` whose value of one of `fields` equals another row's
 * (text compared trimmed and case-folded, other values as JSON): `review_info.flags` gains
 * {@link DUPLICATE_FLAG} and `review_info.field_issues` one `{field, message: "Same value as
 * row(s) 3, 7 of this job (the field is unique)."}` per field, on the row's result and on its
 * staged change (same `row_index` on the job's activity). One statement; idempotent (rows
 * already flagged are left out).
 * @returns how many rows were flagged
 */
export async function flagDuplicateValues(knex: Knex | Knex.Transaction, jobId: string, fields: string[]): Promise<number> {
  if (fields.length === 0) return 0;
  const { rows } = await knex.raw(
    `WITH vals AS (
       SELECT r.row_index, f.name AS field,
         CASE WHEN jsonb_typeof(r.result->'after_data'->f.name) = 'string' THEN lower(btrim(r.result->'after_data'->>f.name))
              ELSE (r.result->'after_data'->f.name)::text END AS v
       FROM enrichment_rows r CROSS JOIN unnest(?::text[]) AS f(name)
       WHERE r.job_id = ? AND r.status = 'succeeded' AND jsonb_typeof(r.result->'review_info') = 'object'
         AND jsonb_typeof(r.result->'after_data'->f.name) NOT IN ('null')
         AND NOT coalesce(r.result->'review_info'->'flags', '[]'::jsonb) @> jsonb_build_array(?::text)
     ), dups AS (
       SELECT field, array_agg(row_index ORDER BY row_index) AS rows FROM vals WHERE v NOT IN ('', '[]', '{}') GROUP BY field, v HAVING count(*) > 1
     ), issues AS (
       SELECT x.row_index, jsonb_agg(jsonb_build_object('field', d.field, 'message',
           'Same value as row(s) ' || array_to_string(array_remove(d.rows, x.row_index), ', ') || ' of this job (the field is unique).') ORDER BY d.field) AS list
       FROM dups d CROSS JOIN unnest(d.rows) AS x(row_index) GROUP BY x.row_index
     ), flagged AS (
       UPDATE enrichment_rows r
       SET result = jsonb_set(jsonb_set(r.result, '{review_info,flags}', coalesce(r.result->'review_info'->'flags', '[]'::jsonb) || to_jsonb(?::text)),
         '{review_info,field_issues}', coalesce(r.result->'review_info'->'field_issues', '[]'::jsonb) || i.list)
       FROM issues i WHERE r.job_id = ? AND r.row_index = i.row_index
       RETURNING r.row_index, r.result->'review_info' AS review_info
     ), staged AS (
       UPDATE staged_changes s SET review_info = f.review_info, updated_at = now()
       FROM flagged f WHERE s.activity_id = ? AND s.row_index = f.row_index
       RETURNING s.id
     )
     SELECT count(*)::int AS n FROM flagged`,
    [fields, jobId, DUPLICATE_FLAG, DUPLICATE_FLAG, jobId, jobId],
  );
  return (rows as Array<{ n: number }>)[0]?.n ?? 0;
}
