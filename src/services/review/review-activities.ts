/**
 * Review activity use cases (docs/api-review.md "Activities";
 * docs/tool-server-design.md "Staging" for the tool server's write path: a shell with status `created` and no
 * changes, appends in chunks with a `batch_key` each, then pending-review). Each use case that
 * writes owns its transaction and locks the activity row `FOR UPDATE`, so concurrent appends
 * number their changes one after the other and a state check cannot race a state change.
 */
import type { Knex } from 'knex';
import { ConflictError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ReviewActivity, ReviewActivityStatus } from '../../models/review-activity';
import { StagedChangeBatch } from '../../models/staged-change-batch';
import type { CreateReviewActivityInput, CustomTransformInput, StagedChangeInputT } from '../../schemas/review-activities';
import type { Scope } from '../access/scope';
import { loadCatalogOwned } from '../catalog/catalogs';
import { cancelEnrichmentJob } from '../enrichment/jobs/jobs';
import type { JobRunner } from '../job-runner';
import { stageChanges, StageDeps } from './stage-changes';
import { ReviewActivityDetail, countStaged, getReviewActivity, loadReviewActivity } from './staged-changes';

/** What the review use cases need from the app's dependency object. */
export interface ReviewDeps extends StageDeps {
  knex: Knex;
  jobRunner: JobRunner;
  config: { publicUrl: string };
}

/** Statuses in which changes may still be staged and an activity finalized. */
const OPEN_STATUSES: readonly ReviewActivityStatus[] = ['created', 'pending_review'];

/** `review_url` of an activity (docs/api-review.md "Activities"): `{PUBLIC_URL}/dashboard/catalogs/{cid}/activities/{aid}`. */
export function reviewUrl(publicUrl: string, catalogId: string | null, activityId: string): string {
  return `${publicUrl}/dashboard/catalogs/${catalogId ?? 'none'}/activities/${activityId}`;
}

/** `review_url` of an activity that has a review page (one with a catalog), else null. */
export function reviewActivityUrl(publicUrl: string, activity: Pick<ReviewActivity, 'id' | 'catalog_id'>): string | null {
  return activity.catalog_id ? reviewUrl(publicUrl, activity.catalog_id, activity.id) : null;
}

/** One entry of an activity list (docs/api-review.md "Activities"). */
export interface ReviewActivityListEntry {
  activity: ReviewActivity;
  /** Staged changes, drafts counted unless the list leaves them out. */
  stagedCount: number;
  /** Vendor drafts among the activity's changes (whatever the list shows). */
  draftCount: number;
}

/** `GET /public/catalogs/{id}/activities` query (docs/api-review.md "Activities"). */
export interface ReviewActivityListOptions {
  status?: string;
  type?: string;
  /**
   * Whether vendor drafts count (default true, the API's view): false leaves out activities whose
   * changes are all drafts and does not count drafts in `staged_count` (the console's view).
   */
  include_drafts?: boolean;
  limit: number;
  offset: number;
}

/**
 * `GET /public/catalogs/{id}/activities` (docs/api-review.md "Activities"): the catalog's activities, newest first —
 * enrichment jobs that target the catalog included (each job is an activity of type
 * `enrichment`, docs/review.md) — filtered by `status` and `type`, with their staged counts and
 * draft counts. Vendor drafts (docs/review.md "Vendor drafts") count like any change, so an
 * activity whose changes are all drafts is listed; with `include_drafts: false` (the console
 * until its reviewer asks for drafts) such an activity is left out and `staged_count` leaves
 * drafts out.
 * @returns `{activities, total}` (total before limit/offset)
 * @throws NotFoundError / ForbiddenError for the catalog
 */
