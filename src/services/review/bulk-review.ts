/**
 * Bulk review of staged changes (docs/api-review.md "Bulk review"): approve
 * or reject given changes, or given fields of them, or every undecided change matching the
 * list's filter. Each action is one set-based UPDATE (approve_all on 100,000 changes is one
 * statement; bench/review-append.ts).
 *
 * - `approve` (`change_ids`): status `approved`, every field (`accepted_fields` null).
 * - `approve` with `field_names`: status `partially_accepted`, `accepted_fields` = the named
 *   fields present in the change's `after_data`, added to those already accepted when the change
 *   was partially accepted before (a reviewer accepts field by field). A change with none of the
 *   fields is left as it is.
 * - `reject` (`change_ids`): status `rejected` with `rejection_reason`.
 * - `reject` with `field_names`: those fields leave `accepted_fields` (null = every field of
 *   `after_data`); the rest stay accepted (`partially_accepted`); none left → `rejected`.
 * - `approve_all` / `reject_all` act only on undecided changes (`pending`) matching the rest of
 *   `filter`, unless `filter` names a status itself: a reviewer's rejection, approval or partial
 *   accept is never overridden by a bulk action (docs/review.md, "Decisions stand"). `approve_all` never approves
 *   `error` or `conflict` changes, whatever the filter.
 * Explicit approves skip `error` changes too (they failed the catalog schema; apply cannot use
 * them). No action touches a change already applied (a further apply applies the rest).
 *
 * No action ever touches a vendor draft (docs/review.md "Vendor drafts": a draft is the
 * vendor's until it is submitted): naming drafts by `change_ids`, or a `filter` that asks for
 * drafts (`status: "draft"` or `include_drafts: true`), answers 409 and writes nothing; the
 * filters of `approve_all` / `reject_all` never reach a draft otherwise. Since apply writes
 * only `approved` and `partially_accepted` changes, a draft cannot be applied either.
 */
