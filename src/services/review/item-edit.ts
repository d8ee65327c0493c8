/**
 * An edit of one catalog item from the console's item page: the new values are
 * checked against the catalog's current schema first (a bad value is a 422 naming the field,
 * nothing is staged), then staged as a `custom_transform` review activity in `pending_review`
 * holding ONE staged change — so the edit is reviewed, applied by the durable apply
 * (`activity-apply-<id>`, ./apply.ts) after a `pre_apply` snapshot, and undoable like any change.
 * "Restore this version" of the item's history stages the old values the same way.
 */
import type { Knex } from 'knex';
import { ValidationError, type ValidationDetail } from '../../lib/errors';
import { Catalog } from '../../models/catalog';
import type { Scope } from '../access/scope';
import { actorId } from '../access/auth';
import { assertRole } from '../access/roles';
import { loadItem } from '../catalog/items/items-read';
import { getCurrentSchema } from '../catalog/schema/schema';
import { typedBySchema } from '../sheets/items-from-rows';
import { createReviewActivity, type CreatedReviewActivity, type ReviewDeps } from './review-activities';
import { validatorFor } from './stage-changes';

/** Longest message an edit's activity takes, in characters. */
const MAX_MESSAGE_CHARS = 500;

/** What an edit asks for. */
export interface ItemEditInput {
  /** Field → new value; `null` clears the field (it is removed from the item's data). */
  values: Record<string, unknown>;
  /** The activity's description (default: "Edit of <fields> on item <id>"). */
  message?: string | null;
  /** What the values restore (history's "restore this version"): kept in the change's review_info. */
  restored_from?: { kind: 'change' | 'snapshot'; id: string } | null;
}

/** Where a field's problem is reported: under `values.<field>` of the form. */
function detail(field: string, msg: string): ValidationDetail {
  return { loc: ['body', 'values', field], msg, type: 'value_error' };
}

/**
 * Stages an edit of item `itemId` (see the module comment). Values are typed by the schema with
 * the import's rules (`"7"` → 7 for a number field); the item's data with the edit must then pass
 * the catalog's schema (strictly, unknown fields refused, only in a `strict_mode` catalog).
 * Problems of fields the edit does not touch are not the edit's: they do not block it.
 * @returns the created activity, its staged count (1) and its review URL
 * @throws ValidationError (422) for no values, a value of the wrong type or one the schema
 *   refuses; NotFoundError (404) unknown catalog or item; ForbiddenError (403) another
 *   organization's
 */
export async function stageItemEdit(
  deps: ReviewDeps & { knex: Knex },
  scope: Scope,
  catalogId: string,
  itemId: string,
  input: ItemEditInput,
): Promise<CreatedReviewActivity> {
  assertRole(scope, 'editor');
  const item = await loadItem(deps.knex, scope, catalogId, itemId);
  const fields = Object.keys(input.values);
  if (fields.length === 0) throw new ValidationError([{ loc: ['body', 'values'], msg: 'Nothing to change', type: 'value_error' }]);
  const [catalog, schema] = await Promise.all([Catalog.query(deps.knex).findById(catalogId).throwIfNotFound(), getCurrentSchema(deps.knex, catalogId)]);
  const properties = schema.schema_definition.properties ?? {};
  const set = Object.fromEntries(Object.entries(input.values).filter(([, v]) => v !== null));
  const typed = typedBySchema(set, properties);
  const details: ValidationDetail[] = typed.problems.map((p) => {
    const field = p.slice(0, p.indexOf(':'));
    return detail(field, p.slice(field.length + 1).trim());
  });
  const after: Record<string, unknown> = { ...item.data, ...typed.data };
  for (const [k, v] of Object.entries(input.values)) if (v === null) delete after[k];
  if (details.length === 0) {
    for (const d of validatorFor(deps, catalog, schema)(after)) {
      const field = String(d.loc[0] ?? '');
      const missing = /required property '([^']+)'/.exec(d.msg)?.[1];
      if (fields.includes(field) || (missing && fields.includes(missing)) || (!field && !missing)) details.push(detail(missing ?? field, d.msg));
    }
  }
  if (details.length) throw new ValidationError(details);
  const message = (input.message?.trim() || `Edit of ${fields.join(', ')} on item ${item.business_key ?? item.id}`).slice(0, MAX_MESSAGE_CHARS);
  return createReviewActivity(deps, scope, catalogId, {
    type: 'custom_transform',
    description: message,
    metadata: { source: 'console_item_edit', item_id: item.id },
    staged_changes: [
      {
        catalog_item_id: item.id,
        catalog_item_entity_type: item.entity_type,
        // The whole item before and after: fields set differ, fields cleared are absent after
        // (apply removes them), and after_data is never empty (that would be a delete).
        before_data: item.data,
        after_data: after,
        base_version: item.current_version,
        source_data: {},
        review_info: {
          field_methods: Object.fromEntries(fields.map((f) => [f, input.restored_from ? 'restore' : 'manual'])),
          edited_by: actorId(scope),
          ...(input.restored_from ? { restored_from: input.restored_from } : {}),
        },
      },
    ],
  });
}