export async function listReviewActivities(
  knex: Knex,
  scope: Scope,
  catalogId: string,
  q: ReviewActivityListOptions,
): Promise<{ activities: ReviewActivityListEntry[]; total: number }> {
  await loadCatalogOwned(knex, scope, catalogId);
  const includeDrafts = q.include_drafts !== false;
  const base = ReviewActivity.query(knex)
    .where({ organization_id: scope.organizationId, catalog_id: catalogId })
    .modify((b) => {
      if (q.status) b.where('status', q.status);
      if (q.type) b.where('type', q.type);
      if (!includeDrafts)
        b.whereRaw(
          `NOT (EXISTS (SELECT 1 FROM staged_changes s WHERE s.activity_id = review_activities.id AND s.status = 'draft')
                AND NOT EXISTS (SELECT 1 FROM staged_changes s WHERE s.activity_id = review_activities.id AND s.status <> 'draft'))`,
        );
    });
  const total = await base.clone().resultSize();
  const drafts = includeDrafts ? '' : "AND s.status <> 'draft'";
  const rows = (await base
    .clone()
    .select(
      'review_activities.*',
      knex.raw(`(SELECT count(*)::int FROM staged_changes s WHERE s.activity_id = review_activities.id ${drafts}) AS staged_count`),
      knex.raw(`(SELECT count(*)::int FROM staged_changes s WHERE s.activity_id = review_activities.id AND s.status = 'draft') AS draft_count`),
    )
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .offset(q.offset)
    .limit(q.limit)) as Array<ReviewActivity & { staged_count: number; draft_count: number }>;
  return { activities: rows.map((r) => ({ activity: r, stagedCount: r.staged_count, draftCount: r.draft_count })), total };
}

/** Loads an activity of the scope and locks its row in `trx`. */
async function lockActivity(trx: Knex.Transaction, scope: Scope, activityId: string): Promise<ReviewActivity> {
  await loadReviewActivity(trx, scope, activityId);
  return ReviewActivity.query(trx).findById(activityId).forUpdate().throwIfNotFound();
}

/** @throws ConflictError unless the activity can still take changes (created / pending_review, with a catalog). */
function assertOpen(activity: ReviewActivity, what: string): void {
  if (!OPEN_STATUSES.includes(activity.status)) throw new ConflictError(`Activity is ${activity.status}: cannot ${what}`);
  if (!activity.catalog_id) throw new ConflictError(`Activity has no catalog: cannot ${what}`);
}

/** The answer of creating an activity (docs/api-review.md "Activities"). */
export interface CreatedReviewActivity {
  activity: ReviewActivity;
  stagedCount: number;
  reviewUrl: string;
}

/** Inserts an activity of a catalog and stages its initial changes, in `trx`. */
async function insertActivity(
  trx: Knex.Transaction,
  deps: ReviewDeps,
  scope: Scope,
  catalogId: string,
  row: Pick<ReviewActivity, 'type' | 'status' | 'description' | 'metadata' | 'input_data' | 'last_message'>,
  changes: StagedChangeInputT[],
): Promise<CreatedReviewActivity> {
  const activity = await ReviewActivity.query(trx).insertAndFetch({ id: newId(), organization_id: scope.organizationId, catalog_id: catalogId, ...row });
  const staged = await stageChanges(trx, deps, activity, changes);
  return { activity, stagedCount: staged.count, reviewUrl: reviewUrl(deps.config.publicUrl, catalogId, activity.id) };
}

/**
 * `POST /public/catalogs/{id}/activities` (docs/api-review.md "Activities"): an activity shell of `type`, with its
 * `description`, `input_data` and `metadata` stored as given and `staged_changes` staged (rules
 * of ./stage-changes.ts). Status: the one asked for, else `pending_review` when changes are
 * given and `created` otherwise.
 * @throws NotFoundError / ForbiddenError for the catalog
 */
export async function createReviewActivity(deps: ReviewDeps, scope: Scope, catalogId: string, body: CreateReviewActivityInput): Promise<CreatedReviewActivity> {
  return deps.knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    const changes = body.staged_changes ?? [];
    return insertActivity(
      trx,
      deps,
      scope,
      catalogId,
      {
        type: body.type,
        status: body.status ?? (changes.length ? 'pending_review' : 'created'),
        description: body.description ?? null,
        metadata: body.metadata ?? {},
        input_data: body.input_data ?? null,
        last_message: null,
      },
      changes,
    );
  });
}

/**
 * `POST /public/catalogs/{id}/activities/custom-transform` (docs/api-review.md "Activities"): a `custom_transform`
 * activity in `pending_review` (a transform arrives finished). `input_data` keeps
 * `activity_message`, `schema_changes`, `taxonomy_changes` (what apply turns into a schema
 * version), `activity_context`, `attachments`, `session_context` and `base_snapshot_id`;
 * `metadata` keeps `script`, `diff_summary`, `validation_report` and `base_snapshot_id` (where
 * the tool server's shell puts them, docs/tool-server-design.md "Staging"). `staged_changes` are staged.
 * @throws NotFoundError / ForbiddenError for the catalog
 */
