/**
 * Heartbeats of long activities (architecture.md, Temporal rule 5): a timer that heartbeats
 * while the work runs, so Temporal notices a dead worker within the heartbeat timeout instead of
 * the whole start-to-close timeout, and delivers cancellation to the activity.
 */
import type { Context } from '@temporalio/activity';

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
