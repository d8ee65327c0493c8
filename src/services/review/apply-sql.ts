/**
 * The set-based statements of an apply (docs/api-review.md "Apply"), run by
 * src/services/review/apply.ts inside its one transaction. Raw SQL by design (docs/architecture.md
 * rule 3: set-based work): 100,000 approved updates are one `UPDATE … FROM`, not a loop.
 *
 * The changes to apply are first materialised into a temporary table (`review_apply_changes`,
 * dropped at commit or rollback) with what every later statement needs:
 * - `patch`: the fields of `after_data` to write: those whose value differs from `before_data`
 *   (a change computed from an older copy of the item does not revert fields it did not
 *   change), restricted to `accepted_fields` when set (partially accepted), never a system key
 *   (`__catalog_item_id`, `__entity_type`, …: docs/api-reference.md "Bulk writes", snapshot-row system columns);
 * - `removals`: keys present in `before_data` but absent from `after_data` (a cleared field, in
 *   both the full-row and the changed-fields-only shapes of docs/tool-server-design.md "Staging"), same filters;
 * - `is_delete`: `is_delete`, or an empty `after_data` with a `catalog_item_id`.
 * Each statement then removes from the table the changes it settled otherwise (conflicts,
 * missing items, failed creates), so what is left at the end is what was applied.
 */
import type { ApplyFailure } from '../../models/review-activity';
import type { Knex } from 'knex';
import { searchTextOf, searchWordsOf } from '../catalog/items/items-keys';
import { markWordsPending } from '../catalog/search/search-words';

/** Name of the per-transaction table of changes to apply. */
const CHANGES = 'review_apply_changes';

/** SQL of the business key of a JSON value (the rule of items-keys.ts `businessKeyOf`). */
function businessKeySql(value: string): string {
  return `CASE jsonb_typeof(${value}) WHEN 'number' THEN ${value} #>> '{}'
            WHEN 'string' THEN CASE WHEN btrim(${value} #>> '{}') <> '' THEN ${value} #>> '{}' END END`;
}

/**
 * Fills the temporary table with the activity's approved and partially accepted changes not
 * applied yet (see the module comment).
 * @returns the number of changes to apply
 */
export async function collectChanges(trx: Knex.Transaction, activityId: string): Promise<number> {
  await trx.raw(`DROP TABLE IF EXISTS ${CHANGES}`);
  const created = await trx.raw(
    `CREATE TEMP TABLE ${CHANGES} ON COMMIT DROP AS
     SELECT s.id AS sid, s.catalog_item_id AS item_id, s.row_index, s.base_version,
       (s.is_new_item OR s.catalog_item_id IS NULL) AS is_create,
       (s.catalog_item_id IS NOT NULL AND NOT s.is_new_item AND (s.is_delete OR s.after_data = '{}'::jsonb)) AS is_delete,
       COALESCE((SELECT jsonb_object_agg(a.key, a.value) FROM jsonb_each(s.after_data) a
                 WHERE left(a.key, 2) <> '__' AND (s.accepted_fields IS NULL OR a.key = ANY(s.accepted_fields))
                   AND s.before_data -> a.key IS DISTINCT FROM a.value), '{}'::jsonb) AS patch,
       COALESCE((SELECT array_agg(b.key) FROM jsonb_object_keys(s.before_data) b(key)
                 WHERE left(b.key, 2) <> '__' AND NOT jsonb_exists(s.after_data, b.key)
                   AND (s.accepted_fields IS NULL OR b.key = ANY(s.accepted_fields))), '{}'::text[]) AS removals
     FROM staged_changes s
     WHERE s.activity_id = ? AND s.status IN ('approved', 'partially_accepted') AND s.applied_at IS NULL`,
    [activityId],
  );
  await trx.raw(`CREATE INDEX ON ${CHANGES} (sid)`);
  await trx.raw(`ANALYZE ${CHANGES}`);
  return created.rowCount as number;
}

/**
 * Optimistic concurrency (docs/api-review.md "Conflicts"): a change of an existing item whose
 * `base_version` differs from the item's `current_version` becomes `conflict`, with the item's
 * data and version as found; it is not applied.
 * @returns the number of conflicts
 */