export async function createCustomTransform(deps: ReviewDeps, scope: Scope, catalogId: string, body: CustomTransformInput): Promise<CreatedReviewActivity> {
  const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
  return deps.knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    return insertActivity(
      trx,
      deps,
      scope,
      catalogId,
      {
        type: 'custom_transform',
        status: 'pending_review',
        description: body.activity_message,
        last_message: body.activity_message,
        input_data: defined({
          activity_message: body.activity_message,
          description: body.activity_message,
          schema_changes: body.schema_changes,
          taxonomy_changes: body.taxonomy_changes,
          activity_context: body.activity_context,
          attachments: body.attachments,
          session_context: body.session_context,
          base_snapshot_id: body.base_snapshot_id,
        }),
        metadata: defined({
          source: 'custom_transform',
          script: body.script,
          diff_summary: body.diff_summary,
          validation_report: body.validation_report,
          base_snapshot_id: body.base_snapshot_id,
        }),
      },
      body.staged_changes ?? [],
    );
  });
}

/** The answer of an append (docs/api-review.md "Appending staged changes"). */
export interface AppendResult {
  activity_id: string;
  appended_count: number;
  total_staged_changes: number;
}

/**
 * `POST /public/activities/{id}/staged-changes/append`: stages `changes` after the activity's
 * existing ones (./stage-changes.ts); `total_staged_changes` counts drafts too (the writer's
 * own view of what it staged). With a `batchKey` the append is idempotent
 * (docs/api-review.md "Appending staged changes"): a key already used on this activity stages nothing and answers the count
 * that batch staged.
 * @throws NotFoundError / ForbiddenError for the activity; ConflictError (409) when the
 *   activity is no longer open (completed, cancelled, failed, running) or has no catalog
 */
export async function appendStagedChanges(
  deps: ReviewDeps,
  scope: Scope,
  activityId: string,
  changes: StagedChangeInputT[],
  batchKey?: string | null,
): Promise<AppendResult> {
  return deps.knex.transaction(async (trx) => appendInTransaction(trx, deps, await lockActivity(trx, scope, activityId), changes, batchKey));
}

/**
 * The append of {@link appendStagedChanges} inside the caller's transaction, on an activity the
 * caller has locked `FOR UPDATE` (also a flow's stage node, src/services/flows/nodes/stage.ts,
 * one batch per page keyed by run, node and page, so a retried page stages nothing twice).
 * @throws ConflictError (409) when the activity is no longer open or has no catalog
 */
export async function appendInTransaction(
  trx: Knex.Transaction,
  deps: StageDeps,
  activity: ReviewActivity,
  changes: StagedChangeInputT[],
  batchKey?: string | null,
): Promise<AppendResult> {
  const activityId = activity.id;
  if (batchKey) {
    const done = await StagedChangeBatch.query(trx).findById([activityId, batchKey]);
    if (done) return { activity_id: activityId, appended_count: done.count, total_staged_changes: await countStaged(trx, activityId, true) };
  }
  assertOpen(activity, 'append staged changes');
  const staged = await stageChanges(trx, deps, activity, changes);
  if (batchKey)
    await StagedChangeBatch.query(trx).insert({ activity_id: activityId, batch_key: batchKey, first_row_index: staged.firstRowIndex, count: staged.count });
  await ReviewActivity.query(trx).findById(activityId).patch({ updated_at: trx.fn.now() });
  return { activity_id: activityId, appended_count: staged.count, total_staged_changes: await countStaged(trx, activityId, true) };
}

/**
 * `POST /public/activities/{id}/pending-review` (docs/api-review.md "Activities"): the activity goes to `pending_review`,
 * remembering `message` as its `last_message` and `output` (e.g. the diff summary). Finalizing
 * again is allowed and updates both. Its `staged_count` counts drafts (the API's view); drafts
 * stay drafts (submit turns them into `pending`).
 * @throws NotFoundError / ForbiddenError; ConflictError (409) unless created or pending_review
 */
