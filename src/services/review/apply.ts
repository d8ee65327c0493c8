/**
 * Apply of a review activity (docs/api-review.md "Apply"): nothing lost,
 * nothing applied twice.
 *
 * - The API ({@link requestApply}) checks the activity, marks it `queued` and starts the Temporal
 *   workflow `activity-apply-<activity_id>` (workflows/review-apply.ts), returning at once.
 * - The workflow's activity (activities/apply.ts) runs {@link runApply}: a `pre_apply` snapshot
 *   of the catalog in its own transaction, its id stored in `apply_progress` with the workflow run
 *   that took it (a retry of the same run reuses it instead of taking a second one), then
 *   {@link applyInTransaction}: every approved and partially accepted change in ONE transaction,
 *   under a row lock on the activity that first checks it is not completed already, ending with
 *   the activity `completed` and its `apply_result`. A worker killed mid-way rolls the transaction
 *   back (the catalog untouched) and the retry applies once; a retry after the commit finds the
 *   activity completed and returns the stored result.
 * - {@link markApplyFailed}: when every attempt failed, `apply_progress` says so and the activity
 *   stays `pending_review` (nothing applied).
 * - A further apply: changes left undecided by an apply can still be reviewed on the
 *   `completed` activity; asking to apply it again when some approved change is not applied yet
 *   puts it back to `pending_review` and runs a new apply of exactly those (a fresh `pre_apply`
 *   snapshot); with none, the request answers the stored result and starts nothing.
 * - Apply never writes a value that fails its field's type (apply-sql.ts `markTypeErrors`).
 */
import type { Knex } from 'knex';
import { ConflictError } from '../../lib/errors';
import { Catalog } from '../../models/catalog';
import { CatalogSnapshot } from '../../models/catalog-snapshot';
import { ReviewActivity, type ApplyProgress, type ApplyResult } from '../../models/review-activity';
import { actorId } from '../access/auth';
import { loadOwned } from '../access/ownership';
import { assertRole } from '../access/roles';
import type { Principal, Scope } from '../access/scope';
import type { CatalogCaches } from '../catalog/catalog-caches';
import { writeItems } from '../catalog/items/items-write';
import { getCurrentSchema, lockCatalog } from '../catalog/schema/schema';
import { SEARCH_WORDS_DEFER_MIN_ITEMS } from '../catalog/search/search-words';
import { takeSnapshot } from '../catalog/snapshots/snapshots';
import type { JobRunner } from '../job-runner';
import {
  applyDeletes,
  applyUpdates,
  collectChanges,
  countApplied,
  countUpdates,
  fieldTypes,
  loadCreates,
  markConflicts,
  markLeftovers,
  markMissingItems,
  markTypeErrors,
  recordCreates,
} from './apply-sql';
import { withCategoryField } from './apply-category';
import { applyCatalogChanges, CatalogChanges } from './apply-schema';

/** Most failed changes an apply result lists in `errors`. */
export const MAX_ERRORS_IN_RESULT = 100;

/** Who asked for the apply (recorded as the snapshot's and schema version's author). */
export type ApplyActor = Pick<Principal, 'kind' | 'id'>;

/** What the apply workflow and activity receive (only ids and flags: Temporal rule 2). */
export interface ApplyRequest {
  activity_id: string;
  /** Apply changes even when their item changed since (no `conflict`). */
  force: boolean;
  actor: ApplyActor;
}

/**
 * What the apply needs: the database, the catalog caches (validators of the item write path),
 * and optionally the number of updates from which the word index is deferred (default
 * {@link SEARCH_WORDS_DEFER_MIN_ITEMS}, as restores; tests lower it).
 */
export interface ApplyDeps {
  knex: Knex;
  caches: CatalogCaches;
  searchWordsDeferMinItems?: number;
}

/** The JobRunner part that starts apply workflows. */
export type ApplyStarter = Pick<JobRunner, 'startApply'>;

/** The scope an apply acts in: the activity's organization and the requesting principal. */
function scopeOf(activity: Pick<ReviewActivity, 'organization_id'>, actor: ApplyActor): Scope {
  return { organizationId: activity.organization_id, principal: { ...actor, organizationIds: [activity.organization_id] } };
}

