/**
 * A per-key concurrency limit (a counting semaphore per host): at most `perKey` tasks of the
 * same key run at once, the rest wait in FIFO order. Keys are released when idle.
 */
export class KeyedLimiter {
  private readonly slots = new Map<string, { active: number; waiting: Array<() => void> }>();

  /** @param perKey tasks per key at once, at least 1 */
  constructor(private readonly perKey: number) {}

  /** Runs `task` once the key has a free slot; resolves/rejects with the task's outcome. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { active: 0, waiting: [] };
      this.slots.set(key, slot);
    }
    if (slot.active >= Math.max(1, this.perKey)) await new Promise<void>((resolve) => slot.waiting.push(resolve));
    slot.active++;
    try {
      return await task();
    } finally {
      slot.active--;
      const next = slot.waiting.shift();
      if (next) next();
      else if (slot.active === 0) this.slots.delete(key);
    }
  }
}