export async function markConflicts(trx: Knex.Transaction, catalogId: string): Promise<number> {
  const { rowCount } = await trx.raw(
    `WITH x AS (
       UPDATE staged_changes s SET status = 'conflict', conflict_data = ci.data, conflict_version = ci.current_version, updated_at = now()
       FROM ${CHANGES} c JOIN catalog_items ci ON ci.id = c.item_id AND ci.catalog_id = ?
       WHERE s.id = c.sid AND NOT c.is_create AND c.base_version IS NOT NULL AND c.base_version <> ci.current_version
       RETURNING s.id)
     DELETE FROM ${CHANGES} c USING x WHERE c.sid = x.id`,
    [catalogId],
  );
  return rowCount as number;
}

/** SQL tail of the statements that turn changes into `error`: drops them from the table, returns them as {@link ApplyFailure}s. */
const FAILED_TAIL = `DELETE FROM ${CHANGES} c USING x WHERE c.sid = x.id RETURNING x.id AS change_id, x.row_index, x.error_reason AS reason`;

/**
 * Changes of an item that no longer exists in the catalog become `error` with a reason.
 * @returns those changes
 */
export async function markMissingItems(trx: Knex.Transaction, catalogId: string): Promise<ApplyFailure[]> {
  const { rows } = await trx.raw(
    `WITH x AS (
       UPDATE staged_changes s SET status = 'error', error_reason = 'The catalog item no longer exists', updated_at = now()
       FROM ${CHANGES} c
       WHERE s.id = c.sid AND NOT c.is_create
         AND NOT EXISTS (SELECT 1 FROM catalog_items ci WHERE ci.id = c.item_id AND ci.catalog_id = ?)
       RETURNING s.id, s.row_index, s.error_reason)
     ${FAILED_TAIL}`,
    [catalogId],
  );
  return rows as ApplyFailure[];
}

/**
 * The JSON types each field of a catalog schema admits (`properties.<field>.type`, a name or a
 * list; fields without a `type` are left out): what {@link markTypeErrors} checks.
 */
export function fieldTypes(schemaDefinition: { properties?: Record<string, { type?: unknown }> }): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [field, p] of Object.entries(schemaDefinition.properties ?? {})) {
    const t = p?.type;
    const types = (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === 'string');
    if (types.length) out[field] = types;
  }
  return out;
}

/**
 * Apply never writes a value that fails its field's type (JSON Schema 2020-12
 * Validation §6.1.1 `type`: `integer` is a number without a fractional part, `number` admits
 * integers), whatever the catalog's `strict_mode`: a change that would write one (an update's
 * written fields; a create's whole data) becomes `error` with the fields, the types expected and
 * the types found, and is not applied; the others still are. `types` is {@link fieldTypes} of the
 * catalog's current schema; fields it does not name are not checked here.
 * @returns those changes
 */
export async function markTypeErrors(trx: Knex.Transaction, types: Record<string, string[]>): Promise<ApplyFailure[]> {
  if (Object.keys(types).length === 0) return [];
  const { rows } = await trx.raw(
    `WITH t AS (SELECT key AS field, value AS types FROM jsonb_each(?::jsonb)),
     bad AS (
       SELECT c.sid, 'Not applied: ' || string_agg(format('%s must be %s, not %s %s', e.key,
                array_to_string(ARRAY(SELECT jsonb_array_elements_text(t.types)), ' or '), jsonb_typeof(e.value), left(e.value::text, 80)), '; ' ORDER BY e.key) AS reason
       FROM ${CHANGES} c JOIN staged_changes s ON s.id = c.sid
       CROSS JOIN LATERAL jsonb_each(CASE WHEN c.is_create THEN (s.before_data - c.removals) || c.patch ELSE c.patch END) e
       JOIN t ON t.field = e.key
       WHERE NOT c.is_delete
         AND NOT (t.types \\? jsonb_typeof(e.value)
                  OR CASE WHEN jsonb_typeof(e.value) = 'number' AND t.types \\? 'integer' THEN (e.value::text)::numeric = trunc((e.value::text)::numeric) ELSE false END)
       GROUP BY c.sid),
     x AS (
       UPDATE staged_changes s SET status = 'error', error_reason = bad.reason, updated_at = now()
       FROM bad WHERE s.id = bad.sid
       RETURNING s.id, s.row_index, s.error_reason)
     ${FAILED_TAIL}`,
    [JSON.stringify(types)],
  );
  return rows as ApplyFailure[];
}