/** The phases during which an apply is under way (a new request leaves them as they are). */
const RUNNING_PHASES: ReadonlySet<string> = new Set(['queued', 'applying']);

/**
 * `POST /public/activities/{id}/apply` (docs/api-review.md "Apply"): checks the activity and starts
 * `activity-apply-<activity_id>`, returning at once. An activity `completed` by an apply is
 * answered as it is (idempotent) unless an approved change of it is not applied yet (reviewed
 * after that apply): then it goes back to `pending_review` and a further apply runs. An apply
 * already under way is not started twice (the workflow id is the activity's, "already started"
 * is success).
 * @returns the activity as stored after the request (status, apply_progress, apply_result)
 * @throws NotFoundError (404), ForbiddenError (403); ConflictError (409) when the activity has
 *   no catalog or is not `pending_review` (or `completed`); the runner's error when Temporal is unreachable
 */
export async function requestApply(deps: { knex: Knex; jobRunner: ApplyStarter }, scope: Scope, activityId: string, force: boolean): Promise<ReviewActivity> {
  assertRole(scope, 'reviewer');
  let replaceClosed = false;
  const activity = await deps.knex.transaction(async (trx) => {
    await loadOwned(trx, ReviewActivity, activityId, scope, 'Activity not found');
    const row = (await ReviewActivity.query(trx).findById(activityId).forUpdate()) as ReviewActivity;
    const phase = row.apply_progress?.phase;
    if (row.status === 'completed' && row.apply_result) {
      if (!(await hasUnapplied(trx, activityId))) return row;
    } else {
      assertApplicable(row);
      if (typeof phase === 'string' && RUNNING_PHASES.has(phase)) return row;
    }
    // An earlier run ended (committed, or recorded its failure): only its word-index catch-up may
    // still run under the workflow id, and the new run replaces it.
    replaceClosed = phase === 'completed' || phase === 'failed';
    const progress: ApplyProgress = { phase: 'queued', force };
    return ReviewActivity.query(trx).patchAndFetchById(activityId, {
      status: 'pending_review',
      apply_progress: progress,
      applied_by: actorId(scope),
      updated_at: new Date(),
    });
  });
  if (activity.status === 'pending_review') {
    await deps.jobRunner.startApply({
      activity_id: activity.id,
      organization_id: activity.organization_id,
      catalog_id: activity.catalog_id as string,
      force,
      actor: scope.principal,
      ...(replaceClosed ? { replaceClosed: true } : {}),
    });
  }
  return activity;
}

/** Whether an activity has an approved or partially accepted change not applied yet. */
async function hasUnapplied(trx: Knex.Transaction, activityId: string): Promise<boolean> {
  const row = await trx('staged_changes')
    .where('activity_id', activityId)
    .whereIn('status', ['approved', 'partially_accepted'])
    .whereNull('applied_at')
    .first(trx.raw('1 AS found'));
  return row !== undefined;
}

/** Sets `apply_progress` of a pending activity (no-op once completed). */
async function setProgress(knex: Knex | Knex.Transaction, activityId: string, progress: ApplyProgress): Promise<void> {
  await ReviewActivity.query(knex).where({ id: activityId, status: 'pending_review' }).patch({ apply_progress: progress });
}

/**
 * Step 1 of the apply activity, in its own transaction under the activity's row lock: the
 * `pre_apply` snapshot, or the one this workflow run took already (a retry of the same run);
 * its id is stored in `apply_progress` in the same transaction as the snapshot.
 * @param runId the workflow run id (a new apply of a failed activity takes a fresh snapshot)
 * @returns the snapshot id, or the stored result when the activity is completed already
 * @throws ConflictError when the activity is gone, has no catalog or is not `pending_review`
 */
