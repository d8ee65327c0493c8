/**
 * The read side of review activities (docs/api-review.md "Listing and summary"): one activity, the
 * paginated list of its staged changes, their summary, and the staged-change filter shared by
 * the list and by bulk review (`approve_all` / `reject_all` act on the undecided part of what
 * the list shows for the same filter, ./bulk-review.ts).
 *
 * Vendor drafts (docs/review.md "Vendor drafts"): over the API a change in status `draft` is
 * read like any other (the client that staged it reads it back); the review console leaves
 * drafts out until they are submitted. So every read here takes whether drafts count
 * (`includeDrafts` / `include_drafts`), and the default is the API's: they do. Naming the status
 * `draft` (or `pending`) in a filter gives only that status.
 */
import type { Knex } from 'knex';
import { loadOwned } from '../access/ownership';
import type { Scope } from '../access/scope';
import { ReviewActivity } from '../../models/review-activity';
import { StagedChange } from '../../models/staged-change';

/** A review activity with the number of its staged changes. */
export interface ReviewActivityWithCount {
  activity: ReviewActivity;
  stagedCount: number;
}

/**
 * Loads an activity of the scope's organization.
 * @throws NotFoundError `Activity not found` (404); ForbiddenError (403) for another organization's
 */
export function loadReviewActivity(knex: Knex | Knex.Transaction, scope: Scope, activityId: string): Promise<ReviewActivity> {
  return loadOwned<ReviewActivity>(knex, ReviewActivity, activityId, scope, 'Activity not found');
}

/**
 * Number of staged changes of an activity: drafts counted unless `includeDrafts` is false (the
 * console's view; see the module comment).
 */
export async function countStaged(knex: Knex | Knex.Transaction, activityId: string, includeDrafts = true): Promise<number> {
  return StagedChange.query(knex)
    .where({ activity_id: activityId })
    .modify((q) => {
      if (!includeDrafts) q.whereNot('status', 'draft');
    })
    .resultSize();
}

/** Number of vendor drafts (`draft`) of an activity: what `POST …/submit` would turn into `pending`. */
export async function countDrafts(knex: Knex | Knex.Transaction, activityId: string): Promise<number> {
  return StagedChange.query(knex).where({ activity_id: activityId, status: 'draft' }).resultSize();
}

/**
 * A restore of one of the activity's `pre_apply` snapshots (docs/api-reference.md "Snapshots": a restore
 * takes a `safety` snapshot first, which records the snapshot it restored).
 */
export interface ReviewActivityRestore {
  /** The activity's `pre_apply` snapshot that was restored. */
  snapshot_id: string;
  /** The `safety` snapshot the restore took of the state it replaced (restore it to redo). */
  safety_snapshot_id: string;
  restored_at: Date;
  /** Who restored it (`api_key:<id>` or `user:<id>`). */
  restored_by: string;
}

/** An activity with what its answers show besides the row. */
export interface ReviewActivityDetail extends ReviewActivityWithCount {
  /** Changes in status `draft` (counted whatever `includeDrafts` says: submit turns them into `pending`). */
  draftCount: number;
  /** Restores of the activity's `pre_apply` snapshots, newest first. */
  restores: ReviewActivityRestore[];
}

/**
 * Restores of the `pre_apply` snapshots an activity's applies took (snapshots link to their
 * activity, and a restore's `safety` snapshot to the snapshot it restored), newest first.
 */
export async function reviewActivityRestores(knex: Knex | Knex.Transaction, activityId: string): Promise<ReviewActivityRestore[]> {
  const rows = (await knex('catalog_snapshots as pre')
    .join('catalog_snapshots as safety', 'safety.restored_snapshot_id', 'pre.id')
    .where({ 'pre.activity_id': activityId, 'pre.snapshot_type': 'pre_apply' })
    .orderBy([
      { column: 'safety.created_at', order: 'desc' },
      { column: 'safety.id', order: 'desc' },
    ])
    .select(
      'pre.id as snapshot_id',
      'safety.id as safety_snapshot_id',
      'safety.created_at as restored_at',
      'safety.created_by as restored_by',
    )) as ReviewActivityRestore[];
  return rows;
}

