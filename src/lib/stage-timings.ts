/**
 * Wall-clock time per named stage of one request, for the `Server-Timing` response header
 * (W3C Server Timing, https://www.w3.org/TR/server-timing/): `name;dur=<ms>` entries joined by
 * commas. The bulk write path reports its stages this way (docs/benchmarks.md "Bulk upsert by
 * stage"), so a client or bench can see where a request's time goes without a profiler.
 */
export class StageTimings {
  /** Milliseconds per stage, in the order stages were first recorded. */
  private readonly ms = new Map<string, number>();

  /** Adds `ms` milliseconds to `stage` (a token: letters, digits, `_` and `-`). */
  add(stage: string, ms: number): void {
    this.ms.set(stage, (this.ms.get(stage) ?? 0) + ms);
  }

  /** Runs `fn` and adds its wall-clock time to `stage`; returns what `fn` returns (or rethrows). */
  async time<T>(stage: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.add(stage, performance.now() - t0);
    }
  }

  /** The synchronous form of {@link time}. */
  timeSync<T>(stage: string, fn: () => T): T {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      this.add(stage, performance.now() - t0);
    }
  }

  /** Milliseconds per stage (rounded to 0.01 ms), in recording order. */
  entries(): Record<string, number> {
    return Object.fromEntries([...this.ms].map(([stage, ms]) => [stage, Math.round(ms * 100) / 100]));
  }

  /** The `Server-Timing` header value, e.g. `validation;dur=12.5, words;dur=3.1` (empty when nothing was recorded). */
  header(): string {
    return Object.entries(this.entries())
      .map(([stage, ms]) => `${stage};dur=${ms}`)
      .join(', ');
  }
}

/**
 * Parses a `Server-Timing` header value into milliseconds per metric name (metrics without `dur`
 * count 0; unparsable entries are skipped). The inverse of {@link StageTimings.header}.
 */
export function parseServerTiming(value: string | null | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of (value ?? '').split(',')) {
    const [name, ...params] = entry.trim().split(';');
    if (!name) continue;
    const dur = params.map((p) => p.trim()).find((p) => p.startsWith('dur='));
    out[name.trim()] = (out[name.trim()] ?? 0) + (dur ? Number(dur.slice(4)) || 0 : 0);
  }
  return out;
}