async function preApplySnapshot(knex: Knex, req: ApplyRequest, runId: string): Promise<{ snapshotId: string } | { done: ApplyResult }> {
  return knex.transaction(async (trx) => {
    const activity = await lockActivity(trx, req.activity_id);
    if (activity.status === 'completed' && activity.apply_result) return { done: activity.apply_result };
    assertApplicable(activity);
    const progress = activity.apply_progress ?? { phase: 'queued' as const };
    if (progress.pre_apply_snapshot_id && progress.snapshot_run_id === runId) {
      const kept = await CatalogSnapshot.query(trx).findById(progress.pre_apply_snapshot_id).select('id');
      if (kept) return { snapshotId: progress.pre_apply_snapshot_id };
    }
    const snapshot = await takeSnapshot(
      trx,
      scopeOf(activity, req.actor),
      activity.catalog_id as string,
      'pre_apply',
      `Automatic snapshot before applying activity ${activity.id}`,
      { activity_id: activity.id },
    );
    await setProgress(trx, activity.id, { phase: 'applying', force: req.force, pre_apply_snapshot_id: snapshot.id, snapshot_run_id: runId });
    return { snapshotId: snapshot.id };
  });
}

/** Locks the activity row (`FOR UPDATE`). @throws ConflictError when it is gone */
async function lockActivity(trx: Knex.Transaction, activityId: string): Promise<ReviewActivity> {
  const activity = await ReviewActivity.query(trx).findById(activityId).forUpdate();
  if (!activity) throw new ConflictError(`Activity ${activityId} no longer exists`);
  return activity;
}

/** @throws ConflictError unless the activity has a catalog and is `pending_review` */
function assertApplicable(activity: ReviewActivity): void {
  if (!activity.catalog_id) throw new ConflictError('This activity has no catalog to apply to');
  if (activity.status !== 'pending_review') throw new ConflictError(`Only an activity in pending_review can be applied (this one is ${activity.status})`);
}

/** Creates per write-path call (writeItems builds one INSERT of its rows). */
const CREATE_CHUNK = 5000;

/** Strips system keys and unaccepted fields of a create; before-data fields fill the rest. */
function createData(row: {
  before_data: Record<string, unknown>;
  after_data: Record<string, unknown>;
  accepted_fields: string[] | null;
}): Record<string, unknown> {
  const accepted = row.accepted_fields ? new Set(row.accepted_fields) : null;
  const keep = (k: string): boolean => !k.startsWith('__');
  const data: Record<string, unknown> = Object.fromEntries(Object.entries(row.before_data ?? {}).filter(([k]) => keep(k)));
  for (const [k, v] of Object.entries(row.after_data)) if (keep(k) && (!accepted || accepted.has(k))) data[k] = v;
  for (const k of Object.keys(row.before_data ?? {})) if (keep(k) && !(k in row.after_data) && (!accepted || accepted.has(k))) delete data[k];
  return data;
}

/**
 * Step 2: every approved and partially accepted change of the activity not applied yet, in ONE
 * transaction (see src/services/review/apply-sql.ts for the statements): the custom transform's
 * schema and taxonomy changes (with the `category_id` field when the changes first write
 * categories: ./apply-category.ts) as one new schema version, conflicts, missing items, values of
 * the wrong type (`error`, not applied:), updates, deletes, creates through the
 * catalog's item write path (`writeItems`: business keys, product grouping, strict validation,
 * search columns), then the activity `completed` with its result. Under the activity's row lock,
 * after checking it is not completed already, so a retry never applies twice.
 * @returns the result (the stored one when an earlier attempt committed)
 * @throws ConflictError when the activity is gone, has no catalog or is not `pending_review`;
 *   ValidationError when the stored schema/taxonomy changes are invalid (nothing applied)
 */