/**
 * Applies every update in ONE `UPDATE … FROM`: `data` = stored data without `removals`, merged
 * with `patch`; `current_version` + 1; `updated_at` now; `business_key` recomputed when the
 * catalog's `unique_id_field` changed. The search columns are supplied as the item write path
 * supplies them (items-write-plan.ts: `searchTextOf` and `searchWordsOf` in Node, the SQL
 * function `catalog_item_search_tsv` for non-ASCII text), with the row triggers skipped
 * (`catalog_items.search_columns_supplied`): the merged data is read once, its search text and
 * words computed here, and sent back with the statement (measured on 100,000 updates: the SQL
 * functions took about 7 of 11 s). Changes that change nothing (no patch, no removal) leave the
 * item untouched. Marks the changes applied.
 *
 * With `deferWords` (large applies) the word index is left behind as a large restore leaves it
 * (src/services/catalog/search/search-words.ts): the new vector goes to `search_tsv_pending`, the
 * indexed `search_tsv` stays, `catalogs.search_words_pending` is set in this transaction, so
 * the update changes no indexed column and stays on its page (HOT: no index entries), and
 * searches stay exact meanwhile; the apply workflow then catches the index up.
 * @returns items updated
 */
export async function applyUpdates(trx: Knex.Transaction, catalogId: string, uniqueIdField: string, deferWords: boolean): Promise<number> {
  const { rows: merged } = await trx.raw(
    `SELECT c.sid, (ci.data - c.removals) || c.patch AS data
     FROM ${CHANGES} c JOIN catalog_items ci ON ci.id = c.item_id AND ci.catalog_id = ?
     WHERE NOT c.is_create AND NOT c.is_delete AND (c.patch <> '{}'::jsonb OR cardinality(c.removals) > 0)`,
    [catalogId],
  );
  const search = (merged as Array<{ sid: string; data: unknown }>).map((r) => {
    const text = searchTextOf(r.data);
    return { sid: r.sid, text, words: searchWordsOf(text) };
  });
  await trx.raw('SET LOCAL catalog_items.search_columns_supplied = on');
  const { rows } = await trx.raw(
    `WITH n AS (
       SELECT c.sid, c.item_id, m.data, x.text,
         CASE WHEN x.words IS NULL THEN catalog_item_search_tsv(x.text) ELSE array_to_tsvector(x.words) END AS tsv,
         jsonb_exists(c.patch, k.field) OR k.field = ANY(c.removals) AS key_changed, ${businessKeySql('m.data -> k.field')} AS business_key
       FROM jsonb_to_recordset(?::jsonb) AS x(sid uuid, text text, words text[])
       JOIN ${CHANGES} c ON c.sid = x.sid
       CROSS JOIN (SELECT ?::text AS field) k
       JOIN catalog_items ci ON ci.id = c.item_id AND ci.catalog_id = ?
       CROSS JOIN LATERAL (SELECT (ci.data - c.removals) || c.patch AS data) m),
     u AS (
       UPDATE catalog_items ci SET data = n.data, search_text = n.text,
         search_tsv = CASE WHEN ?::boolean THEN ci.search_tsv ELSE n.tsv END,
         search_tsv_pending = CASE WHEN ?::boolean AND n.tsv IS DISTINCT FROM ci.search_tsv THEN n.tsv END,
         current_version = ci.current_version + 1, updated_at = now(),
         business_key = CASE WHEN n.key_changed THEN n.business_key ELSE ci.business_key END
       FROM n
       WHERE ci.id = n.item_id AND ci.catalog_id = ?
       RETURNING n.sid),
     m AS (UPDATE staged_changes s SET applied_at = now(), updated_at = now() FROM u WHERE s.id = u.sid RETURNING s.id)
     SELECT count(*)::int AS n FROM m`,
    [JSON.stringify(search), uniqueIdField, catalogId, deferWords, deferWords, catalogId],
  );
  await trx.raw('SET LOCAL catalog_items.search_columns_supplied = DEFAULT');
  const updated = rows[0].n as number;
  if (deferWords && updated > 0) await markWordsPending(trx, catalogId);
  // No-op changes (nothing differs) are applied by definition.
  await trx.raw(
    `UPDATE staged_changes s SET applied_at = now(), updated_at = now() FROM ${CHANGES} c
     WHERE s.id = c.sid AND NOT c.is_create AND NOT c.is_delete AND c.patch = '{}'::jsonb AND cardinality(c.removals) = 0`,
  );
  return updated;
}

