/**
 * Review activities of the apply workflow (workflows/review-apply.ts): thin adapters over
 * src/services/review/apply.ts, built by {@link createApplyActivities}. Only ids, flags and the
 * result cross Temporal (docs/workflows.md "Rules of the craft").
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Knex } from 'knex';
import { ConflictError, ValidationError } from '../src/lib/errors';
import { logger } from '../src/lib/logger';
import type { CatalogCaches } from '../src/services/catalog/catalog-caches';
import { createCatalogCaches } from '../src/services/catalog/catalog-caches';
import type { ApplyResult } from '../src/models/review-activity';
import { markApplyFailed, runApply } from '../src/services/review/apply';
import type { ReviewApplyArgs } from '../src/contracts/workflows';
import { APPLY_NOT_APPLICABLE } from '../src/contracts/workflows';
import { heartbeatingOneTransaction } from './heartbeat';

/** The review activities registered on the worker; the workflow proxies them by these names. */
export interface ApplyActivities {
  /**
   * Takes (or, on a retry of the same run, reuses) the `pre_apply` snapshot and applies every
   * approved change of the activity in one transaction (src/services/review/apply.ts
   * `runApply`); heartbeats while it runs. Idempotent: never applies twice.
   * @returns the result (the stored one when the activity was completed already)
   * @throws ApplicationFailure `ApplyNotApplicable` (non-retryable) when the activity is not
   *   pending_review, has no catalog, or its schema changes are invalid; the database's error
   *   otherwise (retried)
   */
  applyActivity(args: ReviewApplyArgs): Promise<ApplyResult>;
  /** Records a failed apply (`apply_progress.phase` failed, with the error); idempotent. */
  markApplyFailed(activityId: string, error: string): Promise<void>;
}

/**
 * Builds the review activities over the worker's database and catalog caches.
 * @returns an object of async functions to pass (with the others) to `Worker.create`
 */
export function createApplyActivities(deps: { knex: Knex; caches?: CatalogCaches; searchWordsDeferMinItems?: number }): ApplyActivities {
  const caches = deps.caches ?? createCatalogCaches();
  return {
    async applyActivity(args) {
      try {
        return await heartbeatingOneTransaction(async (ctx, started) => {
          const result = await runApply(
            { knex: deps.knex, caches, searchWordsDeferMinItems: deps.searchWordsDeferMinItems },
            { activity_id: args.activity_id, force: args.force, actor: args.actor },
            ctx.info.workflowExecution?.runId ?? ctx.info.activityId,
          );
          logger.info({ activity_id: args.activity_id, attempt: ctx.info.attempt, result, ms: Date.now() - started }, 'review activity applied');
          return result;
        });
      } catch (err) {
        if (err instanceof ConflictError || err instanceof ValidationError) {
          throw ApplicationFailure.nonRetryable(err.message, APPLY_NOT_APPLICABLE);
        }
        throw err;
      }
    },
    async markApplyFailed(activityId, error) {
      await markApplyFailed(deps.knex, activityId, error);
    },
  };
}