export async function markPendingReview(
  deps: ReviewDeps,
  scope: Scope,
  activityId: string,
  body: { message?: string | null; output?: Record<string, unknown> | null },
): Promise<CreatedReviewActivity> {
  return deps.knex.transaction(async (trx) => {
    const activity = await lockActivity(trx, scope, activityId);
    assertOpen(activity, 'submit for review');
    const updated = await ReviewActivity.query(trx)
      .patchAndFetchById(activityId, {
        status: 'pending_review',
        last_message: body.message ?? activity.last_message,
        output: body.output ?? activity.output,
        updated_at: trx.fn.now(),
      })
      .throwIfNotFound();
    return {
      activity: updated,
      stagedCount: await countStaged(trx, activityId, true),
      reviewUrl: reviewUrl(deps.config.publicUrl, activity.catalog_id, activityId),
    };
  });
}

/** The answer of a submit: the activity and how many drafts became `pending`. */
export interface SubmittedReviewActivity {
  activity: ReviewActivity;
  submitted: number;
  reviewUrl: string;
}

/** Statuses in which an activity's vendor drafts may be submitted (a completed one takes a further apply). */
const SUBMITTABLE: readonly ReviewActivityStatus[] = ['created', 'pending_review', 'completed'];

/**
 * `POST /public/activities/{id}/submit` (docs/review.md "Vendor drafts": a draft stays out of the
 * reviewers' console until submitted; docs/review.md, "Vendor drafts"): every `draft` change of the activity becomes
 * `pending` in one statement and the activity `pending_review` (`message`, when given, becomes
 * its last message). Submitting again submits nothing and answers the same.
 * @returns the activity, the number of drafts submitted and its review URL
 * @throws NotFoundError / ForbiddenError; ConflictError (409) while the activity runs (an
 *   enrichment job still staging), or when it is cancelled or failed, or has no catalog
 */
export async function submitDrafts(deps: ReviewDeps, scope: Scope, activityId: string, message?: string | null): Promise<SubmittedReviewActivity> {
  return deps.knex.transaction(async (trx) => {
    const activity = await lockActivity(trx, scope, activityId);
    if (!SUBMITTABLE.includes(activity.status)) throw new ConflictError(`Activity is ${activity.status}: its drafts cannot be submitted`);
    if (!activity.catalog_id) throw new ConflictError('Activity has no catalog: its drafts cannot be submitted');
    const submitted = await trx('staged_changes').where({ activity_id: activityId, status: 'draft' }).update({ status: 'pending', updated_at: trx.fn.now() });
    const updated = await ReviewActivity.query(trx)
      .patchAndFetchById(activityId, { status: 'pending_review', last_message: message ?? activity.last_message, updated_at: trx.fn.now() })
      .throwIfNotFound();
    return { activity: updated, submitted, reviewUrl: reviewUrl(deps.config.publicUrl, activity.catalog_id, activityId) };
  });
}

/**
 * `POST /activities/{id}/cancel` (docs/api-review.md "Activities"): the activity becomes `cancelled`; its staged
 * changes are kept and nothing is applied. An enrichment activity whose job still runs is
 * cancelled through the enrichment cancel (the job and its workflow stop). Cancelling a
 * cancelled activity answers it again.
 * @returns the activity as `GET /activities/{id}` shows it (drafts counted)
 * @throws NotFoundError / ForbiddenError; ConflictError (409) for a completed activity
 */
export async function cancelReviewActivity(deps: ReviewDeps, scope: Scope, activityId: string): Promise<ReviewActivityDetail> {
  const current = await loadReviewActivity(deps.knex, scope, activityId);
  if (current.type === 'enrichment' && current.status === 'running')
    await cancelEnrichmentJob({ knex: deps.knex, jobRunner: deps.jobRunner }, scope, activityId);
  await deps.knex.transaction(async (trx) => {
    const activity = await lockActivity(trx, scope, activityId);
    if (activity.status === 'completed') throw new ConflictError('Activity is completed: its changes are applied and it cannot be cancelled');
    if (activity.status !== 'cancelled') await ReviewActivity.query(trx).findById(activityId).patch({ status: 'cancelled', updated_at: trx.fn.now() });
  });
  return getReviewActivity(deps.knex, scope, activityId, true);
}
