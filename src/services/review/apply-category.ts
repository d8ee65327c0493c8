/**
 * The category field of an apply: a job with
 * `catalog_id` and `predict_taxonomy` stages the predicted `category_id` in `after_data`
 * (src/services/enrichment/rows/staging-category.ts), so applying it writes the category onto the
 * item. The first apply that writes a `category_id` into a catalog whose schema lacks the field
 * adds it (type string, category `generated`) in the apply's own schema change, so the catalog
 * gains ONE new schema version, together with any schema changes the activity already carries.
 */
import type { Knex } from 'knex';
import { getCurrentSchema } from '../catalog/schema/schema';
import type { AddField } from '../catalog/schema/schema-fields';
import type { CatalogChanges } from './apply-schema';

/** The item field a predicted category is written to (docs/api-reference.md "Schema versions" result field `category_id`). */
export const CATEGORY_FIELD = 'category_id';

/** The schema field added on the first apply that writes a category. */
const CATEGORY_FIELD_DEFINITION: AddField = {
  field_name: CATEGORY_FIELD,
  field_type: 'string',
  field_category: 'generated',
  description: "Id of the item's category: a node of the catalog's taxonomy",
};

/**
 * True when an approved or partially accepted change of the activity, not applied yet, writes a
 * `category_id` (its `after_data` has the key, and `accepted_fields`, when set, names it).
 */
async function writesCategory(trx: Knex.Transaction, activityId: string): Promise<boolean> {
  const row = await trx('staged_changes')
    .where({ activity_id: activityId })
    .whereIn('status', ['approved', 'partially_accepted'])
    .whereNull('applied_at')
    .whereRaw('jsonb_exists(after_data, ?)', [CATEGORY_FIELD])
    .whereRaw('(accepted_fields IS NULL OR ? = ANY(accepted_fields))', [CATEGORY_FIELD])
    .first('id');
  return Boolean(row);
}

/**
 * The activity's catalog changes with the `category_id` field added to `fields_to_add` when the
 * apply writes a category and neither the current schema nor the changes define the field yet;
 * otherwise `changes` as given. The batch's `workflow_id` (the activity's id unless the changes name
 * one) is recorded as the field's `added_by_workflow`. Reads inside `trx` (the apply's transaction, catalog locked).
 * @returns the changes to apply as one schema version ({@link applyCatalogChanges} of ./apply-schema)
 */
export async function withCategoryField(trx: Knex.Transaction, catalogId: string, activityId: string, changes: CatalogChanges): Promise<CatalogChanges> {
  const batch = changes.schema_changes ?? null;
  if (batch?.fields_to_add?.some((f) => f.field_name === CATEGORY_FIELD)) return changes;
  if (!(await writesCategory(trx, activityId))) return changes;
  const schema = await getCurrentSchema(trx, catalogId);
  if (Object.prototype.hasOwnProperty.call(schema.schema_definition.properties, CATEGORY_FIELD)) return changes;
  return {
    ...changes,
    schema_changes: {
      ...(batch ?? {}),
      fields_to_add: [...(batch?.fields_to_add ?? []), CATEGORY_FIELD_DEFINITION],
      // docs/api-reference.md "Schema versions": a field's category is recorded only with the workflow that added it, here the activity.
      workflow_id: batch?.workflow_id ?? activityId,
      reason: batch?.reason ?? 'category_id added: the applied changes carry predicted categories',
    },
  };
}
