/**
 * Heartbeats of long activities (docs/workflows.md "Rules of the craft"): a timer that heartbeats
 * while the work runs, so Temporal notices a dead worker within the heartbeat timeout instead of
 * the whole start-to-close timeout, and delivers cancellation to the activity.
 */
import { Context } from '@temporalio/activity';

/** Longest heartbeat period (ms); shorter when the heartbeat timeout is under three times this. */
export const HEARTBEAT_MS = 10_000;

/** Heartbeat period for the current activity: {@link HEARTBEAT_MS}, or a third of a shorter heartbeat timeout, at least 200 ms. */
export function heartbeatEvery(ctx: Context): number {
  return Math.max(200, Math.min(HEARTBEAT_MS, Math.floor((ctx.info.heartbeatTimeoutMs ?? 3 * HEARTBEAT_MS) / 3)));
}

/**
 * Runs `work` while heartbeating `details()` every {@link heartbeatEvery} (and once at once).
 * @returns what `work` returns; rethrows what it throws (the timer is always cleared)
 */
export async function whileHeartbeating<T>(ctx: Context, details: () => unknown, work: () => Promise<T>): Promise<T> {
  ctx.heartbeat(details());
  const timer = setInterval(() => ctx.heartbeat(details()), heartbeatEvery(ctx));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Runs work that is one transaction in the current activity (nothing finer to resume from,
 * Temporal rule 5) while heartbeating `{elapsed_ms}`, so Temporal notices a dead worker within
 * the heartbeat timeout (the transaction is rolled back and the retry starts over).
 * @param work gets the activity's context and when it started (ms since epoch), for its log lines
 * @returns what `work` returns; rethrows what it throws
 */
export function heartbeatingOneTransaction<T>(work: (ctx: Context, startedMs: number) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const started = Date.now();
  return whileHeartbeating(
    ctx,
    () => ({ elapsed_ms: Date.now() - started }),
    () => work(ctx, started),
  );
}
