/**
 * Retry policies shared by the workflows' activity proxies (Temporal retry policy:
 * https://docs.temporal.io/encyclopedia/retry-policies). Pure values, safe in the workflow sandbox.
 */
import type { RetryPolicy } from '@temporalio/workflow';

/**
 * Retries of a bookkeeping activity (mark failed, load a plan, catch the word index up): every
 * second at first, doubling up to a minute, 30 attempts.
 */
export const BOOKKEEPING_RETRY: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 };

/** The retry knobs a starter may tune in a workflow's arguments (tests shorten them). */
export interface RetryTuning {
  /** First retry interval, s (default 1, at least 0.1). */
  retry_initial_interval_s?: number;
  /** Attempts at most (default 10, at least 1). */
  maximum_attempts?: number;
}

/**
 * The retry policy of a workflow's main activity (apply, flow node, snapshot restore): from
 * `tuning.retry_initial_interval_s` (default 1 s), doubling up to a minute, at most
 * `tuning.maximum_attempts` (default 10) attempts; errors of `nonRetryableErrorTypes` fail at once.
 */
export function tunedRetry(tuning: RetryTuning, nonRetryableErrorTypes: string[]): RetryPolicy {
  return {
    initialInterval: `${Math.max(0.1, tuning.retry_initial_interval_s ?? 1)} seconds`,
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: Math.max(1, tuning.maximum_attempts ?? 10),
    nonRetryableErrorTypes,
  };
}
