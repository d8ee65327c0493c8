/**
 * Staging client-supplied changes on a review activity (docs/api-review.md "Activities": append;
 * docs/api-review.md "Appending staged changes"; docs/tool-server-design.md "Staging" for what the tool server sends). Set-based: per call one
 * look-up of the catalog items the changes name and one multi-row INSERT (through
 * `jsonb_to_recordset`, one bind parameter whatever the chunk size).
 *
 * Per change:
 * - snapshot-row system columns (`__catalog_item_id`, `__entity_type`, `__parent_id`,
 *   `__current_version`, docs/tool-server-design.md "Pull") are read from before/after data and never
 *   stored as data;
 * - a delete is `is_delete: true`, or an empty `after_data` with a `catalog_item_id`
 *   (docs/api-review.md "Staged changes");
 * - values of array/object fields of the catalog schema that arrive as JSON strings (the
 *   snapshot flattening) are parsed, and every value is typed by the catalog schema with the
 *   import's rules (src/services/sheets/items-from-rows.ts `typedBySchema`: `"7"` → 7 for a
 *   number field); a value that cannot be typed makes the change `error` with the reason;
 * - `source_data` takes the shape every staged change has (src/services/enrichment/rows/staging.ts
 *   `sourceDataShape`: a flat field → URL-list map goes under `sources`);
 * - the change is validated against the catalog's current schema: the item's data overlaid with
 *   `after_data` (new items: `after_data` alone), strictly (unknown fields refused) only in a
 *   `strict_mode` catalog. An invalid change, or one naming an item the catalog does not have,
 *   is stored with status `error` and an `error_reason`, never dropped;
 * - `base_version` (docs/api-review.md "Conflicts") = the change's own (`base_version`, else
 *   `__current_version` of its before/after row), else the item's `current_version` now.
 */
import type { Knex } from 'knex';
import type { BoundedCache } from '../../lib/bounded-cache';
import { ValidationDetail, ValidationError } from '../../lib/errors';
import { isUuid, newId } from '../../lib/ids';
import { Catalog } from '../../models/catalog';
import { CatalogSchema } from '../../models/catalog-schema';
import type { ReviewActivity } from '../../models/review-activity';
import type { StagedChangeInputT } from '../../schemas/review-activities';
import type { ItemValidator } from '../catalog/catalog-caches';
import { isGrouped, itemsByIdOrKey, SYSTEM_COLUMNS } from '../catalog/items/items-keys';
import { getCurrentSchema } from '../catalog/schema/schema';
import { itemValidator } from '../catalog/schema/schema-validation';
import { sourceDataShape } from '../enrichment/rows/staging';
import { typedBySchema } from '../sheets/items-from-rows';

/** Where the item validators are cached (the app's CatalogCaches.validators). */
export interface StageDeps {
  caches: { catalog: { validators: BoundedCache<ItemValidator> } };
}

/** What staging wrote: how many changes and from which row index on. */
export interface Staged {
  count: number;
  firstRowIndex: number;
  errors: number;
}

/** A catalog item as the staging look-up reads it. */
interface FoundItem {
  id: string;
  entity_type: string;
  current_version: number;
  data: Record<string, unknown>;
}

/** The kind of a schema property whose values may arrive JSON-encoded. */
type Container = 'array' | 'object';

/** Fields of a schema whose type is array or object (alone or with null). */
function containerFields(schema: CatalogSchema): Map<string, Container> {
  const out = new Map<string, Container>();
  for (const [name, p] of Object.entries(schema.schema_definition.properties ?? {})) {
    const types = Array.isArray(p.type) ? p.type : [p.type];
    if (types.includes('array')) out.set(name, 'array');
    else if (types.includes('object')) out.set(name, 'object');
  }
  return out;
}