export async function applyInTransaction(deps: ApplyDeps, req: ApplyRequest, snapshotId: string | null): Promise<ApplyResult> {
  return deps.knex.transaction(async (trx) => {
    const activity = await lockActivity(trx, req.activity_id);
    if (activity.status === 'completed' && activity.apply_result) return activity.apply_result;
    assertApplicable(activity);
    const catalogId = activity.catalog_id as string;
    const scope = scopeOf(activity, req.actor);
    // The catalog lock exclusive (schema.ts lockCatalog) waits for every item writer in flight and
    // keeps new ones out: the reads below see the items as they are written. JIT costs tens of ms on these large statements and saves less.
    await lockCatalog(trx, catalogId);
    await trx.raw("SET LOCAL jit = off; SET LOCAL work_mem = '256MB'");
    const changes = await withCategoryField(trx, catalogId, activity.id, (activity.input_data ?? {}) as CatalogChanges);
    const newVersion = await applyCatalogChanges(trx, deps.caches, scope, catalogId, changes);
    const catalog = (await Catalog.query(trx).findById(catalogId)) as Catalog;

    await collectChanges(trx, activity.id);
    const skipped = req.force ? 0 : await markConflicts(trx, catalogId);
    const failures = await markMissingItems(trx, catalogId);
    failures.push(...(await markTypeErrors(trx, fieldTypes((await getCurrentSchema(trx, catalogId)).schema_definition))));
    const deferWords = (await countUpdates(trx)) >= (deps.searchWordsDeferMinItems ?? SEARCH_WORDS_DEFER_MIN_ITEMS);
    await applyUpdates(trx, catalogId, catalog.unique_id_field, deferWords);
    await applyDeletes(trx, catalogId);

    const creates = await loadCreates(trx);
    const written: Array<{ sid: string; item_id: string }> = [];
    const errors: Array<{ sid: string; reason: string }> = [];
    for (let i = 0; i < creates.length; i += CREATE_CHUNK) {
      const chunk = creates.slice(i, i + CREATE_CHUNK);
      const out = await writeItems(trx, deps.caches, scope, catalog, chunk.map(createData), { source_info: { activity_id: activity.id } });
      out.ids.forEach((id, j) => {
        if (id) written.push({ sid: chunk[j].sid, item_id: id });
      });
      for (const e of out.errors) errors.push({ sid: chunk[e.index].sid, reason: e.detail });
    }
    failures.push(...(await recordCreates(trx, written, errors)));
    failures.push(...(await markLeftovers(trx)));

    const result: ApplyResult = {
      applied: await countApplied(trx),
      skipped_conflicts: skipped,
      failed: failures.length,
      errors: failures.sort((a, b) => a.row_index - b.row_index).slice(0, MAX_ERRORS_IN_RESULT),
      pre_apply_snapshot_id: snapshotId,
      ...(newVersion ? { new_schema_version: newVersion } : {}),
    };
    const progress: ApplyProgress = { ...(activity.apply_progress ?? {}), phase: 'completed', ...result };
    await ReviewActivity.query(trx).findById(activity.id).patch({
      status: 'completed',
      apply_result: result,
      apply_progress: progress,
      updated_at: new Date(),
    });
    return result;
  });
}

/**
 * The apply activity's work: {@link preApplySnapshot} then {@link applyInTransaction}.
 * Idempotent: a retry reuses this run's snapshot and never applies twice.
 * @param runId the workflow run id
 * @returns the result (the stored one when the activity was completed already)
 * @throws as applyInTransaction
 */
export async function runApply(deps: ApplyDeps, req: ApplyRequest, runId: string): Promise<ApplyResult> {
  const snap = await preApplySnapshot(deps.knex, req, runId);
  if ('done' in snap) return snap.done;
  return applyInTransaction(deps, req, snap.snapshotId);
}

/**
 * Records that the apply failed for good: `apply_progress` `{phase: 'failed', error}` (the
 * snapshot id kept), the activity stays `pending_review` and nothing was applied (every attempt's
 * transaction rolled back). No-op when the activity completed meanwhile.
 */
export async function markApplyFailed(knex: Knex, activityId: string, error: string): Promise<void> {
  await knex.transaction(async (trx) => {
    const activity = await ReviewActivity.query(trx).findById(activityId).forUpdate();
    if (!activity || activity.status === 'completed') return;
    const progress = { ...(activity.apply_progress ?? {}), phase: 'failed' as const, error };
    await ReviewActivity.query(trx).findById(activityId).patch({ apply_progress: progress });
  });
}
