/**
 * Waiting on a condition instead of a fixed time: tests poll what they wait for (a row written,
 * a workflow started, a log line) with a deadline, so they are as fast as the system and fail
 * with the name of the condition rather than on a later assertion.
 */

/**
 * Polls `check` every `intervalMs` (default 100) until it returns a truthy value, and returns it.
 * @param what the condition, for the timeout message
 * @throws Error `timed out waiting for <what>` after `timeoutMs` (default 30 s)
 */
export async function waitUntil<T>(check: () => T | Promise<T>, what: string, timeoutMs = 30_000, intervalMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
