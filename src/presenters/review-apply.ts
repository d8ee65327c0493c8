import type { ApplyProgress, ApplyResult, ReviewActivity } from '../models/review-activity';

/**
 * The answer of `POST /public/activities/{id}/apply` (docs/api-review.md "Apply"): the activity's
 * status with its apply progress and, once completed, its result `{applied, skipped_conflicts,
 * failed, pre_apply_snapshot_id}`. The run id bookkeeping of `apply_progress` stays internal.
 */
export function presentApplyStatus(a: ReviewActivity): {
  activity_id: string;
  status: string;
  apply_progress: Omit<ApplyProgress, 'snapshot_run_id'> | null;
  apply_result: ApplyResult | null;
} {
  return { activity_id: a.id, status: a.status, apply_progress: presentApplyProgress(a.apply_progress), apply_result: a.apply_result };
}

/** `apply_progress` as clients see it: `{phase, …}` without the run id bookkeeping (internal). */
export function presentApplyProgress(progress: ApplyProgress | null): Omit<ApplyProgress, 'snapshot_run_id'> | null {
  if (!progress) return null;
  const { snapshot_run_id: _run, ...shown } = progress;
  return shown;
}
