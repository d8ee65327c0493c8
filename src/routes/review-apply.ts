import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../deps';
import { presentApplyStatus } from '../presenters/review-apply';
import { AnyObject, Nullable, StringEnum } from '../schemas/common';
import { requestApply } from '../services/review/apply';
import { defineRoute, RouteDef } from './registry';

const params = Type.Object({ activity_id: Type.String({ description: 'Activity id' }) });

const body = Type.Object({
  force: Type.Optional(
    Type.Boolean({
      description: 'Apply changes whose catalog item changed since they were computed (otherwise they become `conflict` and are skipped)',
      default: false,
    }),
  ),
});

const response = Type.Object({
  activity_id: Type.String(),
  status: StringEnum(['created', 'running', 'pending_review', 'completed', 'cancelled', 'failed'] as const),
  apply_progress: Nullable(
    AnyObject({
      description:
        '`{phase: queued|applying|completed|failed, pre_apply_snapshot_id?, error?, applied?, skipped_conflicts?, failed?}`; poll `GET /activities/{id}` until completed or failed',
    }),
  ),
  apply_result: Nullable(AnyObject({ description: '`{applied, skipped_conflicts, failed, pre_apply_snapshot_id}` once completed' })),
});

/**
 * `POST /public/activities/{id}/apply` and its prefix-less alias (docs/api-reference.md "URLs"):
 * starts the apply workflow `activity-apply-<activity_id>` and answers at once, 202 with the
 * activity's status and apply progress (an activity already applied answers its stored result).
 */
export function reviewApplyRoutes(deps: AppDeps): RouteDef[] {
  return ['/public/activities/:activity_id/apply', '/activities/:activity_id/apply'].map((path) =>
    defineRoute({
      method: 'post',
      path,
      tags: ['activities'],
      // Takes a pre_apply snapshot, then applies every approved and partially accepted change in one
      // transaction (src/services/review/apply.ts); 409 unless the activity has a catalog and is pending_review.
      summary: 'Apply the approved changes of an activity: 202 at once; the workflow activity-apply-<id> applies them (poll GET /activities/{id})',
      params,
      body,
      status: 202,
      response,
      handler: async ({ scope, params: p, body: b }) =>
        presentApplyStatus(await requestApply({ knex: deps.knex, jobRunner: deps.jobRunner }, scope, p.activity_id, b.force ?? false)),
    }),
  );
}