/** Updates among the changes to apply (they decide whether the word index is deferred). */
export async function countUpdates(trx: Knex.Transaction): Promise<number> {
  const { rows } = await trx.raw(`SELECT count(*)::int AS n FROM ${CHANGES} WHERE NOT is_create AND NOT is_delete`);
  return rows[0].n as number;
}

/**
 * Deletes the items of every delete change, a product with its variants (as `deleteItem`), in
 * one statement; `catalogs.item_count` drops by the rows removed. Marks the changes applied.
 * @returns rows removed (variants included)
 */
export async function applyDeletes(trx: Knex.Transaction, catalogId: string): Promise<number> {
  const { rowCount } = await trx.raw(
    `DELETE FROM catalog_items ci
     WHERE ci.catalog_id = ? AND (ci.id IN (SELECT item_id FROM ${CHANGES} WHERE is_delete)
                                  OR ci.parent_id IN (SELECT item_id FROM ${CHANGES} WHERE is_delete))`,
    [catalogId],
  );
  if (rowCount > 0) await trx('catalogs').where('id', catalogId).decrement('item_count', rowCount);
  await trx.raw(`UPDATE staged_changes s SET applied_at = now(), updated_at = now() FROM ${CHANGES} c WHERE s.id = c.sid AND c.is_delete`);
  return rowCount as number;
}

/** One create to write through the catalog's item write path. */
export interface CreateRow {
  sid: string;
  row_index: number;
  before_data: Record<string, unknown>;
  after_data: Record<string, unknown>;
  accepted_fields: string[] | null;
}

/** The creates (new items, or changes without an item id), in row order. */
export async function loadCreates(trx: Knex.Transaction): Promise<CreateRow[]> {
  const { rows } = await trx.raw(
    `SELECT c.sid, c.row_index, s.before_data, s.after_data, s.accepted_fields FROM ${CHANGES} c JOIN staged_changes s ON s.id = c.sid
     WHERE c.is_create ORDER BY c.row_index`,
  );
  return rows as CreateRow[];
}

/**
 * Records the outcome of the creates: written ones are applied (and point at the item written),
 * failed ones become `error` with the write path's reason and leave the set of applied changes.
 * @returns the failed ones
 */
export async function recordCreates(
  trx: Knex.Transaction,
  written: Array<{ sid: string; item_id: string }>,
  failed: Array<{ sid: string; reason: string }>,
): Promise<ApplyFailure[]> {
  if (written.length)
    await trx.raw(
      `UPDATE staged_changes s SET applied_at = now(), updated_at = now(), catalog_item_id = x.item_id
       FROM jsonb_to_recordset(?::jsonb) AS x(sid uuid, item_id uuid) WHERE s.id = x.sid`,
      [JSON.stringify(written)],
    );
  if (failed.length === 0) return [];
  const { rows } = await trx.raw(
    `WITH x AS (
       UPDATE staged_changes s SET status = 'error', error_reason = f.reason, updated_at = now()
       FROM jsonb_to_recordset(?::jsonb) AS f(sid uuid, reason text) WHERE s.id = f.sid RETURNING s.id, s.row_index, s.error_reason)
     ${FAILED_TAIL}`,
    [JSON.stringify(failed)],
  );
  return rows as ApplyFailure[];
}

/**
 * Changes left unapplied after every step (a second change of an item already updated by this
 * apply: one `UPDATE … FROM` writes a row once) become `error` with a reason.
 * @returns those changes
 */
export async function markLeftovers(trx: Knex.Transaction): Promise<ApplyFailure[]> {
  const { rows } = await trx.raw(
    `WITH x AS (
       UPDATE staged_changes s SET status = 'error', error_reason = 'Not applied: another approved change of the same item was applied', updated_at = now()
       FROM ${CHANGES} c WHERE s.id = c.sid AND s.applied_at IS NULL RETURNING s.id, s.row_index, s.error_reason)
     ${FAILED_TAIL}`,
  );
  return rows as ApplyFailure[];
}

/** Changes still in the table: those applied. */
export async function countApplied(trx: Knex.Transaction): Promise<number> {
  const { rows } = await trx.raw(`SELECT count(*)::int AS n FROM ${CHANGES}`);
  return rows[0].n as number;
}