/**
 * `GET /api/activities/{id}` (docs/api-review.md "Activities"): the activity with its `staged_count`
 * (drafts counted unless `includeDrafts` is false, the console's view), its number of drafts
 * and the restores of its `pre_apply` snapshots.
 * @throws NotFoundError `Activity not found` (404); ForbiddenError (403)
 */
export async function getReviewActivity(knex: Knex, scope: Scope, activityId: string, includeDrafts = true): Promise<ReviewActivityDetail> {
  const activity = await loadReviewActivity(knex, scope, activityId);
  const [stagedCount, draftCount, restores] = await Promise.all([
    countStaged(knex, activityId, includeDrafts),
    countDrafts(knex, activityId),
    reviewActivityRestores(knex, activityId),
  ]);
  return { activity, stagedCount, draftCount, restores };
}

/**
 * Which staged changes a list or a bulk review addresses (the dashboard's filters):
 * - `status`: one staged-change status (`draft` gives only drafts, `pending` none);
 * - `include_drafts`: without a `status`, drafts are listed unless this is false (the API's
 *   default includes them, the console passes false until its reviewer asks for drafts);
 * - `field`: the change's `after_data` has this key and its value differs from `before_data`'s;
 * - `confidence`: `review_info.confidence` equals it;
 * - `search_query`: case-insensitive substring of the before or after data (as JSON text).
 */
export interface StagedChangeFilter {
  status?: string;
  include_drafts?: boolean;
  field?: string;
  confidence?: string;
  search_query?: string;
}

/**
 * The {@link StagedChangeFilter} as one SQL condition over `staged_changes` with its bindings
 * (`TRUE` without conditions), for `whereRaw` of the list (Objection) and of bulk review (knex).
 */
