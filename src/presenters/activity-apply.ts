import type { ReviewActivity } from '../models/review-activity';

/**
 * The answer of `POST /public/activities/{id}/apply` (decisions.md §5, G16): the activity's
 * status with its apply progress and, once completed, its result `{applied, skipped_conflicts,
 * failed, pre_apply_snapshot_id}`. The run id bookkeeping of `apply_progress` stays internal.
 */
export function presentApplyStatus(a: ReviewActivity): {
  activity_id: string;
  status: string;
  apply_progress: Record<string, unknown> | null;
  apply_result: Record<string, unknown> | null;
} {
  let progress: Record<string, unknown> | null = null;
  if (a.apply_progress) {
    const { snapshot_run_id: _run, ...rest } = a.apply_progress;
    progress = rest;
  }
  return { activity_id: a.id, status: a.status, apply_progress: progress, apply_result: a.apply_result };
}