import type { Knex } from 'knex';
import { ConflictError, ValidationError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { ReviewActivity } from '../../models/review-activity';
import type { BulkReviewInput } from '../../schemas/review-activities';
import { actorId } from '../access/auth';
import { assertRole } from '../access/roles';
import type { Scope } from '../access/scope';
import { loadReviewActivity, StagedChangeFilter, stagedFilterSql } from './staged-changes';

/** The answer of a bulk review: how many changes it changed. */
export interface BulkReviewResult {
  activity_id: string;
  updated: number;
}

/** The two bulk actions over a filter. */
export type BulkAction = 'approve_all' | 'reject_all';

/** Statuses each bulk action leaves alone whatever the filter names: approve_all never approves `error` or `conflict`. */
const LEFT_ALONE: Record<BulkAction, string[]> = { approve_all: ['error', 'conflict', 'approved'], reject_all: ['rejected'] };

/**
 * The changes of `activityId` a bulk action over `filter` may address, before its own
 * {@link LEFT_ALONE} statuses: never a draft (whatever `filter.include_drafts` says) nor an
 * applied change; `pending` ones unless `filter` names a status.
 */
function bulkScope(knex: Knex | Knex.Transaction, activityId: string, filter: StagedChangeFilter): Knex.QueryBuilder {
  const f = stagedFilterSql({ ...filter, include_drafts: undefined });
  const q = knex('staged_changes').where('activity_id', activityId).whereNull('applied_at').whereNot('status', 'draft').whereRaw(f.sql, f.bindings);
  if (!filter.status) q.where('status', 'pending');
  return q;
}

/** Most draft ids a 409 names (a request may name 10,000 changes); the message says how many more there are. */
const NAMED_DRAFTS_MAX = 50;

/** Where a vendor submits its drafts, as the 409s of this module name it. */
const submitPath = (activityId: string) => `POST /api/public/activities/${activityId}/submit`;

/**
 * Refuses a review that would touch vendor drafts (see the module comment): a `filter` that asks
 * for drafts, or `ids` that name changes of the activity in status `draft`.
 * @throws ConflictError (409) naming the draft change ids (the first {@link NAMED_DRAFTS_MAX}, and how many more)
 */
async function refuseDrafts(trx: Knex.Transaction, activityId: string, ids: string[], filter: StagedChangeFilter | undefined): Promise<void> {
  if (filter && (filter.status === 'draft' || filter.include_drafts === true))
    throw new ConflictError(
      `Bulk actions never touch vendor drafts: leave status "draft" and include_drafts out of the filter, or submit the drafts first (${submitPath(activityId)})`,
    );
  if (!ids.length) return;
  const drafts = (await trx('staged_changes')
    .where({ activity_id: activityId, status: 'draft' })
    .whereIn('id', ids)
    .orderBy('row_index')
    .pluck('id')) as string[];
  if (!drafts.length) return;
  const more = drafts.length > NAMED_DRAFTS_MAX ? ` and ${drafts.length - NAMED_DRAFTS_MAX} more` : '';
  throw new ConflictError(
    `Vendor drafts cannot be reviewed until submitted (${submitPath(activityId)}): ${drafts.slice(0, NAMED_DRAFTS_MAX).join(', ')}${more}; nothing was changed`,
  );
}

/**
 * The staged changes of `activityId` that `action` over `filter` acts on (see the module
 * comment), as a query builder on `staged_changes` to update.
 */
export function bulkTargets(knex: Knex | Knex.Transaction, activityId: string, action: BulkAction, filter: StagedChangeFilter): Knex.QueryBuilder {
  return bulkScope(knex, activityId, filter).whereNotIn('status', LEFT_ALONE[action]);
}

/**
 * How many changes each bulk action over `filter` would change now (what the dashboard shows on
 * its "approve all" / "reject all" buttons before they run), in one scan.
 */
export async function countBulkTargets(knex: Knex, activityId: string, filter: StagedChangeFilter): Promise<Record<BulkAction, number>> {
  const [row] = (await bulkScope(knex, activityId, filter).select(
    knex.raw('count(*) FILTER (WHERE status <> ALL(?::text[]))::int AS approve_all, count(*) FILTER (WHERE status <> ALL(?::text[]))::int AS reject_all', [
      LEFT_ALONE.approve_all,
      LEFT_ALONE.reject_all,
    ]),
  )) as Array<Record<BulkAction, number>>;
  return { approve_all: row.approve_all, reject_all: row.reject_all };
}

/** Whether an activity's changes may still be reviewed: it is open, or completed by an apply (the changes it did not apply). */
function reviewable(activity: ReviewActivity): boolean {
  return activity.status === 'created' || activity.status === 'pending_review' || activity.status === 'completed';
}

/**
 * Runs one bulk-review action on an activity's staged changes (rules in the file comment).
 * @throws ValidationError (422) `approve`/`reject` without `change_ids`; NotFoundError /
 *   ForbiddenError for the activity; ConflictError (409) when the activity is cancelled, failed
 *   or still running, or when the request names vendor drafts (by id or by filter)
 */
export async function bulkReview(knex: Knex, scope: Scope, activityId: string, body: BulkReviewInput): Promise<BulkReviewResult> {
  const single = body.action === 'approve' || body.action === 'reject';
  if (single && !body.change_ids?.length) throw ValidationError.at(['body', 'change_ids'], `change_ids is required for ${body.action}`);
  assertRole(scope, 'reviewer');
  return knex.transaction(async (trx) => {
    await loadReviewActivity(trx, scope, activityId);
    const activity = await ReviewActivity.query(trx).findById(activityId).forShare().throwIfNotFound();
    if (!reviewable(activity)) throw new ConflictError(`Activity is ${activity.status}: its changes can no longer be reviewed`);
    const ids = (body.change_ids ?? []).filter(isUuid);
    await refuseDrafts(trx, activityId, single ? ids : [], single ? undefined : body.filter);
    const reason = body.rejection_reason ?? null;
    const byId = () => trx('staged_changes').where('activity_id', activityId).whereNull('applied_at').whereNot('status', 'draft').whereIn('id', ids);
    let updated: number;
    if (body.action === 'approve' && body.field_names) {
      updated = await byId()
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
          decided_by: actorId(scope),
        });
    } else if (body.action === 'reject' && body.field_names) {
      const remaining = `ARRAY(SELECT f FROM unnest(coalesce(accepted_fields, ARRAY(SELECT jsonb_object_keys(after_data)))) f WHERE f <> ALL(?::text[]) ORDER BY f)`;
      updated = await byId().update({
        status: trx.raw(`CASE WHEN cardinality(${remaining}) = 0 THEN 'rejected' ELSE 'partially_accepted' END`, [body.field_names]),
        accepted_fields: trx.raw(`CASE WHEN cardinality(${remaining}) = 0 THEN NULL ELSE ${remaining} END`, [body.field_names, body.field_names]),
        rejection_reason: reason,
        updated_at: trx.fn.now(),
        decided_by: actorId(scope),
      });
    } else if (body.action === 'approve' || body.action === 'reject') {
      const approve = body.action === 'approve';
      const q = approve ? byId().whereNot('status', 'error') : byId();
      updated = await q.update({
        status: approve ? 'approved' : 'rejected',
        accepted_fields: null,
        rejection_reason: approve ? null : reason,
        updated_at: trx.fn.now(),
        decided_by: actorId(scope),
      });
    } else {
      const approve = body.action === 'approve_all';
      updated = await bulkTargets(trx, activityId, body.action, body.filter ?? {}).update({
        status: approve ? 'approved' : 'rejected',
        accepted_fields: null,
        rejection_reason: approve ? null : reason,
        updated_at: trx.fn.now(),
        decided_by: actorId(scope),
      });
    }
    return { activity_id: activityId, updated };
  });
}