export function stagedFilterSql(f: StagedChangeFilter): { sql: string; bindings: Knex.RawBinding[] } {
  const parts: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  if (f.status) {
    parts.push('status = ?');
    bindings.push(f.status);
  } else if (f.include_drafts === false) parts.push("status <> 'draft'");
  if (f.field) {
    parts.push('(after_data \\? ? AND (after_data -> ?) IS DISTINCT FROM (before_data -> ?))');
    bindings.push(f.field, f.field, f.field);
  }
  if (f.confidence) {
    parts.push("review_info ->> 'confidence' = ?");
    bindings.push(f.confidence);
  }
  if (f.search_query) {
    const like = `%${f.search_query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    parts.push('(after_data::text ILIKE ? OR before_data::text ILIKE ?)');
    bindings.push(like, like);
  }
  return { sql: parts.length ? parts.join(' AND ') : 'TRUE', bindings };
}

/** One page of an activity's staged changes (docs/api-review.md "Listing and summary"). */
export interface StagedChangePage {
  items: StagedChange[];
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
}

/** Query of the staged-changes list (docs/api-review.md "Listing and summary"): a page and the {@link StagedChangeFilter}. */
export interface StagedChangesQuery extends StagedChangeFilter {
  page: number;
  page_size: number;
}

/**
 * `GET /api/activities/{id}/staged-changes` (docs/api-review.md "Listing and summary"): staged changes in row order,
 * filtered by {@link StagedChangeFilter}, paginated: `{items, total, page, page_size, total_pages}`.
 * @throws NotFoundError (404) / ForbiddenError (403) for the activity
 */
export async function listStagedChanges(knex: Knex, scope: Scope, activityId: string, q: StagedChangesQuery): Promise<StagedChangePage> {
  await loadReviewActivity(knex, scope, activityId);
  const filter = stagedFilterSql(q);
  const base = StagedChange.query(knex).where({ activity_id: activityId }).whereRaw(filter.sql, filter.bindings);
  const total = await base.clone().resultSize();
  const items = await base
    .clone()
    .orderBy([{ column: 'row_index' }, { column: 'id' }])
    .offset((q.page - 1) * q.page_size)
    .limit(q.page_size);
  return { items, total, page: q.page, page_size: q.page_size, total_pages: Math.ceil(total / q.page_size) };
}

/** Per-field completion of an activity's staged changes. */
export interface FieldStats {
  completed: number;
  total: number;
  /** completed / total, rounded to 4 decimals; 0 without changes. */
  completion_rate: number;
  changed: number;
}

/** Counts by status, per-field completion and taxonomy categories of an activity's staged changes. */
export interface StagedChangesSummary {
  total_changes: number;
  by_status: Record<string, number>;
  field_stats: Record<string, FieldStats>;
  taxonomy_stats: { with_category: number; categories: Record<string, number> };
}

/**
 * Staged changes of an activity per status (statuses without changes absent; `draft` left out
 * when `includeDrafts` is false): one aggregate over the (activity_id, status) index.
 */
export async function countByStatus(knex: Knex | Knex.Transaction, activityId: string, includeDrafts = true): Promise<Record<string, number>> {
  const rows = await knex('staged_changes')
    .where({ activity_id: activityId })
    .modify((q) => {
      if (!includeDrafts) q.whereNot('status', 'draft');
    })
    .groupBy('status')
    .select('status')
    .count<Array<{ status: string; n: string }>>({ n: '*' });
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * `GET /api/activities/{id}/staged-changes/summary` (docs/api-review.md "Listing and summary"): `{total_changes,
 * by_status, field_stats: {field: {completed, total, completion_rate, changed}}, taxonomy_stats:
 * {with_category, categories: {category_id: count}}}`. `completed` counts changes whose after
 * data has a non-empty value for the field; `changed` those where it differs from before.
 * Drafts count like any change (`by_status.draft`) unless `includeDrafts` is false.
 * @throws NotFoundError (404) / ForbiddenError (403) for the activity
 */
export async function stagedChangesSummary(knex: Knex, scope: Scope, activityId: string, includeDrafts = true): Promise<StagedChangesSummary> {
  await loadReviewActivity(knex, scope, activityId);
  const byStatus = await countByStatus(knex, activityId, includeDrafts);
  const drafts = includeDrafts ? '' : "AND s.status <> 'draft'";
  const total = Object.values(byStatus).reduce((s, n) => s + n, 0);
  const { rows: fields } = await knex.raw(
    `SELECT e.key AS field,
       count(*) FILTER (WHERE e.value <> 'null'::jsonb AND e.value <> '""'::jsonb AND e.value <> '[]'::jsonb) AS completed,
       count(*) FILTER (WHERE e.value IS DISTINCT FROM s.before_data -> e.key) AS changed
     FROM staged_changes s CROSS JOIN LATERAL jsonb_each(s.after_data) e
     WHERE s.activity_id = ? ${drafts} GROUP BY e.key ORDER BY e.key`,
    [activityId],
  );
  const { rows: cats } = await knex.raw(
    `SELECT source_data ->> 'category_id' AS category_id, count(*) AS n FROM staged_changes s
     WHERE activity_id = ? AND source_data ->> 'category_id' IS NOT NULL ${drafts} GROUP BY 1 ORDER BY 1`,
    [activityId],
  );
  const fieldStats: Record<string, FieldStats> = {};
  for (const f of fields as Array<{ field: string; completed: string; changed: string }>) {
    const completed = Number(f.completed);
    fieldStats[f.field] = { completed, total, completion_rate: total ? Number((completed / total).toFixed(4)) : 0, changed: Number(f.changed) };
  }
  const categories: Record<string, number> = {};
  for (const c of cats as Array<{ category_id: string; n: string }>) categories[c.category_id] = Number(c.n);
  return {
    total_changes: total,
    by_status: byStatus,
    field_stats: fieldStats,
    taxonomy_stats: { with_category: Object.values(categories).reduce((s, n) => s + n, 0), categories },
  };
}