/** `data` without the system columns, with JSON-string values of container fields parsed. */
function cleanData(data: Record<string, unknown> | null | undefined, containers: Map<string, Container>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data ?? {})) {
    if ((SYSTEM_COLUMNS as readonly string[]).includes(k)) continue;
    const kind = containers.get(k);
    if (kind && typeof v === 'string') {
      const t = v.trim();
      if ((kind === 'array' && t.startsWith('[')) || (kind === 'object' && t.startsWith('{'))) {
        try {
          out[k] = JSON.parse(t);
          continue;
        } catch {
          // Not JSON after all: kept as the string, so validation reports the field.
        }
      }
    }
    out[k] = v;
  }
  return out;
}

/** A system column of the change's rows (after first, then before), as a non-empty string. */
function systemValue(c: StagedChangeInputT, key: string): string | null {
  for (const row of [c.after_data, c.before_data]) {
    const v = row?.[key];
    if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') return String(v).trim();
  }
  return null;
}

/**
 * The row index of each change (staged changes keep the `row_index` they were sent
 * with): a given index is kept; the others follow the highest index of the activity and of the
 * chunk, in order. `next` is the first index after all of them.
 * @throws ValidationError (422) at `body.staged_changes.<i>.row_index` for an index given twice
 *   in the chunk or already staged on the activity (the `(activity_id, row_index)` key)
 */
async function assignRowIndexes(trx: Knex.Transaction, activityId: string, changes: StagedChangeInputT[]): Promise<{ of: number[]; next: number }> {
  const given = changes.map((c) => (typeof c.row_index === 'number' ? c.row_index : null));
  const wanted = given.filter((n): n is number => n !== null);
  const [{ max }] = (await trx('staged_changes').where({ activity_id: activityId }).max({ max: 'row_index' })) as Array<{ max: number | null }>;
  const taken = new Set<number>(
    wanted.length
      ? ((await trx('staged_changes')
          .where({ activity_id: activityId })
          .whereIn('row_index', [...new Set(wanted)])
          .pluck('row_index')) as number[])
      : [],
  );
  const details: ValidationDetail[] = [];
  const seen = new Set<number>();
  given.forEach((n, i) => {
    if (n === null) return;
    if (taken.has(n) || seen.has(n))
      details.push({ loc: ['body', 'staged_changes', i, 'row_index'], msg: `row_index ${n} is already staged on this activity`, type: 'value_error' });
    seen.add(n);
  });
  if (details.length) throw new ValidationError(details);
  let next = Math.max(max ?? -1, ...wanted) + 1;
  const of = given.map((n) => n ?? next++);
  return { of, next };
}

/** The validator for a catalog's current schema: strict in strict_mode, else unknown fields allowed (also the item page's edit check, ./item-edit.ts). */
export function validatorFor(deps: StageDeps, catalog: Catalog, schema: CatalogSchema): ItemValidator {
  if (catalog.strict_mode) return itemValidator(deps.caches.catalog.validators, schema);
  // The same version with unknown fields allowed, cached under its own key.
  const open = Object.assign(new CatalogSchema(), {
    id: `${schema.id}:open`,
    schema_definition: { ...schema.schema_definition, additionalProperties: schema.schema_definition.additionalProperties ?? true },
  });
  return itemValidator(deps.caches.catalog.validators, open);
}

/**
 * Stages `changes` on `activity` (which the caller has locked `FOR UPDATE` in `trx`, so row
 * indexes are handed out once): a change keeps the `row_index` it was sent with, the others are
 * numbered in the order given after the highest index of the activity and of the chunk. See the
 * file comment for the rules applied to each change.
 * @returns how many were staged (all of them), the lowest row index and how many are `error`
 * @throws ValidationError (422) for a `row_index` given twice or already staged on the activity;
 *   Error when the activity has no catalog (callers check first)
 */
