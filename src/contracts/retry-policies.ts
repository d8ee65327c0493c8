/**
 * Retry policies of the workflows' activity proxies (Temporal retry policy:
 * https://docs.temporal.io/encyclopedia/retry-policies): one builder, {@link retryPolicy}, that
 * every workflow declares its activities' retries with, and the two policies several share. Part
 * of the workflow bundle: pure values, no value import (docs/workflows.md, "Rules of the craft" 1).
 */
import type { Duration, RetryPolicy } from '@temporalio/common';

/**
 * An activity retry policy: the first retry after `initialInterval`, each next interval twice the
 * one before (`backoffCoefficient` 2) up to `maximumInterval`, at most `maximumAttempts` attempts
 * (the first included); errors whose type is in `nonRetryableErrorTypes` fail at once (the key is
 * left out when none is given). `maximumInterval` null leaves the cap to Temporal's default (100 ×
 * the initial interval). Durations are Temporal's: milliseconds or a string such as `'1 minute'`.
 */
export function retryPolicy(
  initialInterval: Duration,
  maximumInterval: Duration | null,
  maximumAttempts: number,
  nonRetryableErrorTypes?: string[],
): RetryPolicy {
  return {
    initialInterval,
    backoffCoefficient: 2,
    ...(maximumInterval === null ? {} : { maximumInterval }),
    maximumAttempts,
    ...(nonRetryableErrorTypes ? { nonRetryableErrorTypes } : {}),
  };
}

/**
 * Retries of a bookkeeping activity (mark failed, load a plan, finish an import, catch the word
 * index up): every second at first, doubling up to a minute, 30 attempts.
 */
export const BOOKKEEPING_RETRY: RetryPolicy = retryPolicy('1 second', '1 minute', 30);

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
  return retryPolicy(
    `${Math.max(0.1, tuning.retry_initial_interval_s ?? 1)} seconds`,
    '1 minute',
    Math.max(1, tuning.maximum_attempts ?? 10),
    nonRetryableErrorTypes,
  );
}
