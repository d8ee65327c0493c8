import { activityDuration } from '../src/lib/metrics';

/**
 * Each activity with its duration and result (`ok`, `error`) observed in
 * `temporal_activity_duration_seconds` (activity latency histograms). The worker wraps
 * every activity it registers (temporal/worker.ts).
 */
export function timedActivities<T extends object>(activities: T): T {
  const timed: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    timed[name] = async (...args: unknown[]): Promise<unknown> => {
      const end = activityDuration.startTimer({ activity: name });
      try {
        const result = await fn(...args);
        end({ result: 'ok' });
        return result;
      } catch (err) {
        end({ result: 'error' });
        throw err;
      }
    };
  }
  return timed as T;
}