export async function stageChanges(trx: Knex.Transaction, deps: StageDeps, activity: ReviewActivity, changes: StagedChangeInputT[]): Promise<Staged> {
  const rowIndexes = await assignRowIndexes(trx, activity.id, changes);
  if (changes.length === 0) return { count: 0, firstRowIndex: rowIndexes.next, errors: 0 };
  if (!activity.catalog_id) throw new Error('activity has no catalog');
  const catalog = await Catalog.query(trx).findById(activity.catalog_id).throwIfNotFound();
  const schema = await getCurrentSchema(trx, catalog.id);
  const containers = containerFields(schema);
  const validate = validatorFor(deps, catalog, schema);
  const defaultType = isGrouped(catalog) ? 'variant' : 'product';

  const itemIds = changes.map((c) => c.catalog_item_id ?? systemValue(c, '__catalog_item_id'));
  const lookup = [...new Set(itemIds.filter((id): id is string => typeof id === 'string' && isUuid(id)))];
  const where = itemsByIdOrKey(catalog.id, lookup, []);
  const found: FoundItem[] = lookup.length
    ? (await trx.raw(`SELECT id, entity_type, current_version, data FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows
    : [];
  const items = new Map(found.map((i) => [i.id, i]));

  let errors = 0;
  const records = changes.map((c, i) => {
    const rawId = itemIds[i];
    const itemId = rawId && rawId.trim() !== '' ? rawId.trim() : null;
    const item = itemId ? items.get(itemId) : undefined;
    const before = cleanData(c.before_data, containers);
    const typed = typedBySchema(cleanData(c.after_data, containers), schema.schema_definition.properties ?? {});
    const after = typed.data;
    const isDelete = c.is_delete === true || (itemId !== null && Object.keys(after).length === 0);
    const problems: string[] = isDelete ? [] : [...typed.problems];
    if (itemId !== null && !item) problems.push(`Unknown catalog_item_id ${JSON.stringify(itemId)} in this catalog`);
    else if (isDelete && itemId === null) problems.push('A delete needs a catalog_item_id');
    if (!isDelete && problems.length === 0) {
      for (const d of validate(item ? { ...item.data, ...after } : after)) problems.push(`${d.loc.join('.') || '(item)'}: ${d.msg}`);
    }
    if (problems.length) errors += 1;
    const ownVersion = c.base_version ?? Number.parseInt(systemValue(c, '__current_version') ?? '', 10);
    const baseVersion = Number.isInteger(ownVersion) ? ownVersion : (item?.current_version ?? null);
    return {
      id: newId(),
      catalog_item_id: item ? item.id : null,
      catalog_item_entity_type: (c.catalog_item_entity_type || systemValue(c, '__entity_type') || item?.entity_type || defaultType).slice(0, 16),
      before_data: before,
      after_data: isDelete ? {} : after,
      source_data: sourceDataShape(c.source_data),
      is_new_item: itemId === null ? (c.is_new_item ?? true) : false,
      is_delete: isDelete,
      row_index: rowIndexes.of[i],
      status: problems.length ? 'error' : (c.status ?? 'pending'),
      error_reason: problems.length ? problems.join('; ').slice(0, 4000) : null,
      review_info: c.review_info ?? null,
      base_version: baseVersion,
    };
  });
  await trx.raw(
    `INSERT INTO staged_changes (id, activity_id, organization_id, catalog_id, catalog_item_id, catalog_item_entity_type,
       before_data, after_data, source_data, is_new_item, is_delete, row_index, status, error_reason, review_info, base_version)
     SELECT x.id, ?, ?, ?, x.catalog_item_id, x.catalog_item_entity_type, x.before_data, x.after_data, x.source_data,
       x.is_new_item, x.is_delete, x.row_index, x.status, x.error_reason, x.review_info, x.base_version
     FROM jsonb_to_recordset(?::jsonb) AS x(id uuid, catalog_item_id uuid, catalog_item_entity_type text, before_data jsonb,
       after_data jsonb, source_data jsonb, is_new_item boolean, is_delete boolean, row_index int, status text,
       error_reason text, review_info jsonb, base_version int)`,
    [activity.id, activity.organization_id, catalog.id, JSON.stringify(records)],
  );
  return { count: records.length, firstRowIndex: Math.min(...rowIndexes.of), errors };
}
