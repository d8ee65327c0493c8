/**
 * Bulk review of staged changes (decisions.md §5 G16; issue 17 "API"): approve or reject given
 * changes, or given fields of them, or every change matching the list's filter. Each action is
 * one set-based UPDATE (approve_all on 100,000 changes is one statement; bench/review-append.ts).
 *
 * - `approve` (`change_ids`): status `approved`, every field (`accepted_fields` null).
 * - `approve` with `field_names`: status `partially_accepted`, `accepted_fields` = the named
 *   fields present in the change's `after_data`, added to those already accepted when the change
 *   was partially accepted before (a reviewer accepts field by field). A change with none of the
 *   fields is left as it is.
 * - `reject` (`change_ids`): status `rejected` with `rejection_reason`.
 * - `reject` with `field_names`: those fields leave `accepted_fields` (null = every field of
 *   `after_data`); the rest stay accepted (`partially_accepted`); none left → `rejected`.
 * - `approve_all` / `reject_all`: every change matching `filter` (the staged-changes list's
 *   filter). Changes in status `error` or `conflict` are never approved by them.
 * Explicit approves skip `error` changes too (they failed the catalog schema; apply cannot use them).
 */
import type { Knex } from 'knex';
import { ConflictError, ValidationError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { ReviewActivity } from '../../models/review-activity';
import type { BulkReviewInput } from '../../schemas/review';
import type { Scope } from '../access/scope';
import { loadActivity, stagedFilterSql } from './staged-changes';

/** The answer of a bulk review: how many changes it changed. */
export interface BulkReviewResult {
  activity_id: string;
  updated: number;
}

/**
 * Runs one bulk-review action on an activity's staged changes (rules in the file comment).
 * @throws ValidationError (422) `approve`/`reject` without `change_ids`; NotFoundError /
 *   ForbiddenError for the activity; ConflictError (409) when the activity is completed or cancelled
 */
export async function bulkReview(knex: Knex, scope: Scope, activityId: string, body: BulkReviewInput): Promise<BulkReviewResult> {
  const single = body.action === 'approve' || body.action === 'reject';
  if (single && !body.change_ids?.length) throw ValidationError.at(['body', 'change_ids'], `change_ids is required for ${body.action}`);
  return knex.transaction(async (trx) => {
    await loadActivity(trx, scope, activityId);
    const activity = await ReviewActivity.query(trx).findById(activityId).forShare().throwIfNotFound();
    if (activity.status === 'completed' || activity.status === 'cancelled')
      throw new ConflictError(`Activity is ${activity.status}: its changes can no longer be reviewed`);
    const ids = (body.change_ids ?? []).filter(isUuid);
    const reason = body.rejection_reason ?? null;
    const scoped = () => {
      const b = trx('staged_changes').where('activity_id', activityId);
      if (single) return b.whereIn('id', ids);
      const filter = stagedFilterSql(body.filter ?? {});
      return b.whereRaw(filter.sql, filter.bindings);
    };
    let updated: number;
    if (body.action === 'approve' && body.field_names) {
      updated = await scoped()
        .whereNot('status', 'error')
        .whereRaw('after_data \\?| ?::text[]', [body.field_names])
        .update({
          status: 'partially_accepted',
          accepted_fields: trx.raw(
            `ARRAY(SELECT DISTINCT f FROM unnest(?::text[] || CASE WHEN status = 'partially_accepted' THEN coalesce(accepted_fields, '{}') ELSE '{}' END) f
                   WHERE after_data \\? f ORDER BY f)`,
            [body.field_names],
          ),
          rejection_reason: null,
          updated_at: trx.fn.now(),
        });
    } else if (body.action === 'reject' && body.field_names) {
      const remaining = `ARRAY(SELECT f FROM unnest(coalesce(accepted_fields, ARRAY(SELECT jsonb_object_keys(after_data)))) f WHERE f <> ALL(?::text[]) ORDER BY f)`;
      updated = await scoped().update({
        status: trx.raw(`CASE WHEN cardinality(${remaining}) = 0 THEN 'rejected' ELSE 'partially_accepted' END`, [body.field_names]),
        accepted_fields: trx.raw(`CASE WHEN cardinality(${remaining}) = 0 THEN NULL ELSE ${remaining} END`, [body.field_names, body.field_names]),
        rejection_reason: reason,
        updated_at: trx.fn.now(),
      });
    } else if (body.action === 'approve' || body.action === 'approve_all') {
      const q = scoped().whereNot('status', 'error');
      if (body.action === 'approve_all') q.whereNotIn('status', ['conflict', 'approved']);
      updated = await q.update({ status: 'approved', accepted_fields: null, rejection_reason: null, updated_at: trx.fn.now() });
    } else {
      const q = scoped();
      if (body.action === 'reject_all') q.whereNot('status', 'rejected');
      updated = await q.update({ status: 'rejected', accepted_fields: null, rejection_reason: reason, updated_at: trx.fn.now() });
    }
    return { activity_id: activityId, updated };
  });
}
